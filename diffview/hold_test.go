package diffview

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	fx "kvparity/diffview/difftest"
)

// floodPair is a report pair whose /events array (n scalars, then objects with a nested list)
// differs everywhere, with per-request differences after it in document order.
func floodPair(n int) (a, b map[string]any) {
	a, b = fx.Flood(fx.Report(30, 5), "events", n+3, func(i int, inB bool) any {
		tokens := []any{fx.Int(1), fx.Int(2)}
		if inB {
			tokens = []any{fx.Int(2), fx.Int(1)}
		}
		if i < n { // a scalar: its first token
			return tokens[0]
		}
		return map[string]any{"at_ms": fx.Int(i), "tokens": tokens}
	})
	for i := 0; i < 30; i += 3 {
		fx.Shift(b, fmt.Sprintf("/per_request/%d/terminal_time_ms", i), 0.5)
	}
	return a, b
}

// isFlood says whether p is a scalar element of floodPair's /events.
func isFlood(p string) bool {
	rest, ok := strings.CutPrefix(p, "/events/")
	return ok && !strings.Contains(rest, "/")
}

// withMinHold diffs with a small hold bound, so a test-sized pair overflows it, and returns
// the bound the diff had.
func withMinHold(t *testing.T, hold int, a, b map[string]any) (*Diff, int) {
	t.Helper()
	old := minHold
	minHold = hold
	defer func() { minHold = old }()
	d := mustDiff(t, a, b)
	return d, holdFor(d.DocA, d.DocB)
}

// Issue 13 case 7: a diff held every differing pointer in detail, so two 10 MB reports whose
// 5,000,000 array elements all differ took 2.66 GB. Past the hold bound it holds a quota of
// each array (everything but the flood whole) and counts the rest, and whatever reads every
// pointer (the count, --json, field patterns, exception coverage) walks them again instead of
// reading a sample (the diagnosis, exception coverage and the headless report of a held diff:
// TestTheReadersOfAHeldDiff).
func TestDiffHoldsAQuotaOfEachArrayAndCountsEveryOne(t *testing.T) {
	const n = 20000
	a, b := floodPair(n)
	whole := mustDiff(t, a, b) // under the real bound: held whole
	if whole.Truncated() || whole.Count != len(whole.Changes) || whole.Count != n+3*2+10 {
		t.Fatalf("untruncated: count %d, held %d", whole.Count, len(whole.Changes))
	}
	d, hold := withMinHold(t, 100, a, b)
	if !d.Truncated() || d.Equal() || len(d.Changes) != hold || hold >= n/2 {
		t.Fatalf("truncated: count %d, held %d (bound %d)", d.Count, len(d.Changes), hold)
	}
	if d.Count != whole.Count {
		t.Fatalf("the counting walk counted %d, the full walk %d", d.Count, whole.Count)
	}
	// Every change outside the flooded array is held; the flood is held up to the quota.
	k, flood := 0, 0
	for _, c := range whole.Changes {
		if k < len(d.Changes) && d.Changes[k] == c {
			k++
			if isFlood(c.Pointer) {
				flood++
			}
			continue
		}
		if !isFlood(c.Pointer) {
			t.Fatalf("%s is not held", c.Pointer)
		}
	}
	if k != len(d.Changes) || flood != d.quota || flood != hold-16 {
		t.Fatalf("held %d of them in order (want %d), %d of the flood (quota %d)", k, len(d.Changes), flood, d.quota)
	}
	if d.First == nil || d.First.Pointer != whole.First.Pointer {
		t.Fatalf("first divergence %v, want %v", d.First, whole.First)
	}
	if got, want := d.Pointers(), whole.Pointers(); !slices.Equal(got, want) {
		t.Fatalf("AllPointers: %d pointers, want %d", len(got), len(want))
	}
	// A walk stopped early stops, and says which pointers are held.
	seen, heldSeen := 0, 0
	for p, at := range d.allPointers() {
		if at >= 0 && d.Changes[at].Pointer != p {
			t.Fatalf("%s said held as %d, which is %s", p, at, d.Changes[at].Pointer)
		}
		if at >= 0 {
			heldSeen++
		}
		if seen++; seen == n+1 {
			break
		}
	}
	if heldSeen != d.quota+1 { // the flood's quota, then /events/N/tokens/0
		t.Fatalf("the walk stopped after %d pointers had seen %d held", seen, heldSeen)
	}

	// Field patterns count every pointer; their held indexes are the held changes'.
	sum, held := 0, 0
	for _, p := range d.FieldPatterns() {
		sum += p.Count
		held += len(p.Changes)
	}
	if sum != d.Count || held != len(d.Changes) || d.FieldPatterns()[0].Pattern != "/events/*" || d.FieldPatterns()[0].Count != n {
		t.Fatalf("patterns: sum %d held %d %+v", sum, held, d.FieldPatterns()[0])
	}
}

// The hold bound scales with the inputs: a real pair (a differing pointer per 180 bytes or
// more) is always held whole.
func TestHoldBoundScalesWithTheInputs(t *testing.T) {
	small := &Doc{text: strings.Repeat("x", 1000)}
	if holdFor(small, small) != minHold {
		t.Fatalf("small inputs: %d", holdFor(small, small))
	}
	big := &Doc{text: strings.Repeat("x", 50<<20)}
	if got := holdFor(big, big); got != (100<<20)/holdBytes {
		t.Fatalf("100 MB of inputs: %d", got)
	}
}

// More arrays may differ than the bound holds changes (a flood one level deeper: 5,000,000
// one-element arrays): the quota is then 1 and the bound still holds.
func TestHoldBoundsManySmallArrays(t *testing.T) {
	a, b := fx.Flood(fx.Report(5, 0), "grid", 5000, func(_ int, inB bool) any {
		if inB {
			return []any{fx.Int(1)}
		}
		return []any{fx.Int(0)}
	})
	d, hold := withMinHold(t, 100, a, b)
	if d.Count != 5000 || !d.Truncated() || len(d.Changes) != hold || d.quota != 1 {
		t.Fatalf("count %d, held %d of a bound of %d, quota %d", d.Count, len(d.Changes), hold, d.quota)
	}
	if n := len(d.Pointers()); n != 5000 {
		t.Fatalf("AllPointers: %d", n)
	}
}

// Every later walk takes the first walk's alignments: go-diff stops at a deadline, and an
// alignment redone on a busier machine could differ. A walk that disagrees with the diff
// says so instead of yielding other pointers.
func TestLaterWalksReuseTheAlignments(t *testing.T) {
	a := fx.Report(5, 0)
	const n = 4000
	ea, eb := make([]any, n), make([]any, n+1)
	for i := range ea {
		ea[i] = fx.Int(i)
	}
	copy(eb, ea[:n/2])
	eb[n/2] = fx.Int(-1) // one inserted element
	copy(eb[n/2+1:], ea[n/2:])
	for i := 0; i < n; i += 2 {
		eb[i+1] = fx.Int(i + 10*n) // and, so the diff overflows a small bound, many changed
	}
	a["events"] = ea
	b := fx.Clone(a)
	b["events"] = eb
	d, _ := withMinHold(t, 20, a, b)
	if !d.Truncated() || len(d.aligned) != 1 {
		t.Fatalf("truncated %v, %d alignments kept", d.Truncated(), len(d.aligned))
	}
	if got := len(d.Pointers()); got != d.Count {
		t.Fatalf("AllPointers %d, Count %d", got, d.Count)
	}
	for k := range d.aligned { // what a timed-out alignment gives: delete all, insert all
		d.aligned[k] = []alignedRun{{del: n, ins: n + 1}}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "a second walk of A.jsonl and B.jsonl met") {
			t.Fatalf("a walk that disagrees with the diff: %v", r)
		}
	}()
	_ = d.Pointers()
}
