package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"kvparity/diffview"
	"kvparity/internal/jsonscan"
	"kvparity/internal/pointer"
)

// ---- a configuration laid out another way ----

// Between two versions the metadata may be laid out anew: settings moved into or out of a
// sub-object with their values kept, some renamed, a version's new settings added and its
// dropped ones removed. Every such pointer is a member one side lacks; none is a setting
// that both runs carry with another value. That is the configuration's schema, not a
// difference of configuration: it cannot have moved a time, and must not lead as the cause
// (the first divergence is then in the history, and its cause leads).

// A metaLeaf is one scalar (or array) under a metadata member one side lacks.
type metaLeaf struct {
	ptr    string   // its pointer
	seg    []string // its path, for the moved test
	raw    string
	change int // the index into Diff.Changes of the one-sided member it is under (versions.go)
}

// A movedSetting is a metadata leaf found under another path on the other side.
type movedSetting struct {
	from, to metaLeaf
}

// configLayout is what the metadata's one-sided members hold: the settings that moved (same
// key, the path with sub-objects put in or taken out), and the leaves only one side has.
type configLayout struct {
	pointers     int   // metadata pointers added or removed
	changes      []int // and their indexes into Diff.Changes
	moved        []movedSetting
	onlyA, onlyB []metaLeaf
}

// metaLeaves lists the leaves of value ti at ptr (an object's members, recursively; an empty
// object is a leaf).
func metaLeaves(dc *diffview.Doc, ptr string, ti int32, out []metaLeaf) []metaLeaf {
	if dc.Kind(ti) == jsonscan.Object && dc.Scanner.Tape[ti].N > 0 {
		for _, m := range dc.Members(ti) {
			out = metaLeaves(dc, ptr+"/"+pointer.Escape(m.Key), m.Val, out)
		}
		return out
	}
	return append(out, metaLeaf{ptr: ptr, seg: diffview.SplitPointer(ptr), raw: dc.Raw(ti)})
}

// subsequence says every segment of short is in long, in order: long is short with
// sub-objects put in (a setting moved into a nested object), the key last in both.
func subsequence(short, long []string) bool {
	if len(short) == 0 || len(long) <= len(short) || short[len(short)-1] != long[len(long)-1] {
		return false
	}
	i := 0
	for _, s := range long {
		if i < len(short) && s == short[i] {
			i++
		}
	}
	return i == len(short)
}

// moved says a's leaf reads as b's under another path.
func moved(a, b metaLeaf) bool { return subsequence(a.seg, b.seg) || subsequence(b.seg, a.seg) }

// configLayoutOf pairs the leaves of the metadata members one side lacks: a leaf of A pairs
// with the one leaf of B it moved to (and that one's only candidate is it); the rest is one
// side's.
func configLayoutOf(d *Diff) configLayout {
	var lay configLayout
	var la, lb []metaLeaf
	for i := range d.Changes {
		c := &d.Changes[i]
		if !strings.HasPrefix(c.Pointer, "/metadata/") || c.Kind == diffview.Changed {
			continue
		}
		lay.pointers++
		lay.changes = append(lay.changes, i)
		if c.Kind == diffview.Removed {
			if ti, ok := d.DocA.Value(c.Pointer); ok {
				la = metaLeaves(d.DocA, c.Pointer, ti, la)
			}
		} else if ti, ok := d.DocB.Value(c.Pointer); ok {
			lb = metaLeaves(d.DocB, c.Pointer, ti, lb)
		}
	}
	usedB := make([]bool, len(lb))
	usedA := make([]bool, len(la))
	for _, m := range movedLeaves(la, lb) {
		usedA[m[0]], usedB[m[1]] = true, true
		lay.moved = append(lay.moved, movedSetting{la[m[0]], lb[m[1]]})
	}
	for i, l := range la {
		if !usedA[i] {
			lay.onlyA = append(lay.onlyA, l)
		}
	}
	for j, l := range lb {
		if !usedB[j] {
			lay.onlyB = append(lay.onlyB, l)
		}
	}
	return lay
}

// movedLeaves pairs leaves of A (la) with leaves of B (lb) that moved: a leaf of A pairs with
// the one leaf of B it moved to (and that one's only candidate is it). The pairs are index
// pairs, in la's order.
func movedLeaves(la, lb []metaLeaf) [][2]int {
	byKey := func(ls []metaLeaf) map[string][]int {
		m := map[string][]int{}
		for i, l := range ls {
			k := l.seg[len(l.seg)-1]
			m[k] = append(m[k], i)
		}
		return m
	}
	ka, kb := byKey(la), byKey(lb)
	pairOf := func(l metaLeaf, cands []int, ls []metaLeaf) int {
		at := -1
		for _, j := range cands {
			if moved(l, ls[j]) {
				if at >= 0 {
					return -1 // two places it may have moved to: neither is said
				}
				at = j
			}
		}
		return at
	}
	var out [][2]int
	for i, l := range la {
		k := l.seg[len(l.seg)-1]
		if j := pairOf(l, kb[k], lb); j >= 0 && pairOf(lb[j], ka[k], la) == i {
			out = append(out, [2]int{i, j})
		}
	}
	return out
}

// differing lists the moved settings whose values differ: configuration that differs.
func (lay *configLayout) differing() []movedSetting {
	var out []movedSetting
	for _, m := range lay.moved {
		if m.from.raw != m.to.raw && !sameNumber(m.from.raw, m.to.raw) {
			out = append(out, m)
		}
	}
	return out
}

// schemaOnly says the one-sided members are a layout: some setting with a value moved and
// kept it, and none that moved changed it.
func (lay *configLayout) schemaOnly() bool {
	return len(lay.differing()) == 0 && slices.ContainsFunc(lay.moved, func(m movedSetting) bool { return m.from.raw != "null" })
}

// signature names the configuration's schema change.
func (lay *configLayout) signature() *Signature {
	names := func(ls []metaLeaf) string {
		var parts []string
		for _, l := range ls[:min(6, len(ls))] {
			parts = append(parts, strings.TrimPrefix(l.ptr, "/metadata/"))
		}
		if len(ls) > 6 {
			parts = append(parts, fmt.Sprintf("… %d more", len(ls)-6))
		}
		if len(parts) == 0 {
			return "none"
		}
		return strings.Join(parts, ", ")
	}
	ex := lay.moved[0]
	for _, m := range lay.moved {
		if m.from.raw != "null" {
			ex = m
			break
		}
	}
	ev := []string{
		fmt.Sprintf("%d setting(s) under another path with the same value, e.g. %s → %s (%s)", len(lay.moved), ex.from.ptr, ex.to.ptr, diffview.Short(ex.from.raw)),
		fmt.Sprintf("only in A (%d): %s", len(lay.onlyA), names(lay.onlyA)),
		fmt.Sprintf("only in B (%d): %s", len(lay.onlyB), names(lay.onlyB)),
		fmt.Sprintf("no setting both runs carry has another value: these %d metadata pointers are two versions' layouts of the configuration, not a cause of what else differs", lay.pointers),
	}
	label := fmt.Sprintf("configuration laid out another way (%d setting(s) moved, %d only in A, %d only in B; no setting differs)", len(lay.moved), len(lay.onlyA), len(lay.onlyB))
	return &Signature{Code: SigSchema, Label: label, Evidence: ev, Explains: lay.pointers, Changes: lay.changes}
}

// detectConfigLayout names metadata laid out another way with no setting differing (a
// setting both carry with another value, or one that moved and changed, is configuration:
// detectConfig).
func detectConfigLayout(d *Diff) *Signature {
	if d.versionLayout() != nil || !d.configSchemaOnly() { // two release lines: detectVersionChange
		return nil
	}
	return d.configLayout().signature()
}

// configSchemaOnly says the metadata differs only in its layout: members one side lacks,
// every moved setting's value kept, no setting both carry with another value (between two
// release lines: every metadata pointer is the version change's).
func (d *Diff) configSchemaOnly() bool {
	if v := d.versionLayout(); v != nil { // two release lines: the version claims every member
		n := 0
		for i := range d.Changes {
			if p := d.Changes[i].Pointer; p == "/metadata" || strings.HasPrefix(p, "/metadata/") {
				if !v.claimed[i] {
					return false
				}
				n++
			}
		}
		return n > 0
	}
	if lay := d.configLayout(); lay.pointers == 0 || !lay.schemaOnly() {
		return false
	}
	for i := range d.Changes {
		c := &d.Changes[i]
		if c.Kind == diffview.Changed && strings.HasPrefix(c.Pointer, "/metadata/") && !sameNumber(c.A, c.B) {
			return false
		}
	}
	return true
}

// configLayout is configLayoutOf(d), made once.
func (d *Diff) configLayout() *configLayout {
	if d.layout == nil {
		lay := configLayoutOf(d)
		d.layout = &lay
	}
	return d.layout
}
