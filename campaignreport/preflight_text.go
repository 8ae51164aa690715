package campaignreport

import (
	"fmt"
	"strings"

	"kvparity/engine"
	"kvparity/engine/run"
)

// PreflightText is one arm's preflight for people, without the arm (each surface names the arm
// its own way): what the probe decided about the replay's cores, the measure that decided it
// (which statistic, its value, the threshold), and the figures it decided from. The report,
// the headless summary and the workbench's note all say it this way; the same figures always
// give the same words.
func PreflightText(p engine.Preflight) string {
	if p.Error != "" {
		return "preflight probe failed: " + p.Error
	}
	var because []string
	for _, m := range p.Decisive() {
		because = append(because, measureText(m))
	}
	what := "effectively single-core: " + strings.Join(because, " and ")
	switch {
	case p.TooShortToJudge():
		what = "taken as single-core, too short to judge: " + because[0]
	case !p.SingleCore:
		what = fmt.Sprintf("uses more than one core: %s, so both arms' repetitions get %d CPUs each", strings.Join(because, " and "), p.CPUsPerRun)
	}
	return fmt.Sprintf("%s (CPU %.0f ms over %.0f ms wall, with CPUs %s allowed: CPU time over wall time %.2f, CPU demand %.2f; %d threads, %d busy, the busiest %.0f%% of the CPU time; %d voluntary, %d involuntary context switches)",
		what, p.CPUMs, p.WallMs, run.FormatCPUList(p.CPUs), p.Parallelism, p.Demand, p.Threads, p.BusyThreads, 100*p.MainShare, p.VoluntarySwitches, p.InvoluntarySwitches)
}

// measureText is one deciding measure: the statistic in words, its value, the comparison and
// the threshold ("CPU demand 1.90 > 1.60").
func measureText(m engine.PreflightMeasure) string {
	cmp := "≤"
	if m.Above {
		cmp = ">"
	}
	switch m.Field {
	case "cpu_ms":
		return fmt.Sprintf("the probe ran %.0f ms of CPU, under the %.0f ms a judgement needs", m.Value, m.Threshold)
	case "cpu_demand":
		return fmt.Sprintf("CPU demand (threads running or waiting to run, over wall time) %.2f %s %.2f", m.Value, cmp, m.Threshold)
	case "parallelism":
		return fmt.Sprintf("CPU time over wall time %.2f %s %.2f", m.Value, cmp, m.Threshold)
	}
	return fmt.Sprintf("%s %.2f %s %.2f", m.Field, m.Value, cmp, m.Threshold)
}
