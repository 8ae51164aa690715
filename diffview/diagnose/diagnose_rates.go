package diagnose

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"kvparity/diffview"
	"kvparity/internal/jsonscan"
)

// ---- wall-clock durations and rates outside the canonical layout ----

// detectWallRates recognises a wall-clock run duration, and the rates taken over it, in any
// run-level object but the canonical /summary (whose named fields wallThroughputs reads), by
// how the values behave rather than by their names: a rate is a count of the same object
// over a duration of it (rate × duration = count, per millisecond or second, in both runs),
// and a duration that moved by far more than the run's virtual span (its latest request
// time), or, without requests, by far more than every other number of the object, was read
// off the wall clock. Its rates moved with it.
func detectWallRates(d *Diff) *Signature {
	byObject := map[string][]int{}
	for i := range d.Changes {
		c := &d.Changes[i]
		k := strings.LastIndexByte(c.Pointer, '/')
		if k < 0 {
			continue
		}
		holder := c.Pointer[:k] // "" for a member of the root
		if strings.HasPrefix(c.Pointer, "/per_request/") || holder == "/summary" || strings.HasPrefix(c.Pointer, "/metadata/") {
			continue
		}
		if _, _, _, inArray := diffview.ElementPrefix(c.Pointer); inArray {
			continue
		}
		if _, ok := numericDelta(c); ok {
			byObject[holder] = append(byObject[holder], i)
		}
	}
	span := virtualSpanMove(d)
	explained := map[int]bool{}
	var ev []string
	for _, holder := range sortedKeys(byObject) {
		idx := byObject[holder]
		nums := [2]map[string]float64{objectNumbers(d.DocA, d.SideA(&d.Changes[idx[0]], holder)), objectNumbers(d.DocB, holder)}
		if nums[0] == nil || nums[1] == nil {
			continue
		}
		rates := map[int][]int{} // duration change → the rate changes taken over it
		for _, di := range idx {
			for _, ri := range idx {
				if ri != di && rateOver(nums, diffview.LastSegment(d.Changes[ri].Pointer), diffview.LastSegment(d.Changes[di].Pointer)) {
					rates[di] = append(rates[di], ri)
				}
			}
		}
		for _, di := range sortedInts(rates) {
			c := &d.Changes[di]
			moved := relMove(c)
			ref := span
			if math.IsNaN(ref) {
				ref = otherMoves(d, idx, di, rates[di])
			}
			if math.IsNaN(ref) || moved < 0.05 || moved < 10*ref {
				continue // a virtual duration moves with the run
			}
			explained[di] = true
			var names []string
			for _, ri := range rates[di] {
				explained[ri] = true
				names = append(names, diffview.LastSegment(d.Changes[ri].Pointer))
			}
			ev = append(ev, fmt.Sprintf("%s %s → %s moved %.0f%% while the run's virtual span moved %.2g%%; %s are counts over it (rate × duration = a count of %s in both runs): a wall-clock duration and its rates",
				c.Pointer, c.A, c.B, 100*moved, 100*ref, strings.Join(names, ", "), diffview.DisplayPointer(holder)))
		}
	}
	if len(explained) == 0 {
		return nil
	}
	return &Signature{Code: SigWallClock, Label: "wall-clock leakage (a run duration and its rates measured on the wall clock)", Evidence: ev, Explains: len(explained), Changes: sortedInts(explained)}
}

// objectNumbers is the numeric members of the object at ptr.
func objectNumbers(dd *diffview.Doc, ptr string) map[string]float64 {
	v, ok := dd.Value(ptr)
	if !ok || dd.Kind(v) != jsonscan.Object {
		return nil
	}
	m := map[string]float64{}
	for k, x := range dd.Scanner.Members(v) {
		if dd.Kind(x) == jsonscan.Number {
			if f, ok := diffview.ParseNumber(dd.Raw(x)); ok {
				m[dd.Str(k)] = f
			}
		}
	}
	return m
}

// rateOver says rate r is a count of the object over duration dur in both runs (per second of
// a millisecond duration, or per unit of its own): one member c with r × dur = c on both sides.
func rateOver(nums [2]map[string]float64, r, dur string) bool {
	for _, scale := range []float64{1e-3, 1} {
		counts := map[string]int{}
		for _, m := range nums {
			if m[r] <= 0 || m[dur] <= 0 {
				return false
			}
			x := m[r] * m[dur] * scale
			for k, c := range m {
				if k != r && k != dur && math.Abs(c-x) <= 1e-9*c {
					counts[k]++
				}
			}
		}
		for _, n := range counts {
			if n == 2 {
				return true
			}
		}
	}
	return false
}

// relMove is |B − A| / |A| of a changed number.
func relMove(c *diffview.Change) float64 {
	a, _ := diffview.ParseNumber(c.A)
	b, _ := diffview.ParseNumber(c.B)
	if a == 0 {
		return math.Inf(1)
	}
	return math.Abs(b-a) / math.Abs(a)
}

// virtualSpanMove is how far the run's latest request instant moved, relatively (NaN
// without requests on both sides).
func virtualSpanMove(d *Diff) float64 {
	latest := func(dd *diffview.Doc) (float64, bool) {
		if t, ok := maxTerminal(dd); ok {
			return t, true
		}
		best, found := 0.0, false
		for i := range dd.Records {
			if v, ok := dd.Field(i, "last_token_ms"); ok {
				if x, ok := diffview.ParseNumber(v); ok && (!found || x > best) {
					best, found = x, true
				}
			}
		}
		return best, found
	}
	a, okA := latest(d.DocA)
	b, okB := latest(d.DocB)
	if !okA || !okB || a <= 0 {
		return math.NaN()
	}
	return math.Abs(b-a) / a
}

// otherMoves is the largest relative move of the object's other changed numbers (NaN when
// there is none to compare with).
func otherMoves(d *Diff, idx []int, dur int, rates []int) float64 {
	skip := map[int]bool{dur: true}
	for _, r := range rates {
		skip[r] = true
	}
	best := math.NaN()
	for _, i := range idx {
		if !skip[i] {
			if m := relMove(&d.Changes[i]); math.IsNaN(best) || m > best {
				best = m
			}
		}
	}
	if math.IsNaN(best) {
		return 0 // only the duration and its rates moved: nothing else of the run did
	}
	return best
}

func sortedInts[V any](m map[int]V) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}
