package diagnose

import (
	"fmt"
	"strings"

	"kvparity/diffview"
	"kvparity/internal/jsonscan"
)

// An arrayView is an ordered array of objects (events) at one pointer of one report.
type arrayView struct {
	d     *diffview.Doc
	elems []int32
	ms    [][]diffview.Member
}

// viewArray returns the array of objects at ptr in d, or nil.
func viewArray(d *diffview.Doc, ptr string) *arrayView {
	ti, ok := d.Value(ptr)
	if !ok {
		return nil
	}
	return arrayViewOf(d, ti)
}

// arrayViewOf views value ti of d when it is an array of objects, or returns nil.
func arrayViewOf(d *diffview.Doc, ti int32) *arrayView {
	if d.Kind(ti) != jsonscan.Array {
		return nil
	}
	// Checked before anything is allocated: a long array of scalars is not an event array.
	for _, e := range d.Scanner.Elements(ti) {
		if d.Kind(e) != jsonscan.Object {
			return nil
		}
	}
	es := d.Elements(ti)
	v := &arrayView{d: d, elems: es, ms: make([][]diffview.Member, len(es))}
	for k, e := range es {
		v.ms[k] = d.Members(e)
	}
	return v
}

// member is the value of key in element k.
func (v *arrayView) member(k int, key string) (int32, bool) {
	for _, m := range v.ms[k] {
		if m.Key == key {
			return m.Val, true
		}
	}
	return 0, false
}

func (v *arrayView) get(k int, key string) (string, bool) {
	if ti, ok := v.member(k, key); ok {
		return v.d.Raw(ti), true
	}
	return "", false
}

func (v *arrayView) has(key string) bool {
	for k := range v.ms {
		if _, ok := v.get(k, key); ok {
			return true
		}
	}
	return false
}

func (v *arrayView) timed() bool { return len(v.ms) > 0 && v.has("at_ms") }

func (v *arrayView) time(k int) string { t, _ := v.get(k, "at_ms"); return t }

// withoutOrdinals is element k's bytes with its sequence-number members left out.
func (v *arrayView) withoutOrdinals(k int) string {
	return diffview.WithoutKeys(v.d.Scanner, v.elems[k], ordinalKey)
}

func (v *arrayView) hasParents() bool {
	for _, p := range parentKeys {
		if v.has(p) {
			return true
		}
	}
	return false
}

// stored lists the block hashes element k stores, and its parent ("" for none).
func (v *arrayView) stored(k int) (blocks []string, parent string) {
	for _, p := range parentKeys {
		if x, ok := v.get(k, p); ok && x != "null" {
			parent = strings.Trim(x, `"`)
		}
	}
	d := v.d
	for _, bk := range blockKeys {
		x, ok := v.member(k, bk)
		if !ok {
			continue
		}
		if d.Kind(x) == jsonscan.Array {
			for _, e := range d.Scanner.Elements(x) {
				if d.Kind(e) == jsonscan.Object {
					// blocks: [{block_hash: …}]
					if h, ok := d.Scanner.Member(e, "block_hash"); ok {
						blocks = append(blocks, strings.Trim(d.Raw(h), `"`))
					}
					continue
				}
				blocks = append(blocks, strings.Trim(d.Raw(e), `"`))
			}
		} else {
			blocks = append(blocks, strings.Trim(d.Raw(x), `"`))
		}
		break
	}
	return blocks, parent
}

func (v *arrayView) blocks() []string {
	var all []string
	for k := range v.ms {
		b, _ := v.stored(k)
		all = append(all, b...)
	}
	return all
}

func (v *arrayView) sameBlocks(o *arrayView) bool {
	return sameMultiset(v.blocks(), o.blocks())
}

// violations lists events whose parent block is stored later in the same array.
func (v *arrayView) violations() []string {
	storedAt := map[string]int{}
	for k := range v.ms {
		bs, _ := v.stored(k)
		for _, b := range bs {
			if _, ok := storedAt[b]; !ok {
				storedAt[b] = k
			}
		}
	}
	var out []string
	for k := range v.ms {
		_, parent := v.stored(k)
		if parent == "" {
			continue
		}
		if at, ok := storedAt[parent]; ok && at > k {
			bs, _ := v.stored(k)
			first := ""
			if len(bs) > 0 {
				first = bs[0]
			}
			out = append(out, fmt.Sprintf("event #%d stores %s before its parent %s (stored at #%d)", k, first, parent, at))
		}
	}
	return out
}

// fieldArray views key of per_request record idx as an array of objects, or returns nil.
func fieldArray(d *diffview.Doc, idx int, key string) *arrayView {
	if v, ok := d.FieldValue(idx, key); ok {
		return arrayViewOf(d, v)
	}
	return nil
}
