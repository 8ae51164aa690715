package engine

import (
	"fmt"
	"kvparity/engine/instrument"
	"kvparity/verdict"
	"math"

	"kvparity/stats"
)

// A PerfResult is everything the performance stage establishes for one series: the result of
// `kvparity run --stage perf --json`, perf/result.json and the campaign report's section.
type PerfResult struct {
	Key         string  `json:"key"`
	Row         string  `json:"row"`
	Scope       string  `json:"scope"` // what the timed samples simulated (workScope), computed from their work checks
	TimingField string  `json:"timing_field"`
	TimingProxy bool    `json:"timing_proxy"`
	Metric      string  `json:"metric"` // the timing field, labelled as a proxy when it is one
	Threshold   float64 `json:"threshold"`
	MeasuredCPU int     `json:"measured_cpu"`

	Schedule      *stats.Schedule             `json:"schedule,omitempty"`
	Warmups       int                         `json:"warmups_done"`
	Samples       []PerfSample                `json:"samples"` // every attempted process, in execution order
	Pairs         []PerfPair                  `json:"pairs"`   // valid pairs in pair order
	Invalidations []PerfInvalidation          `json:"invalidations"`
	Footprint     *instrument.FootprintResult `json:"footprint,omitempty"`

	// Analysis holds the bounds, the dependence battery, the drift and the bootstrap; nil when
	// the series ended early (a product failure) or is too short for a bound.
	Analysis             *stats.Analysis    `json:"analysis,omitempty"`
	Telemetry            string             `json:"telemetry"` // "unavailable" or "available"
	TelemetryDiagnostics []stats.Diagnostic `json:"telemetry_diagnostics,omitempty"`

	Median     float64 `json:"median_ratio,omitempty"`
	Lower      float64 `json:"lower,omitempty"`
	Upper      float64 `json:"upper,omitempty"`
	LowerOrder int     `json:"lower_order,omitempty"`
	UpperOrder int     `json:"upper_order,omitempty"`

	// DependenceMethod is the row's predeclared method for a breached battery; DecidedBy the
	// rule that gave Verdict. Lower/Upper above stay the order-statistic bounds; when the block
	// medians decided, their bounds are Analysis.Dependent's.
	DependenceMethod stats.DependenceMethod `json:"dependence_method"`
	DecidedBy        stats.Decider          `json:"decided_by,omitempty"`

	Verdict  verdict.Word `json:"verdict"` // PASS, FAIL, INCONCLUSIVE, BLOCKED
	Reason   string       `json:"reason"`
	Caveats  []string     `json:"caveats,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
}

// metricLabel names the timing field, marking a proxy as one.
func metricLabel(field string, proxy bool) string {
	if proxy {
		return field + " (PROXY for replay_execution_ms)"
	}
	return field
}

// fill copies the series' records into the result.
func (r *PerfResult) fill(s *perfSeries, pairs, warmups int) {
	r.Metric = metricLabel(r.TimingField, r.TimingProxy)
	r.Schedule = s.schedule
	r.Footprint = s.footprint
	r.Samples = append([]PerfSample{}, s.samples...)
	r.Scope = workScope(r.Samples)
	r.Invalidations = append([]PerfInvalidation{}, s.invalid...)
	r.Pairs = []PerfPair{}
	for i := 1; i <= pairs; i++ {
		if p := s.pairs[i]; p != nil {
			r.Pairs = append(r.Pairs, *p)
		}
	}
	for _, arm := range []Arm{Baseline, Candidate} {
		for i := 1; i <= warmups; i++ {
			if s.warmups[arm][i] != nil {
				r.Warmups++
			}
		}
	}
	r.Telemetry = "unavailable"
	for _, smp := range r.Samples {
		if smp.Env.Telemetry == "available" {
			r.Telemetry = "available"
		}
	}
	if ratios, _ := s.ratios(pairs); len(ratios) > 0 {
		r.Median = stats.Median(ratios)
	}
}

// telemetryDiagnostics applies the telemetry check's session rules where frequencies were read:
// every sample's mean frequency ≥ 0.95 × the median, and the within-pair frequency change not
// correlated with the log ratio (|Spearman ρ| ≤ the α = 0.01 critical value).
func telemetryDiagnostics(s *perfSeries, pairs int) []stats.Diagnostic {
	freq := map[RunID]float64{}
	var all []float64
	for _, smp := range s.samples {
		if smp.Env.Before == nil || smp.Env.After == nil || smp.Env.Before.FreqKHz == 0 || smp.Env.After.FreqKHz == 0 {
			continue
		}
		f := float64(smp.Env.Before.FreqKHz+smp.Env.After.FreqKHz) / 2
		freq[smp.Run] = f
		all = append(all, f)
	}
	if len(all) == 0 {
		return nil
	}
	med := stats.Median(all)
	low := math.Inf(1)
	for _, f := range all {
		low = math.Min(low, f)
	}
	out := []stats.Diagnostic{{
		Name: "frequency floor", Statistic: low / med, Low: 0.95, High: math.MaxFloat64, Alpha: 0,
		Rule: "breach if min sample frequency < 0.95 × median", Detail: fmt.Sprintf("min %.0f kHz, median %.0f kHz over %d samples", low, med, len(all)),
	}}
	var d, g []float64
	for i := 1; i <= pairs; i++ {
		p := s.pairs[i]
		if p == nil {
			continue
		}
		fb, okb := freq[p.BaselineRun]
		fc, okc := freq[p.CandidateRun]
		if okb && okc {
			d = append(d, math.Log(p.Ratio))
			g = append(g, math.Log(fc/fb))
		}
	}
	if rho, ok := stats.Spearman(d, g); ok && len(d) > 3 {
		crit := stats.SpearmanCritical(len(d), 0.01)
		out = append(out, stats.Diagnostic{Name: "frequency confounding (Spearman ρ of ln r vs ln f_c/f_b)", Statistic: rho, Low: -crit, High: crit, Alpha: 0.01,
			Rule: fmt.Sprintf("breach if |ρ| > %.4f", crit)})
	}
	for i := range out {
		st := out[i]
		if st.Statistic < st.Low || st.Statistic > st.High {
			out[i].Outcome = stats.OutcomeBreached
		} else {
			out[i].Outcome = stats.OutcomeOK
		}
	}
	return out
}
