package diffview

import (
	"fmt"
	"strings"
)

// ---- a placement that differs while the outcome does not ----

// detectPlacementTie finds requests placed on another worker whose every other value (times,
// lengths, reuse) is equal in both runs: the router chose among interchangeable workers, tied
// on cost, and broke the tie another way (a release build breaks ties at random). A renaming
// of the whole run is the relabel lens's; here the placements follow no one renaming, and no
// outcome moved. Identity fields and one version's extra fields do not count as outcomes.
func detectPlacementTie(d *Diff) *Signature {
	type tally struct{ placed, other int }
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
		k := lastSeg(c.Pointer)
		switch {
		case c.Kind == Changed && decisionKey(c.Pointer) && !sameNumber(c.A, c.B) && !renamedPlacement(relabeled, k, c.A, c.B):
			t.placed++
		case idKeys[k] && strings.Count(c.Pointer, "/") == 3, d.schemaPointer(c):
			// a renamed request, a field of one version only: not an outcome
		default:
			t.other++
		}
	}
	n, reqs := 0, 0
	var example string
	for _, j := range order {
		t := recs[j]
		if t.placed == 0 || t.other > 0 {
			continue
		}
		reqs++
		n += t.placed
		if example == "" {
			for i := range d.Changes {
				if c := &d.Changes[i]; c.IndexB == j && decisionKey(c.Pointer) {
					example = fmt.Sprintf("request %s %s %s → %s", c.Request, lastSeg(c.Pointer), c.A, c.B)
					break
				}
			}
		}
	}
	if n == 0 {
		return nil
	}
	ev := []string{
		fmt.Sprintf("%d request(s) were placed on another worker while every time, length and reuse of theirs is equal in both runs (e.g. %s)", reqs, example),
		"the candidates were interchangeable and tied on cost: the tie was broken another way (release builds break router ties at random), no outcome depends on it",
	}
	return &Signature{Code: SigTieOrder, Label: "placement tie among interchangeable workers (outcome equal)", Evidence: ev, Explains: n, placement: true}
}
