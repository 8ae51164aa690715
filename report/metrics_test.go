package report

import (
	"strconv"
	"strings"
	"testing"
)

// The summary's numbers are kept by name, a non-number is left out, and the quantiles are of
// the completed requests only, by the collector's rank rule.
func TestExtractMetrics(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"summary":{"mean_ttft_ms":2.5,"p99_itl_ms":0.75,"request_throughput_rps":10,"agentic_graph":null,"nested":{"a":1}},"per_request":[`)
	for i := range 10 {
		if i > 0 {
			b.WriteString(",")
		}
		status := "completed"
		if i == 9 {
			status = "rejected"
		}
		b.WriteString(`{"ttft_ms":` + strconv.Itoa(i) + `,"e2e_latency_ms":` + strconv.Itoa(10*i) + `,"terminal_status":"` + status + `"}`)
	}
	b.WriteString(`,{"ttft_ms":null,"e2e_latency_ms":null,"terminal_status":null}]}`)
	m, err := ExtractMetrics([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Summary) != 3 || m.Summary["mean_ttft_ms"] != 2.5 || m.Summary["p99_itl_ms"] != 0.75 || m.Summary["request_throughput_rps"] != 10 {
		t.Errorf("summary %v: want the three numbers only", m.Summary)
	}
	if m.Requests != 9 || len(m.TTFTms) != QuantileCount || len(m.E2Ems) != QuantileCount {
		t.Fatalf("requests %d, %d and %d quantiles", m.Requests, len(m.TTFTms), len(m.E2Ems))
	}
	// 9 values 0..8: p50 is rank round(8·0.5) = 4, p100 the maximum; the rejected request's 9 is not one.
	if m.TTFTms[0] != 0 || m.TTFTms[50] != 4 || m.TTFTms[100] != 8 || m.E2Ems[100] != 80 {
		t.Errorf("quantiles p0 %v p50 %v p100 %v, e2e p100 %v", m.TTFTms[0], m.TTFTms[50], m.TTFTms[100], m.E2Ems[100])
	}
}

// A record without per-request latencies or summary gives empty, non-nil figures; malformed
// JSON is an error saying what was read.
func TestExtractMetricsEmptyAndMalformed(t *testing.T) {
	m, err := ExtractMetrics([]byte(`{"metadata":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.Summary == nil || m.TTFTms == nil || m.E2Ems == nil || m.Requests != 0 {
		t.Errorf("got %+v", m)
	}
	if _, err := ExtractMetrics([]byte(`{"summary":`)); err == nil || !strings.Contains(err.Error(), "product metrics") {
		t.Errorf("malformed: %v", err)
	}
}
