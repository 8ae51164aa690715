package perf

import (
	"fmt"
	"strings"

	"kvparity/engine"
	"kvparity/stats"
	"kvparity/verdict"
)

// finish analyses a complete series.
func (p *perfRun) finish(h *engine.History) *engine.PerfResult {
	row := p.c.Row()
	r := &engine.PerfResult{Key: p.key, Row: row.Name, TimingField: p.field, TimingProxy: p.proxy, Threshold: row.Perf.Threshold, MeasuredCPU: p.cpu,
		DependenceMethod: row.Perf.DependenceMethod}
	r.Fill(h, row.Perf.Pairs, row.Perf.WarmupsPerArm)
	ratios, order := h.PerfRatios(p.key, row.Perf.Pairs)
	cfg := stats.DefaultConfig(uint64(row.Perf.ScheduleSeed))
	cfg.Threshold = row.Perf.Threshold
	cfg.Dependence = row.Perf.DependenceMethod
	a, err := stats.Analyze(ratios, order, cfg)
	if err != nil {
		r.Verdict, r.Reason = verdict.Inconclusive, fmt.Sprintf("no order-statistic bound: %v", err)
	} else {
		r.Analysis = &a
		r.Verdict, r.Reason, r.DecidedBy = a.Verdict, a.Reason, a.DecidedBy
		r.Lower, r.Upper = a.Bounds.Lower, a.Bounds.Upper
		r.LowerOrder, r.UpperOrder = a.Bounds.MedianOrders.Lower, a.Bounds.MedianOrders.Upper
		r.Warnings = append(r.Warnings, a.Warnings...)
	}
	if r.Telemetry == "unavailable" {
		p.caveat("telemetry unavailable: no cpufreq, thermal_zone or thermal_throttle files under /sys, so frequency and thermal state were not checked; the dependence battery alone decides validity")
	} else {
		r.TelemetryDiagnostics = h.PerfTelemetryDiagnostics(p.key, row.Perf.Pairs)
		var bad []string
		for _, d := range r.TelemetryDiagnostics {
			if d.Breached() {
				bad = append(bad, fmt.Sprintf("%s = %.4g (%s)", d.Name, d.Statistic, d.Rule))
			}
		}
		if len(bad) > 0 && r.Verdict != verdict.Inconclusive {
			// Frequency confounding is not serial dependence: no predeclared method covers it.
			r.Reason = fmt.Sprintf("telemetry rules breached: %s; the gate is not applied (the bounds alone would say %s)", strings.Join(bad, "; "), r.Verdict)
			r.Verdict, r.DecidedBy = verdict.Inconclusive, stats.DecidedByNone
		}
	}
	r.Caveats = append([]string(nil), p.caveats...)
	return r
}
