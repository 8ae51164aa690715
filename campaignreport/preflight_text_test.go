package campaignreport

import (
	"fmt"
	"strings"
	"testing"

	"kvparity/engine"
)

// The preflight in words: what the probe decided, the measure that decided it (statistic,
// value, threshold), then the figures it decided from. The same figures always give the same
// words: a parallelism of 0.39 never reads "more than one core" unless the measure that says so
// (the CPU demand) is printed beside it.
func TestPreflightText(t *testing.T) {
	figures := engine.Preflight{Arm: engine.Baseline, CPUs: []int{0, 1, 2, 3}, Threads: 9, BusyThreads: 1, MainShare: 0.97,
		CPUMs: 812, WallMs: 800, Parallelism: 1.015, Demand: 1.2, VoluntarySwitches: 40, InvoluntarySwitches: 3, SingleCore: true, CPUsPerRun: 1}
	tail := func(p engine.Preflight) string {
		return fmt.Sprintf(" (CPU %.0f ms over 800 ms wall, with CPUs 0-3 allowed: CPU time over wall time %.2f, CPU demand %.2f; 9 threads, 1 busy, the busiest 97%% of the CPU time; 40 voluntary, 3 involuntary context switches)", p.CPUMs, p.Parallelism, p.Demand)
	}
	// Multi-core on its CPU demand alone (waiting for CPUs other work held): 0.39 CPUs' time.
	waiting := figures
	waiting.Parallelism, waiting.Demand, waiting.CPUMs = 0.39, 1.9, 312
	waiting.SingleCore, waiting.CPUsPerRun = false, 2
	busy := figures
	busy.Parallelism, busy.Demand, busy.CPUMs = 2.9, 3.1, 2320
	busy.SingleCore, busy.CPUsPerRun = false, 3
	short := figures
	short.CPUMs, short.Parallelism = 20, 2.5
	failed := figures
	failed.Error = "exit status 1"
	for _, c := range []struct {
		p    engine.Preflight
		want string
	}{
		{figures, "effectively single-core: CPU time over wall time 1.01 ≤ 1.50 and CPU demand (threads running or waiting to run, over wall time) 1.20 ≤ 1.60" + tail(figures)},
		{waiting, "uses more than one core: CPU demand (threads running or waiting to run, over wall time) 1.90 > 1.60, so both arms' repetitions get 2 CPUs each" + tail(waiting)},
		{busy, "uses more than one core: CPU time over wall time 2.90 > 1.50 and CPU demand (threads running or waiting to run, over wall time) 3.10 > 1.60, so both arms' repetitions get 3 CPUs each" + tail(busy)},
		{short, "taken as single-core, too short to judge: the probe ran 20 ms of CPU, under the 50 ms a judgement needs" + tail(short)},
		{failed, "preflight probe failed: exit status 1"},
	} {
		if got := PreflightText(c.p); got != c.want {
			t.Errorf("PreflightText(%+v)\n got %q\nwant %q", c.p, got, c.want)
		}
	}
	// The same parallelism reads the same way for both arms unless another measure decided.
	a, b := figures, figures
	a.Parallelism, b.Parallelism = 0.88, 0.88
	b.Demand, b.SingleCore, b.CPUsPerRun = 1.7, false, 2
	if ta, tb := PreflightText(a), PreflightText(b); !strings.Contains(ta, "CPU time over wall time 0.88 ≤ 1.50") || !strings.Contains(tb, "CPU demand (threads running or waiting to run, over wall time) 1.70 > 1.60") {
		t.Errorf("0.88 for both arms, one multi-core on its demand:\n%s\n%s", ta, tb)
	}
}
