package campaignreport

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"kvparity/engine"
	"kvparity/stats"
)

// driftingRatios are 60 A/A ratios whose log follows an AR(1) with φ = 0.9: the battery
// breaches through serial dependence only.
func driftingRatios() []float64 {
	rng := rand.New(rand.NewPCG(29, 29))
	r := make([]float64, 60)
	x := 0.0
	for i := range r {
		x = 0.9*x + 0.3*rng.NormFloat64()
		r[i] = math.Exp(0.01 * x)
	}
	return r
}

func TestReportSaysWhichRuleDecided(t *testing.T) {
	sched, _ := stats.BalancedSchedule(20261129, 60)
	cfg := stats.DefaultConfig(20261129)
	cfg.Bootstrap.Resamples = 0
	section := func(method stats.DependenceMethod, ratios []float64) string {
		cfg.Dependence = method
		a, err := stats.Analyze(ratios, sched.Pairs, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var m md
		m.dependenceMethod(&engine.PerfResult{Analysis: &a, DependenceMethod: method})
		return m.b.String()
	}
	got := section(stats.MethodBlockMedians, driftingRatios())
	for _, want := range []string{"decided by the predeclared dependence-aware method (`dependence_method = \"block-medians\"`): PASS by the block-median bounds [",
		"the order-statistic gate was not applied because the battery breached", "Politis–White", "block medians in execution order: "} {
		if !strings.Contains(got, want) {
			t.Fatalf("block medians: lacks %q:\n%s", want, got)
		}
	}
	if got := section(stats.MethodInconclusive, driftingRatios()); !strings.Contains(got, "not decided: the battery breached and the row predeclares the protocol's literal rule") {
		t.Fatalf("literal rule:\n%s", got)
	}
	iid := make([]float64, 60)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range iid {
		iid[i] = math.Exp(0.02 * rng.NormFloat64())
	}
	if got := section(stats.MethodBlockMedians, iid); !strings.Contains(got, "decided by the order statistics X(24)/X(37): the battery held") {
		t.Fatalf("valid battery:\n%s", got)
	}
	// A result recorded before the rule was: nothing is said.
	var m md
	m.dependenceMethod(&engine.PerfResult{Analysis: &stats.Analysis{}})
	if m.b.Len() != 0 {
		t.Fatalf("old result: %q", m.b.String())
	}
}
