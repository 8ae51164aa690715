package engine

import (
	"kvparity/engine/instrument"
	"kvparity/stats"
)

// The performance series as History answers about it, one series per key (PerfKey): what the
// stage resumes from and decides on. The fold (perf_records.go) stays the core's; the stage
// reads only these answers, and folds what it appends into its own History (History.Add).

// PerfKey names the measured artifacts of a series: "b<gen>-c<gen>".
func PerfKey(baseGen, candGen int) string { return perfKey(baseGen, candGen) }

// PerfSchedule is the series' persisted schedule (nil before it is written).
func (h *History) PerfSchedule(key string) *stats.Schedule { return h.perfSeries(key).schedule }

// PerfFootprint is the series' footprint gate (nil before it is decided).
func (h *History) PerfFootprint(key string) *instrument.FootprintResult {
	return h.perfSeries(key).footprint
}

// PerfDecided is the series' recorded result (nil until the stage decided).
func (h *History) PerfDecided(key string) *PerfResult { return h.perfSeries(key).result }

// PerfSamples is every ended sample process of the series, in order.
func (h *History) PerfSamples(key string) []PerfSample { return h.perfSeries(key).samples }

// PerfWarmupDone says whether an arm's warmup index succeeded.
func (h *History) PerfWarmupDone(key string, arm Arm, index int) bool {
	return h.perfSeries(key).warmups[arm][index] != nil
}

// PerfWarmupAttempt is the latest started attempt of an arm's warmup index (0: none).
func (h *History) PerfWarmupAttempt(key string, arm Arm, index int) int {
	return h.perfSeries(key).warmupAtt[arm][index]
}

// PerfPairAt is the valid pair of that index (nil when none is recorded).
func (h *History) PerfPairAt(key string, pair int) *PerfPair { return h.perfSeries(key).pairs[pair] }

// PerfPairAttempt is the latest started attempt of a pair (0: none).
func (h *History) PerfPairAttempt(key string, pair int) int { return h.perfSeries(key).pairAtt[pair] }

// PerfPairsDone counts the series' valid pairs.
func (h *History) PerfPairsDone(key string) int { return h.perfSeries(key).done() }

// PerfSettled says whether a pair attempt already has a pair or invalidation record.
func (h *History) PerfSettled(key string, pair, attempt int) bool {
	return h.perfSeries(key).settled(pair, attempt)
}

// PerfInvalidations counts a pair's environmental invalidations (interruptions do not count).
func (h *History) PerfInvalidations(key string, pair int) int {
	return h.perfSeries(key).invalidations(pair)
}

// PerfLastInvalid is the reason of a pair's last environmental invalidation.
func (h *History) PerfLastInvalid(key string, pair int) string {
	return h.perfSeries(key).lastInvalid(pair)
}

// PerfRatios are the valid pairs' ratios and orders in pair order, up to the first missing pair.
func (h *History) PerfRatios(key string, n int) ([]float64, []stats.Order) {
	return h.perfSeries(key).ratios(n)
}

// PerfTelemetryDiagnostics applies the telemetry rules to the series' first n pairs.
func (h *History) PerfTelemetryDiagnostics(key string, n int) []stats.Diagnostic {
	return telemetryDiagnostics(h.perfSeries(key), n)
}

// PerfRunning is the series' PerfSummary after the pairs recorded so far (runningSummary).
func (h *History) PerfRunning(key string, warmupsDone int) PerfSummary {
	return runningSummary(h.perfSeries(key), h.row, warmupsDone)
}

// Fill copies the series r.Key names, as h holds it, into the result: its records, the valid
// pairs among the first pairs, the successful warmups among the first warmups per arm.
func (r *PerfResult) Fill(h *History, pairs, warmups int) {
	r.fill(h.perfSeries(r.Key), pairs, warmups)
}

func (s *perfSeries) lastInvalid(pair int) string {
	for i := len(s.invalid) - 1; i >= 0; i-- {
		if s.invalid[i].Pair == pair && !s.invalid[i].Interrupted {
			return s.invalid[i].Reason
		}
	}
	return ""
}

// done counts the valid pairs.
func (s *perfSeries) done() int { return len(s.pairs) }
