package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// QuantileCount is how many quantiles of each per-request latency Metrics keeps: p0, p1, …,
// p100. They draw a distribution and give any percentile to 1%, in about 2 KB per run.
const QuantileCount = 101

// Metrics is what one repetition's canonical report says about the product, kept after its
// full report is deleted (a matching report is deleted once its digest is recorded): the
// numeric fields of /summary (latencies, throughputs, token counts, reuse ratios) and the
// quantiles of the completed requests' TTFT and end-to-end latency, for the campaign report's
// table of what changed and its latency plots.
type Metrics struct {
	// Summary is every numeric field of the canonical /summary (the replay's ReplayReport summary:
	// mean_ttft_ms, p99_itl_ms, request_throughput_rps, ...), by name.
	Summary map[string]float64 `json:"summary"`
	// Requests is how many completed requests the quantiles are of.
	Requests int `json:"completed_requests_sampled"`
	// TTFTms and E2Ems are the QuantileCount quantiles (p0..p100) of per_request ttft_ms and
	// e2e_latency_ms over the completed requests, by the collector's rank rule
	// (round((n−1)·p/100) of the sorted values); empty when no request completed.
	TTFTms []float64 `json:"ttft_ms_quantiles"`
	E2Ems  []float64 `json:"e2e_latency_ms_quantiles"`
}

type metricsRecord struct {
	Summary    map[string]json.RawMessage `json:"summary"`
	PerRequest []struct {
		TTFTms         *float64 `json:"ttft_ms"`
		E2Ems          *float64 `json:"e2e_latency_ms"`
		TerminalStatus *string  `json:"terminal_status"`
	} `json:"per_request"`
}

// ExtractMetrics reads the product metrics of one canonical record. A summary field that is
// not a number (null, a nested object) is left out; a record without a summary gives an empty
// map, so a harness that writes fewer fields still gives what it has.
func ExtractMetrics(canonical []byte) (*Metrics, error) {
	var rec metricsRecord
	if err := json.NewDecoder(bytes.NewReader(canonical)).Decode(&rec); err != nil {
		return nil, fmt.Errorf("product metrics: %w", err)
	}
	m := &Metrics{Summary: map[string]float64{}, TTFTms: []float64{}, E2Ems: []float64{}}
	for k, raw := range rec.Summary {
		var v *float64 // a pointer: null is not 0
		if json.Unmarshal(raw, &v) == nil && v != nil {
			m.Summary[k] = *v
		}
	}
	var ttft, e2e []float64
	for _, r := range rec.PerRequest {
		if r.TerminalStatus == nil || *r.TerminalStatus != "completed" {
			continue
		}
		m.Requests++
		if r.TTFTms != nil {
			ttft = append(ttft, *r.TTFTms)
		}
		if r.E2Ems != nil {
			e2e = append(e2e, *r.E2Ems)
		}
	}
	m.TTFTms, m.E2Ems = quantiles(ttft), quantiles(e2e)
	return m, nil
}

// quantiles is p0..p100 of xs by the collector's exact rank rule; [] for no value.
func quantiles(xs []float64) []float64 {
	out := []float64{}
	if len(xs) == 0 {
		return out
	}
	slices.Sort(xs)
	n := len(xs)
	for p := range QuantileCount {
		out = append(out, xs[int(math.Round(float64(n-1)*float64(p)/float64(QuantileCount-1)))])
	}
	return out
}
