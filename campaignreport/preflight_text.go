package campaignreport

import (
	"fmt"

	"kvparity/engine"
	"kvparity/engine/run"
)

// PreflightText is one arm's preflight for people, without the arm (each surface names the arm
// its own way): what the probe decided about the replay's cores, and the figures it decided
// from. The report, the headless summary and the workbench's note all say it this way.
func PreflightText(p engine.Preflight) string {
	if p.Error != "" {
		return "preflight probe failed: " + p.Error
	}
	what := "effectively single-core"
	if p.TooShortToJudge() {
		what = fmt.Sprintf("taken as single-core: the probe ran %.0f ms of CPU, too short to judge", p.CPUMs)
	}
	if !p.SingleCore {
		what = fmt.Sprintf("uses more than one core: both arms' repetitions get %d CPUs each", p.CPUsPerRun)
	}
	return fmt.Sprintf("%s (CPU %.0f ms over %.0f ms wall: %.2f CPUs busy with CPUs %s allowed; %d threads, %d busy, the busiest %.0f%% of the CPU time; %d voluntary, %d involuntary context switches)",
		what, p.CPUMs, p.WallMs, p.Parallelism, run.FormatCPUList(p.CPUs), p.Threads, p.BusyThreads, 100*p.MainShare, p.VoluntarySwitches, p.InvoluntarySwitches)
}
