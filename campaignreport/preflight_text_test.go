package campaignreport

import (
	"testing"

	"kvparity/engine"
)

// The preflight in words: what the probe decided, then the figures it decided from (the words
// engine's Preflight.Summary wrote before they moved here, byte for byte).
func TestPreflightText(t *testing.T) {
	figures := engine.Preflight{Arm: engine.Baseline, CPUs: []int{0, 1, 2, 3}, Threads: 9, BusyThreads: 1, MainShare: 0.97,
		CPUMs: 812, WallMs: 800, Parallelism: 1.015, VoluntarySwitches: 40, InvoluntarySwitches: 3, SingleCore: true, CPUsPerRun: 1}
	tail := " (CPU 812 ms over 800 ms wall: 1.01 CPUs busy with CPUs 0-3 allowed; 9 threads, 1 busy, the busiest 97% of the CPU time; 40 voluntary, 3 involuntary context switches)"
	multi := figures
	multi.SingleCore, multi.CPUsPerRun = false, 3
	short := figures
	short.CPUMs, short.Parallelism = 20, 2.5
	failed := figures
	failed.Error = "exit status 1"
	for _, c := range []struct {
		p    engine.Preflight
		want string
	}{
		{figures, "effectively single-core" + tail},
		{multi, "uses more than one core: both arms' repetitions get 3 CPUs each" + tail},
		{short, "taken as single-core: the probe ran 20 ms of CPU, too short to judge (CPU 20 ms over 800 ms wall: 2.50 CPUs busy with CPUs 0-3 allowed; 9 threads, 1 busy, the busiest 97% of the CPU time; 40 voluntary, 3 involuntary context switches)"},
		{failed, "preflight probe failed: exit status 1"},
	} {
		if got := PreflightText(c.p); got != c.want {
			t.Errorf("PreflightText(%+v)\n got %q\nwant %q", c.p, got, c.want)
		}
	}
}
