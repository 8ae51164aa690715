package perf

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"kvparity/engine"
	"kvparity/engine/instrument"
	"kvparity/stats"
	"kvparity/verdict"
)

// dependentSeries is a perf series of 60 pairs whose log ratios follow an AR(1) with φ = 0.9
// around median: consecutive pairs drift together, as on a shared VM. It is the History of
// their records.
func dependentSeries(row *engine.Row, median float64) *engine.History {
	sched, _ := stats.BalancedSchedule(20261129, 60)
	h := engine.NewHistory(row)
	h.Add(engine.Record{Type: engine.RecPerfSchedule, Data: engine.MarshalData(engine.PerfScheduleData{Key: "b1-c1", Schedule: sched})})
	rng := rand.New(rand.NewPCG(29, 29))
	x := 0.0
	for i := 1; i <= 60; i++ {
		x = 0.9*x + 0.3*rng.NormFloat64()
		r := median * math.Exp(0.01*x)
		pair := engine.PerfPair{Key: "b1-c1", Pair: i, Attempt: 1, Order: sched.Pairs[i-1], BaselineMs: 100, CandidateMs: 100 * r, Ratio: r}
		h.Add(engine.Record{Type: engine.RecPerfPair, Index: i, Attempt: 1, Data: engine.MarshalData(pair)})
	}
	return h
}

// rowHost is a host that only has a row: what finish asks of its host.
type rowHost struct {
	engine.StageHost
	row *engine.Row
}

func (h rowHost) Row() *engine.Row { return h.row }

func finishDependent(t *testing.T, method stats.DependenceMethod, median float64) (*engine.PerfResult, engine.PerfSummary) {
	t.Helper()
	row := engine.DefaultRow()
	row.Perf.DependenceMethod = method
	p := &perfRun{c: rowHost{row: row}, key: "b1-c1", field: instrument.DefaultTimingField}
	r := p.finish(dependentSeries(row, median))
	if r.Analysis == nil || r.Analysis.Battery.Valid {
		t.Fatalf("the series should breach the battery: %+v", r.Analysis)
	}
	return r, engine.FinalSummary(r, row)
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
