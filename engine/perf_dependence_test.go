package engine

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"kvparity/stats"
	"kvparity/verdict"
)

func TestRowDependenceMethodKey(t *testing.T) {
	r, err := ParseRow([]byte(designRow), "row.toml")
	if err != nil {
		t.Fatal(err)
	}
	if r.Perf.DependenceMethod != stats.MethodInconclusive {
		t.Fatalf("left out: %q, want the protocol's literal rule (a row frozen before the key keeps it)", r.Perf.DependenceMethod)
	}
	declared := strings.Replace(designRow, `timing_field = "replay_execution_ms"`, "timing_field = \"replay_execution_ms\"\ndependence_method = \"block-medians\"", 1)
	if r, err = ParseRow([]byte(declared), "row.toml"); err != nil || r.Perf.DependenceMethod != stats.MethodBlockMedians {
		t.Fatalf("declared: %v %v", r, err)
	}
	// The frozen row records it, and reads back the same.
	frozen, err := r.Encode()
	if err != nil || !strings.Contains(string(frozen), `dependence_method = "block-medians"`) {
		t.Fatalf("frozen row lacks the method: %v\n%s", err, frozen)
	}
	if back, err := ParseRow(frozen, "row.toml"); err != nil || back.Perf.DependenceMethod != stats.MethodBlockMedians {
		t.Fatalf("frozen row reads back %v %v", back, err)
	}
	for _, bad := range []string{`"bootstrap"`, `""`, `"Block-Medians"`} {
		text := strings.Replace(declared, `"block-medians"`, bad, 1)
		_, err := ParseRow([]byte(text), "row.toml")
		if err == nil || !strings.HasPrefix(err.Error(), "row.toml: [perf] dependence_method: ") || !strings.Contains(err.Error(), "is not a dependence method") {
			t.Errorf("%s: err = %v, want one naming [perf] dependence_method", bad, err)
		}
	}
	if _, err := ParseRow([]byte(strings.Replace(declared, `"block-medians"`, "3", 1)), "row.toml"); err == nil {
		t.Error("a number accepted as the method")
	}
	// New rows declare the method the study chose.
	if m := DefaultRow().Perf.DependenceMethod; m != stats.MethodBlockMedians {
		t.Fatalf("default row: %q", m)
	}
	ex, err := ParseRow([]byte(ExampleRowTOML), "init-row")
	if err != nil || ex.Perf.DependenceMethod != stats.MethodBlockMedians {
		t.Fatalf("init-row's example: %v %v", ex, err)
	}
}

// dependentSeries is a perf series of 60 pairs whose log ratios follow an AR(1) with φ = 0.9
// around median: consecutive pairs drift together, as on a shared VM.
func dependentSeries(median float64) *perfSeries {
	sched, _ := stats.BalancedSchedule(20261129, 60)
	s := newPerfSeries("b1-c1")
	s.schedule = &sched
	rng := rand.New(rand.NewPCG(29, 29))
	x := 0.0
	for i := 1; i <= 60; i++ {
		x = 0.9*x + 0.3*rng.NormFloat64()
		r := median * math.Exp(0.01*x)
		s.pairs[i] = &PerfPair{Key: s.key, Pair: i, Attempt: 1, Order: sched.Pairs[i-1], BaselineMs: 100, CandidateMs: 100 * r, Ratio: r}
	}
	return s
}

func finishDependent(t *testing.T, method stats.DependenceMethod, median float64) (*PerfResult, PerfSummary) {
	t.Helper()
	row := DefaultRow()
	row.Perf.DependenceMethod = method
	p := &perfRun{c: (&Campaign{row: row}).Host(), key: "b1-c1", field: defaultTimingField}
	h := NewHistory(row)
	h.series["b1-c1"] = dependentSeries(median)
	r := p.finish(h)
	if r.Analysis == nil || r.Analysis.Battery.Valid {
		t.Fatalf("the series should breach the battery: %+v", r.Analysis)
	}
	return r, finalSummary(r, row)
}

func TestPerfResultDependenceAwareDecision(t *testing.T) {
	r, sum := finishDependent(t, stats.MethodBlockMedians, 1.00)
	if r.Verdict != verdict.Pass || r.DecidedBy != stats.DecidedByBlockMedians || r.DependenceMethod != stats.MethodBlockMedians {
		t.Fatalf("A/A under drift: %s by %s (%s)", r.Verdict, r.DecidedBy, r.Reason)
	}
	if !strings.HasPrefix(r.Reason, "PASS by the dependence-aware bound") || !strings.Contains(r.Reason, "the order-statistic gate was not applied because") {
		t.Fatalf("reason %q", r.Reason)
	}
	d := r.Analysis.Dependent
	if sum.DecidedBy != "block-medians" || sum.DecidedUpper != d.Upper || sum.DecidedLower != d.Lower || !strings.Contains(sum.DecidedBasis, "block medians") {
		t.Fatalf("summary %+v", sum)
	}
	// Lower/Upper stay the order statistics the gate did not apply.
	if r.LowerOrder != 24 || r.UpperOrder != 37 {
		t.Fatalf("order-statistic orders %d/%d", r.LowerOrder, r.UpperOrder)
	}

	r, _ = finishDependent(t, stats.MethodBlockMedians, 1.25)
	if r.Verdict != verdict.Fail || r.DecidedBy != stats.DecidedByBlockMedians || !strings.HasPrefix(r.Reason, "FAIL by the dependence-aware bound") {
		t.Fatalf("slowdown under drift: %s by %s (%s)", r.Verdict, r.DecidedBy, r.Reason)
	}

	r, sum = finishDependent(t, stats.MethodInconclusive, 1.00)
	if r.Verdict != verdict.Inconclusive || r.DecidedBy != stats.DecidedByNone || r.Analysis.Dependent != nil || sum.DecidedBy != "none" || sum.DecidedUpper != 0 {
		t.Fatalf("literal rule: %s by %s (%s)", r.Verdict, r.DecidedBy, r.Reason)
	}
}
