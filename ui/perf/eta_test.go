package perf

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"kvparity/engine"
	"kvparity/ui/theme"
)

// The estimate counts what the machine costs: on a host that invalidates every other pair,
// with a backoff after each invalidation, a process slot is 5 s although a process runs 2 s,
// and each remaining pair takes two attempts. The old estimate (2 s × the processes left)
// said a fifth of that; this one says the reruns it counts and counts down while a process
// runs.
func TestETACountsTheInvalidationRateAndItsReruns(t *testing.T) {
	m := New(theme.NewStyles(true, false), 10, 0, 1.05)
	m = apply(m, engine.StageStarted{Stage: engine.StagePerf}, engine.PerfSummary{Total: 10, MaxInvalidations: 10})
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	slot := 0
	start := func(pair int, arm engine.Arm) {
		id := engine.RunID(fmt.Sprintf("perf/pair-%03d-%s-%d", pair, arm, slot))
		m = apply(m, engine.RunStarted{Run: id, Arm: arm, Kind: engine.KindSample, Repetition: pair, At: t0.Add(time.Duration(slot) * 5 * time.Second)},
			engine.RunFinished{Run: id, Arm: arm, Kind: engine.KindSample, Elapsed: 2 * time.Second})
		slot++
	}
	for pair := 1; pair <= 4; pair++ {
		// One invalidated attempt, then the valid one.
		start(pair, engine.Baseline)
		start(pair, engine.Candidate)
		m = apply(m, engine.SampleInvalidated{Pair: pair, Attempt: 1, Reason: "competing load", Causes: []string{"competing load on CPU 1"}})
		start(pair, engine.Baseline)
		start(pair, engine.Candidate)
		m = apply(m, engine.PairDone{Pair: pair, Ratio: 1.0, Done: pair, Total: 10})
	}
	last := t0.Add(time.Duration(slot-1) * 5 * time.Second)
	m.SetNow(last)
	e, ok := m.eta()
	// 6 pairs left × 2 members × 2 attempts = 24 processes × 5 s, the newest just started.
	if !ok || e.left != 2*time.Minute || e.reruns != 6 || e.rate != 0.5 {
		t.Fatalf("estimate %+v (ok %v), want 2m00s with 6 reruns at 50%%", e, ok)
	}
	m.SetSize(110, 10)
	if s := strings.Join(strings.Fields(ansi.Strip(m.View())), " "); !strings.Contains(s, "≈ 2m00s left (≈ 6 reruns at 50% invalidated)") {
		t.Fatalf("view:\n%s", s)
	}
	// Three seconds into the newest process the estimate has counted down.
	m.SetNow(last.Add(3 * time.Second))
	if e, _ := m.eta(); e.left != 117*time.Second {
		t.Fatalf("after 3 s: %v, want 1m57s", e.left)
	}
	// A process slower than usual holds the estimate rather than letting it run out.
	m.SetNow(last.Add(time.Minute))
	if e, _ := m.eta(); e.left != 115*time.Second {
		t.Fatalf("after a minute in one process: %v, want 1m55s", e.left)
	}
	// A new stage run measures afresh.
	m = apply(m, engine.StageStarted{Stage: engine.StagePerf})
	if len(m.starts) != 0 {
		t.Fatalf("starts kept across stage runs: %d", len(m.starts))
	}
}
