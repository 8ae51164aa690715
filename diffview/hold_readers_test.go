package diffview_test

import (
	"fmt"
	"strings"
	"testing"

	"kvparity/diffview"
	"kvparity/diffview/diagnose"
	"kvparity/exceptions"
	"kvparity/verdict"
)

// What reads a held diff (TestDiffHoldsAQuotaOfEachArrayAndCountsEveryOne) beside the diff
// itself: the diagnosis reads the held changes and says so; exception coverage, the JSON
// pointers and the headless report read every pointer.
func TestTheReadersOfAHeldDiff(t *testing.T) {
	const n = 20000
	a, b := diffview.FloodPair(n)
	whole := diagnose.Of(diffview.MustDiff(t, a, b)) // under the real bound: held whole
	held, hold := diffview.WithMinHold(t, 100, a, b)
	d := diagnose.Of(held)
	if s := d.Diagnosis[0]; !s.Held || s.Of != hold || !strings.HasSuffix(s.String(), fmt.Sprintf("/%d held)", hold)) || whole.Diagnosis[0].Held {
		t.Fatalf("the diagnosis should say it read the held changes: %s", s)
	}

	// Exception coverage reads every pointer, held or not.
	rec := func(id string, ps ...string) exceptions.ExceptionRecord {
		return exceptions.ExceptionRecord{ID: id, Differs: "x", Pointers: ps, Baseline: "x", Candidate: "x", Cause: "x", RegressionTest: "x", Impact: "x", Disposition: "x"}
	}
	tail := rec("tail", "/per_request/*/terminal_time_ms", "/events/*/tokens/*")
	x := exceptions.Coverage(d.AllPointers(), []exceptions.ExceptionRecord{tail})
	if x.Differing != whole.Count || x.Uncovered != n {
		t.Fatalf("coverage: %d differing, %d uncovered", x.Differing, x.Uncovered)
	}
	if v, _ := exceptions.SemanticVerdict(d.Diff, []exceptions.ExceptionRecord{tail, rec("scalars", "/events/*")}, false); v != verdict.PassWithSemanticExceptions {
		t.Fatalf("records covering every pointer, most of them unheld: %s", v)
	}
	if v, x := exceptions.SemanticVerdict(d.Diff, []exceptions.ExceptionRecord{rec("scalars", "/events/*")}, false); v != verdict.Fail || x.Uncovered != 16 {
		t.Fatalf("the unheld per-request pointers are uncovered: %s %d", v, x.Uncovered)
	}
	if x := exceptions.Coverage(d.AllPointers(), nil); x.Uncovered != d.Count || len(x.First) != exceptions.FirstUncovered || x.First[0] != "/events/0" {
		t.Fatalf("every pointer is counted uncovered, the first %d listed: %d, %d listed", exceptions.FirstUncovered, x.Uncovered, len(x.First))
	}

	r := d.Report()
	if r.Count != d.Count || r.Held != hold || len(r.Pointers) != d.Count || whole.Report().Held != 0 {
		t.Fatalf("JSON: count %d held %d pointers %d", r.Count, r.Held, len(r.Pointers))
	}
	var sb strings.Builder
	if err := diagnose.WriteText(&sb, d, 3); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{fmt.Sprintf("%d differing pointer(s), %d of them held in detail, in %d group(s)", d.Count, hold, len(d.Groups)),
		fmt.Sprintf("note: %d differing pointers: the diff holds %d in detail (one per 64 input bytes, at least 100), at most %d in any one array", d.Count, hold, d.Quota())} {
		if !strings.Contains(sb.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, sb.String())
		}
	}
}
