package diffview

import (
	"fmt"
	"testing"

	fx "kvparity/diffview/difftest"
)

// BenchmarkDiffBytes diffs two 12,000-request reports that differ in 1% of requests
// (a decode routing flip and a shifted terminal time each): parse, diff, group, first
// divergence and diagnosis. scripts/bench-diff.sh compares the real-trace case with jd.
func BenchmarkDiffBytes(b *testing.B) {
	ra := fx.Report(12000, 50)
	rb := fx.Clone(ra)
	for i := 0; i < 12000; i += 100 {
		fx.Set(rb, fmt.Sprintf("/per_request/%d/routing_history/1/logical_worker_id", i), fx.Int(7))
		fx.Shift(rb, fmt.Sprintf("/per_request/%d/terminal_time_ms", i), 0.123076)
	}
	a, bb := fx.Encode(ra), fx.Encode(rb)
	b.SetBytes(int64(len(a) + len(bb)))
	b.ResetTimer()
	for b.Loop() {
		d, err := DiffBytes("a", a, "b", bb)
		if err != nil || len(d.Changes) != 240 {
			b.Fatalf("%v %d", err, len(d.Changes))
		}
	}
}

// BenchmarkDiffAllDiffer diffs two reports whose 1,000,000-element array differs everywhere
// (issue 13's flooding case, scaled down: the diff holds the first 262,144 in detail and
// counts the rest) and reports the bytes allocated; scripts/bench-diff-memory.sh measures the
// peak RSS of the full 5M case against an older build.
func BenchmarkDiffAllDiffer(b *testing.B) {
	const n = 1_000_000
	a, bb := allDiffer(n, '0'), allDiffer(n, '1')
	b.SetBytes(int64(len(a) + len(bb)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		d, err := DiffBytes("a", a, "b", bb)
		if err != nil || d.Count != n {
			b.Fatalf("%v %d", err, d.Count)
		}
	}
}

// allDiffer is {"events":[v,v,…]} with n elements.
func allDiffer(n int, v byte) []byte {
	out := append(make([]byte, 0, 2*n+16), `{"events":[`...)
	for i := 0; i < n; i++ {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, v)
	}
	return append(out, "]}"...)
}
