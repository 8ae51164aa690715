package diffpane

import (
	"fmt"
	"sync/atomic"
	"testing"

	"kvparity/diffview"
	"kvparity/exceptions"
)

// bigDiff is a synthetic diff the size of fifo-preemption's (70k differing pointers over 4000
// requests), for the costs the pane moves off the update loop.
func bigDiff() *diffview.Diff {
	fields := []string{"ttft_ms", "e2e_latency_ms", "last_token_ms", "terminal_time_ms", "itl_ms", "decode_admit_ms",
		"first_token_ms", "source_held_ms", "prefill_admit_ms", "ttst_ms", "first_admit_ms", "source_released_ms",
		"destination_activated_ms", "destination_reserved_ms", "decode_worker_idx", "admission_history/1/at_ms",
		"admission_history/2/at_ms"}
	d := &diffview.Diff{}
	for r := 0; r < 4100; r++ {
		for _, f := range fields {
			d.Changes = append(d.Changes, diffview.Change{Pointer: fmt.Sprintf("/per_request/%d/%s", r, f),
				Request: fmt.Sprintf("00000000-0000-0000-0000-%012x", r+1), A: "1.5", B: "2.5"})
		}
	}
	return d
}

func BenchmarkFilterScan70k(b *testing.B) {
	d := bigDiff()
	g := buildGroupings(d)
	latest := new(atomic.Int64)
	latest.Store(1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if msg := scanFilter(d, g, "/per_request/1*/ttft_ms", 1, latest)(); msg == nil {
			b.Fatal("no result")
		}
	}
	b.ReportMetric(float64(len(d.Changes)), "pointers")
}

func BenchmarkSubstringFilter70k(b *testing.B) {
	d := bigDiff()
	g := buildGroupings(d)
	latest := new(atomic.Int64)
	latest.Store(1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		scanFilter(d, g, "ttft", 1, latest)()
	}
}

func BenchmarkCoverageCount70k(b *testing.B) {
	d := bigDiff()
	recs := []exceptions.ExceptionRecord{{ID: "a", Pointers: []string{"/per_request/*/ttft_ms"}, Differs: "x", Baseline: "x",
		Candidate: "x", Cause: "x", RegressionTest: "x", Impact: "x", Disposition: "x"}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		computeCoverage(d, recs, "", []string{"/per_request/*/admission_history/*/at_ms", "/summary/**"}, nil, 0, nil)
	}
}

func BenchmarkGroupings70k(b *testing.B) {
	d := bigDiff()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buildGroupings(&diffview.Diff{Changes: d.Changes}) // a fresh diff: field patterns are cached per diff
	}
}
