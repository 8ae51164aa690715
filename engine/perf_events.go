package engine

import (
	"slices"
	"strings"

	"kvparity/stats"
)

// Events of the performance stage, live and replayed from the journal on Open.

func PairEvent(p PerfPair, done, total int) PairDone {
	return PairDone{Pair: p.Pair, BaselineFirst: p.Order == stats.BaselineFirst, BaselineMs: p.BaselineMs,
		CandidateMs: p.CandidateMs, Ratio: p.Ratio, Done: done, Total: total}
}

// uiDiagnostics converts the stats battery to the events' shape.
func uiDiagnostics(ds []stats.Diagnostic) []Diagnostic {
	out := make([]Diagnostic, 0, len(ds))
	for _, d := range ds {
		detail := d.Rule
		if d.Detail != "" {
			detail += "; " + d.Detail
		}
		out = append(out, Diagnostic{Name: d.Name, Statistic: d.Statistic, Threshold: d.Threshold(), Low: d.Low, High: d.High,
			OneSided: d.OneSided, Breached: d.Outcome == stats.OutcomeBreached, Outcome: string(d.Outcome), detail: detail})
	}
	return out
}

// runningSummary is the PerfSummary after the pairs recorded so far: the running median and the
// diagnostics once computable; bounds and verdict only at the end.
func runningSummary(s *perfSeries, row *Row, warmupsDone int) PerfSummary {
	ratios, order := s.ratios(row.Perf.Pairs)
	sum := PerfSummary{Done: len(ratios), Total: row.Perf.Pairs, TimingField: row.Perf.TimingField, TimingProxy: row.Perf.TimingProxy,
		WarmupsDone: warmupsDone, WarmupsTotal: row.Perf.WarmupsPerArm, Invalidated: len(s.invalid), Work: tallyWork(s.samples)}
	if len(ratios) > 0 {
		sum.Median = stats.Median(ratios)
		sum.Diagnostics = uiDiagnostics(stats.RunBattery(stats.LogRatios(ratios), order, stats.DefaultBattery).Diagnostics)
	}
	return sum
}

// InvalidatedEvent announces a recorded invalidation. One recorded before invalidations
// carried their causes has them read back from its reason.
func InvalidatedEvent(inv PerfInvalidation) SampleInvalidated {
	causes := inv.Causes
	if len(causes) == 0 {
		causes = InvalidationCauses(inv.Reason)
	}
	return SampleInvalidated{Pair: inv.Pair, Attempt: inv.Attempt, Reason: inv.Reason, Causes: causes}
}

// InvalidationCauses are the conditions a recorded invalidation reason names, without the run
// each was seen in: "perf/pair-001-baseline-a2: competing load on CPU 1: 300 ms of …; …"
// gives "competing load on CPU 1". The same condition seen in both members counts once. It
// reads journals recorded before invalidations carried their causes.
func InvalidationCauses(reason string) []string {
	var out []string
	// One member's reason per run: split where the next run id starts, since a reason may
	// hold "; " itself ("(limit 48 ms = max(…); /proc/stat)").
	parts := strings.Split(reason, "; perf/")
	for i := 1; i < len(parts); i++ {
		parts[i] = "perf/" + parts[i]
	}
	for _, part := range parts {
		part = strings.TrimSpace(part)
		if run, rest, ok := strings.Cut(part, ": "); ok && strings.HasPrefix(run, "perf/") {
			part = rest
		}
		if cause, _, ok := strings.Cut(part, ":"); ok {
			part = cause
		}
		if part != "" && !slices.Contains(out, part) {
			out = append(out, part)
		}
	}
	return out
}

// FinalSummary is the PerfSummary of a decided series.
func FinalSummary(r *PerfResult, row *Row) PerfSummary {
	sum := PerfSummary{Done: len(r.Pairs), Total: row.Perf.Pairs, Median: r.Median, Lower: r.Lower, Upper: r.Upper,
		LowerOrder: r.LowerOrder, UpperOrder: r.UpperOrder, Verdict: r.Verdict, Reason: r.Reason, Final: true,
		TimingField: r.TimingField, TimingProxy: r.TimingProxy, WarmupsDone: r.Warmups / 2, WarmupsTotal: row.Perf.WarmupsPerArm,
		Invalidated: len(r.Invalidations), telemetry: r.Telemetry, caveats: r.Caveats, Work: tallyWork(r.Samples)}
	if r.Analysis != nil {
		sum.Diagnostics = uiDiagnostics(r.Analysis.Battery.Diagnostics)
		sum.drift = r.Analysis.Battery.DriftPerSession
		if b := r.Analysis.Bootstrap; b != nil {
			sum.bootstrapLower, sum.bootstrapUpper = b.Lower, b.Upper
		}
	}
	sum.DependenceMethod, sum.DecidedBy = string(r.DependenceMethod), string(r.DecidedBy)
	if r.DecidedBy == stats.DecidedByBlockMedians && r.Analysis != nil && r.Analysis.Dependent != nil {
		d := r.Analysis.Dependent
		sum.DecidedLower, sum.DecidedUpper = d.Lower, d.Upper
		sum.DecidedBasis = d.Basis()
	}
	sum.Diagnostics = append(sum.Diagnostics, uiDiagnostics(r.TelemetryDiagnostics)...)
	return sum
}
