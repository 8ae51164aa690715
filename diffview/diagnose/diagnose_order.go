package diagnose

import (
	"fmt"
	"strconv"
	"strings"

	"kvparity/diffview"
)

// ---- child before parent (seed 003) ----

var parentKeys = []string{"parent_hash", "parent_block_hash"}
var blockKeys = []string{"block_hash", "block_hashes", "blocks", "hash"}

// detectChildBeforeParent looks at every differing array of KV events (objects with a
// parent link) and checks the topological order: a stored block whose parent is stored later
// in the same array is a child before its parent.
func detectChildBeforeParent(d *Diff) *Signature {
	arrays := changedEventArrays(d, (*arrayView).hasParents)
	var ev []string
	var explained []int
	for _, p := range sortedKeys(arrays) {
		va, vb := viewArray(d.DocA, d.SideA(&d.Changes[arrays[p][0]], p)), viewArray(d.DocB, p)
		if va == nil || vb == nil || !va.hasParents() {
			continue
		}
		viols := vb.violations()
		side := "B"
		if len(viols) == 0 {
			viols, side = va.violations(), "A"
		}
		if len(viols) == 0 {
			continue
		}
		explained = append(explained, arrays[p]...)
		ev = append(ev, fmt.Sprintf("%s in %s: %d event(s) store a child before its parent; first: %s", p, side, len(viols), viols[0]))
		if va.sameBlocks(vb) {
			ev = append(ev, fmt.Sprintf("%s: same multiset of %d stored blocks in A and B; only the order differs", p, len(vb.blocks())))
		}
	}
	// The canonical record carries only a digest of the KV event stream: equal counts with a
	// different digest means the same events in another order.
	if len(explained) == 0 {
		var digest *diffview.Change
		digestAt := -1
		counts := true
		for i := range d.Changes {
			c := &d.Changes[i]
			if !strings.HasPrefix(c.Pointer, "/coverage/kv_ingest/") {
				continue
			}
			switch seg := diffview.SplitPointer(c.Pointer)[2]; seg {
			case "blake3_256":
				digest, digestAt = c, i
			case "batches", "events", "blocks", "kind_counts", "pool_counts", "tier_counts":
				counts = false
			}
		}
		if digest == nil || !counts {
			return nil
		}
		parentOrder := false
		for _, p := range []string{"/coverage/kv_ingest/parent_order_violations", "/coverage/kv_ingest/orphan_stored_events"} {
			if v, ok := d.DocB.At(p); ok && v != "0" {
				ev = append(ev, fmt.Sprintf("B %s = %s", p, v))
				parentOrder = true
			}
			if v, ok := d.DocA.At(p); ok && v != "0" {
				ev = append(ev, fmt.Sprintf("A %s = %s", p, v))
				parentOrder = true
			}
		}
		if !parentOrder {
			return nil
		}
		explained = []int{digestAt}
		ev = append(ev, fmt.Sprintf("/coverage/kv_ingest/blake3_256 differs (%s → %s) while event, block and kind counts are equal: same KV events, different order", diffview.Short(digest.A), diffview.Short(digest.B)))
	}
	if len(explained) == 0 {
		return nil
	}
	return &Signature{Code: SigChildBeforeParent, Label: "KV events: child stored before its parent", Evidence: ev, Explains: len(explained), Changes: explained}
}

// ---- ordering within equal timestamps ----

// detectTieOrder applies the tie-group lens to every differing ordered array of timed
// events: grouped by timestamp, with ordinals blanked, both runs hold the same multiset in
// every group and the same timestamps in the same positions.
func detectTieOrder(d *Diff) *Signature {
	arrays := changedEventArrays(d, (*arrayView).timed)
	var ev []string
	var explained []int
	groups := 0
	renamed := map[string]bool{} // ordinal values whose meaning moved
	for _, p := range sortedKeys(arrays) {
		va, vb := viewArray(d.DocA, d.SideA(&d.Changes[arrays[p][0]], p)), viewArray(d.DocB, p)
		if va == nil || vb == nil || len(va.elems) != len(vb.elems) || !va.timed() {
			continue
		}
		n, example, ords, ok := tieLens(va, vb)
		if !ok {
			continue
		}
		explained = append(explained, arrays[p]...)
		groups += n
		for _, o := range ords {
			renamed[o] = true
		}
		ev = append(ev, fmt.Sprintf("%s: %d tie group(s) reordered, same multiset of events; e.g. %s", p, n, example))
	}
	if len(explained) == 0 {
		return digestOnlyOrder(d)
	}
	// References to reordered ordinals (pressure_record_ordinals) follow the same permutation.
	refs := 0
	for i, c := range d.Changes {
		if p, _, ok := arrayPrefix(c.Pointer); ok && strings.HasSuffix(p, "_ordinals") && (renamed[c.A] || renamed[c.B]) {
			refs++
			explained = append(explained, i)
		}
	}
	if refs > 0 {
		ev = append(ev, fmt.Sprintf("%d ordinal reference(s) in per-request records follow the same permutation", refs))
	}
	ev = append([]string{fmt.Sprintf("%d group(s) of events at equal virtual time hold the same events in a different order (executor or same-time sequence order)", groups)}, ev...)
	return &Signature{Code: SigTieOrder, Label: "ordering only, within equal timestamps", Evidence: ev, Explains: len(explained), Changes: explained}
}

// digestOnlyOrder: the KV ingest digest is the only difference while every count agrees —
// the same KV events were ingested in another order and nothing downstream noticed.
func digestOnlyOrder(d *Diff) *Signature {
	if len(d.Changes) != 1 || d.Changes[0].Pointer != "/coverage/kv_ingest/blake3_256" {
		return nil
	}
	c := d.Changes[0]
	ev := []string{
		fmt.Sprintf("only /coverage/kv_ingest/blake3_256 differs (%s → %s); batches, events, blocks and kind, pool and tier counts are equal", diffview.Short(c.A), diffview.Short(c.B)),
		"the same router KV events were ingested in a different order (same-time passes ending in another order); no routing decision changed",
		"the canonical record keeps only a digest of the event stream, so the exact reordered events are not visible here",
	}
	return &Signature{Code: SigTieOrder, Label: "ordering only, within equal timestamps (KV event stream)", Evidence: ev, Explains: 1, Changes: []int{0}}
}

// tieLens checks the lens on one array and returns the number of reordered tie groups.
func tieLens(a, b *arrayView) (n int, example string, ordinals []string, ok bool) {
	type group struct {
		as, bs []string
		idx    []int
	}
	groups := map[string]*group{}
	var order []string
	for k := range a.elems {
		ta, tb := a.time(k), b.time(k)
		if ta != tb {
			return 0, "", nil, false // timestamps moved: not a pure reordering
		}
		g := groups[ta]
		if g == nil {
			g = &group{}
			groups[ta] = g
			order = append(order, ta)
		}
		g.as = append(g.as, a.withoutOrdinals(k))
		g.bs = append(g.bs, b.withoutOrdinals(k))
		g.idx = append(g.idx, k)
	}
	// collect the sequence numbers handed out inside a reordered group
	collect := func(g *group) {
		for _, k := range g.idx {
			for _, v := range []*arrayView{a, b} {
				for _, m := range v.ms[k] {
					if ordinalKey(m.Key) {
						ordinals = append(ordinals, v.d.Raw(m.Val))
					}
				}
			}
		}
	}
	for _, t := range order {
		g := groups[t]
		same := true
		for k := range g.as {
			if g.as[k] != g.bs[k] {
				same = false
				break
			}
		}
		if same {
			continue
		}
		if !sameMultiset(g.as, g.bs) {
			return 0, "", nil, false // different events, not just order
		}
		n++
		collect(g)
		if example == "" {
			example = fmt.Sprintf("%d events at %s ms permuted", len(g.as), t)
		}
	}
	if n == 0 {
		// Only ordinals differ, positions and payloads agree: ordinals were handed out in
		// another order among equal-time events.
		for _, t := range order {
			if len(groups[t].as) > 1 {
				collect(groups[t])
				return 1, "sequence numbers reassigned among " + strconv.Itoa(len(groups[t].as)) + " events at " + t + " ms", ordinals, true
			}
		}
		return 0, "", nil, false
	}
	return n, example, ordinals, true
}
