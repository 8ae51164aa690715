package headless

import (
	"fmt"
	"io"
	"math"
	"strings"

	"kvparity/engine"
)

// writePerfText writes the detail of a performance result for people, below the stage table
// that already holds its verdict: the metric (marked when it is a proxy), the scope, the bounds,
// every diagnostic with its threshold and outcome, invalidations and caveats.
func writePerfText(w io.Writer, r *engine.PerfResult) {
	fmt.Fprintf(w, "    metric %s · %s · CPU %d · telemetry %s\n", r.Metric, r.Scope, r.MeasuredCPU, r.Telemetry)
	fmt.Fprintf(w, "    pairs %d · warmups %d · samples attempted %d · invalidated pair attempts %d\n",
		len(r.Pairs), r.Warmups, len(r.Samples), len(r.Invalidations))
	if a := r.Analysis; a != nil {
		b := a.Bounds
		fmt.Fprintf(w, "    median ratio %.4f · X(%d) = %.4f, X(%d) = %.4f (one-sided %.2f%% each) · threshold %.4g · K = %d\n",
			b.Median, b.MedianOrders.Lower, b.Lower, b.MedianOrders.Upper, b.Upper, 100*b.OneSidedCoverage, b.Threshold, b.K)
		for _, d := range a.Battery.Diagnostics {
			fmt.Fprintf(w, "    %-34s %10.4f  %-8s %s\n", d.Name, d.Statistic, d.Outcome, d.Rule)
		}
		if a.Battery.DriftComputable {
			fmt.Fprintf(w, "    Theil–Sen drift across the session: %+.4f in ln r (threshold margin ln %.4g = %.4f)\n",
				a.Battery.DriftPerSession, b.Threshold, math.Log(b.Threshold))
		}
		if bs := a.Bootstrap; bs != nil {
			fmt.Fprintf(w, "    bootstrap (secondary, never the verdict): median %.4f, %.0f%% [%.4f, %.4f] → %s; mean %.4f, 20%%-trimmed %.4f; block/iid width %.2f\n",
				bs.Median, 100*bs.Config.Confidence, bs.Lower, bs.Upper, bs.Verdict, bs.MeanRatio, bs.TrimmedMeanRatio, bs.BlockWidthRatio)
		}
	} else if r.Median > 0 {
		fmt.Fprintf(w, "    median ratio so far %.4f\n", r.Median)
	}
	for _, d := range r.TelemetryDiagnostics {
		fmt.Fprintf(w, "    %-34s %10.4f  %-8s %s\n", d.Name, d.Statistic, d.Outcome, d.Rule)
	}
	for _, inv := range r.Invalidations {
		fmt.Fprintf(w, "    invalidated pair %d attempt %d: %s\n", inv.Pair, inv.Attempt, inv.Reason)
	}
	for _, c := range r.Caveats {
		fmt.Fprintf(w, "    caveat: %s\n", c)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "    warning: %s\n", warn)
	}
}

// perfProgressLine is the headless progress line of a perf event ("" when the event has none):
// warmups, pairs done with the running median, invalidations.
func perfProgressLine(ev engine.Event) string {
	switch e := ev.(type) {
	case engine.SampleDone:
		if e.Warmup {
			return fmt.Sprintf("  warmup %d %-9s %.3f ms", e.Index, e.Arm, e.Ms)
		}
	case engine.PairDone:
		first := "BC"
		if !e.BaselineFirst {
			first = "CB"
		}
		return fmt.Sprintf("  pair %d/%d %s baseline %.3f ms candidate %.3f ms ratio %.4f", e.Done, e.Total, first, e.BaselineMs, e.CandidateMs, e.Ratio)
	case engine.SampleInvalidated:
		return fmt.Sprintf("  pair %d attempt %d invalidated (rerun in the same order): %s", e.Pair, e.Attempt, e.Reason)
	case engine.PerfSummary:
		metric := e.TimingField
		if e.TimingProxy {
			metric += " (PROXY)"
		}
		if e.Final {
			return "" // the stage verdict line says it
		}
		if e.Done == 0 {
			return fmt.Sprintf("perf: warmups %d/%d per arm done · %s", e.WarmupsDone, e.WarmupsTotal, metric)
		}
		if e.Done%10 != 0 && e.Done != e.Total {
			return "" // the pair lines carry the ratios; the running state every 10 pairs
		}
		var breached []string
		for _, d := range e.Diagnostics {
			if d.Breached {
				breached = append(breached, d.Name)
			}
		}
		diag := "diagnostics ok so far"
		if len(breached) > 0 {
			diag = "breached so far: " + strings.Join(breached, ", ")
		}
		return fmt.Sprintf("perf: pairs %d/%d · running median %.4f · %s · %s", e.Done, e.Total, e.Median, metric, diag)
	}
	return ""
}
