package diagnose

import (
	"fmt"
	"sort"
	"strings"

	"kvparity/diffview"
)

// ---- a placement that differs while the outcome does not ----

// detectPlacementTie finds requests placed on another worker whose every other value (times,
// lengths, reuse) is equal in both runs: the router chose among interchangeable workers, tied
// on cost, and broke the tie another way (a release build breaks ties at random). A renaming
// of the whole run is the relabel lens's; here the placements follow no one renaming, and no
// outcome moved. Identity fields and one version's extra fields do not count as outcomes.
func detectPlacementTie(d *Diff) *Signature {
	type tally struct {
		placed []int // the changes of its placement
		other  int
	}
	recs := map[int]*tally{}
	relabeled := d.renamings()
	var order []int
	for i := range d.Changes {
		c := &d.Changes[i]
		if c.IndexA < 0 || c.IndexB < 0 || !strings.HasPrefix(c.Pointer, "/per_request/") {
			continue
		}
		t := recs[c.IndexB]
		if t == nil {
			t = &tally{}
			recs[c.IndexB] = t
			order = append(order, c.IndexB)
		}
		k := diffview.LastSegment(c.Pointer)
		switch {
		case c.Kind == diffview.Changed && diffview.DecisionKey(c.Pointer) && !sameNumber(c.A, c.B) && !renamedPlacement(relabeled, k, c.A, c.B):
			t.placed = append(t.placed, i)
		case diffview.IDKeys[k] && strings.Count(c.Pointer, "/") == 3, d.SchemaPointer(c):
			// a renamed request, a field of one version only: not an outcome
		default:
			t.other++
		}
	}
	var placed []int
	reqs := 0
	var example string
	for _, j := range order {
		t := recs[j]
		if len(t.placed) == 0 || t.other > 0 {
			continue
		}
		reqs++
		placed = append(placed, t.placed...)
		if example == "" {
			for i := range d.Changes {
				if c := &d.Changes[i]; c.IndexB == j && diffview.DecisionKey(c.Pointer) {
					example = fmt.Sprintf("request %s %s %s → %s", c.Request, diffview.LastSegment(c.Pointer), c.A, c.B)
					break
				}
			}
		}
	}
	if len(placed) == 0 {
		return nil
	}
	ev := []string{
		fmt.Sprintf("%d request(s) were placed on another worker while every time, length and reuse of theirs is equal in both runs (e.g. %s)", reqs, example),
		"the candidates were interchangeable and tied on cost: the tie was broken another way (release builds break router ties at random), no outcome depends on it",
	}
	return &Signature{Code: SigTieOrder, Label: "placement tie among interchangeable workers (outcome equal)", Evidence: ev, Explains: len(placed), Changes: placed, placement: true}
}

// recordPlacements are the placements of every paired record (its prefill and decode worker,
// at its arrival) as decisions, for a run whose records hold no routing history (a release
// replay's): the renaming lens reads them as it reads routing decisions, so a whole run placed
// on the workers under other names is a renaming, not a cascade of flips. Computed once.
func (d *Diff) recordPlacements() []decision {
	if d.placementsSet {
		return d.placements
	}
	d.placementsSet = true
	a, b := d.DocA, d.DocB
	if len(a.Records) == 0 || len(b.Records) == 0 {
		return nil
	}
	pairedB := make(map[int]int, len(b.Records)) // B index → A index
	for i := range d.Changes {
		if c := &d.Changes[i]; c.IndexA >= 0 && c.IndexB >= 0 {
			pairedB[c.IndexB] = c.IndexA
		}
	}
	inA := make(map[string]int, len(a.UUIDs))
	for i, u := range a.UUIDs {
		inA[u] = i
	}
	var out []decision
	for j := range b.Records {
		i, ok := pairedB[j]
		if !ok {
			if i, ok = inA[b.UUIDs[j]]; !ok {
				continue // a record only B has
			}
		}
		at, okT := b.Field(j, "arrival_time_ms")
		t, okN := diffview.ParseNumber(at)
		if !okT || !okN {
			continue
		}
		for _, p := range [][2]string{{"prefill", "prefill_worker_idx"}, {"decode", "decode_worker_idx"}} {
			wa, okA := a.Field(i, p[1])
			wb, okB := b.Field(j, p[1])
			if !okA || !okB || wa == "null" || wb == "null" {
				continue
			}
			out = append(out, decision{req: b.UUIDs[j], pool: p[0], t: t, wa: wa, wb: wb, changed: wa != wb, ptrIndex: j, aIndex: i, arrival: true})
		}
	}
	sort.SliceStable(out, func(x, y int) bool { return out[x].t < out[y].t })
	d.placements = out
	return out
}
