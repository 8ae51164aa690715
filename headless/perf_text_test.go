package headless

import (
	"bytes"
	"strings"
	"testing"

	"kvparity/engine"
	"kvparity/stats"
)

func TestPerfProgressLine(t *testing.T) {
	cases := []struct {
		ev   engine.Event
		want string
	}{
		{engine.SampleDone{Run: "perf/warmup-02-candidate", Arm: engine.Candidate, Warmup: true, Index: 2, Ms: 812.25}, "warmup 2 candidate 812.250 ms"},
		{engine.SampleDone{Run: "perf/pair-001-candidate", Arm: engine.Candidate, Index: 1, Ms: 800}, ""},
		{engine.PairDone{Pair: 7, Done: 7, Total: 60, BaselineFirst: false, BaselineMs: 800, CandidateMs: 840, Ratio: 1.05}, "pair 7/60 CB baseline 800.000 ms candidate 840.000 ms ratio 1.0500"},
		{engine.SampleInvalidated{Pair: 3, Attempt: 1, Reason: "competing load"}, "pair 3 attempt 1 invalidated (rerun in the same order): competing load"},
		{engine.PerfSummary{Done: 0, Total: 60, WarmupsDone: 5, WarmupsTotal: 5, TimingField: "replay_call_ms", TimingProxy: true}, "perf: warmups 5/5 per arm done · replay_call_ms (PROXY)"},
		{engine.PerfSummary{Done: 7, Total: 60, Median: 1.01}, ""},
		{engine.PerfSummary{Done: 20, Total: 60, Median: 1.0123, TimingField: "replay_execution_ms",
			Diagnostics: []engine.Diagnostic{{Name: "lag-1 autocorrelation", Breached: true}}}, "perf: pairs 20/60 · running median 1.0123 · replay_execution_ms · breached so far: lag-1 autocorrelation"},
		{engine.PerfSummary{Final: true, Verdict: "PASS"}, ""},
		{engine.RunStarted{}, ""},
	}
	for _, c := range cases {
		if got := perfProgressLine(c.ev); !strings.Contains(got, c.want) || (c.want == "" && got != "") {
			t.Errorf("%T: %q, want %q", c.ev, got, c.want)
		}
	}
}

func TestWritePerfText(t *testing.T) {
	ratios := make([]float64, 20)
	order := make([]stats.Order, 20)
	for i := range ratios {
		ratios[i] = 1.30 + float64((i*7)%20)/1000
		order[i] = stats.BaselineFirst
		if i%2 == 1 {
			order[i] = stats.CandidateFirst
		}
	}
	a, err := stats.Analyze(ratios, order, stats.DefaultConfig(1))
	if err != nil {
		t.Fatal(err)
	}
	r := &engine.PerfResult{Metric: "replay_call_ms (PROXY for replay_execution_ms)", Scope: "seeded matched-routing replay-loop parity (all 40 timed samples' work fingerprints equal their arm's canonical run), not production-routing performance", Telemetry: "unavailable", Analysis: &a,
		Invalidations: []engine.PerfInvalidation{{Pair: 4, Attempt: 1, Reason: "affinity violation: thread 12"}},
		Caveats:       []string{"only CPU 0 is usable"}}
	var b bytes.Buffer
	writePerfText(&b, r)
	out := b.String()
	for _, want := range []string{"metric replay_call_ms (PROXY for replay_execution_ms)", "X(6) = ", "X(15) = ",
		"lag-1 autocorrelation", "Ljung–Box Q(5)", "Mann–Kendall trend", "runs about the median", "order effect",
		"bootstrap (secondary, never the verdict)", "invalidated pair 4 attempt 1: affinity violation", "caveat: only CPU 0 is usable"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}
