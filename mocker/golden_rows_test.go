package mocker

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"kvparity/report"
)

// sharedTrace returns a published Mooncake trace under ../shared/traces beside the repository,
// read in place (never copied into the repo): every test that reads one goes through here, so
// a clone without ../shared skips them, and CI (which has it) fails when it is missing.
func sharedTrace(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join("..", "..", "shared", "traces", name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("CI needs the shared trace %s: %v", p, err)
		}
		tb.Skipf("shared trace not available: %v", err)
	}
	return p
}

// commonGoldenArgs are the flags every golden row shares (spec §7 CLI templates).
var commonGoldenArgs = []string{"--router-mode", "kv-router", "--arrival-speedup-ratio", "4",
	"--trace-block-size", "512", "--speedup-ratio", "1", "--decode-speedup-ratio", "1", "--iterations", "1"}

// A goldenRow is one of the four rows of spec §7 with this engine's own qualified G1 capacity.
type goldenRow struct {
	name    string
	args    []string
	nearby  []int  // neighbouring G1 capacities probed when the row was qualified
	band    [2]int // the pressure band the row must stay in
	handoff string // "" for aggregated, else the backend's handoff order
}

var goldenRows = []goldenRow{
	{"vllm-agg", []string{"--serving-mode", "aggregated", "--num-workers", "4", "--engine-type", "vllm", "--block-size", "64",
		"--num-gpu-blocks", "7000", "--max-num-seqs", "16", "--max-num-batched-tokens", "8192"},
		[]int{6500, 7500, 8000}, [2]int{1, 3}, ""},
	{"vllm-disagg", []string{"--serving-mode", "disagg", "--num-prefill-workers", "2", "--num-decode-workers", "2", "--engine-type", "vllm",
		"--block-size", "64", "--num-gpu-blocks", "4500", "--max-num-seqs", "16", "--max-num-batched-tokens", "8192",
		"--kv-bytes-per-token", "1", "--kv-transfer-bandwidth", "100", "--kv-transfer-timing-mode", "full-prompt"},
		[]int{4250, 5000, 6000}, [2]int{10, 20}, "source-first"},
	{"sglang-agg", []string{"--serving-mode", "aggregated", "--num-workers", "4", "--engine-type", "sglang", "--block-size", "512",
		"--num-gpu-blocks", "3072", "--max-num-seqs", "256", "--max-num-batched-tokens", "32768"},
		[]int{2048, 3328, 4096}, [2]int{1, 3}, ""},
	{"sglang-disagg", []string{"--serving-mode", "disagg", "--num-prefill-workers", "2", "--num-decode-workers", "2", "--engine-type", "sglang",
		"--block-size", "512", "--num-gpu-blocks", "6912", "--max-num-seqs", "256", "--max-num-batched-tokens", "32768",
		"--kv-bytes-per-token", "262144", "--kv-transfer-bandwidth", "100", "--kv-transfer-timing-mode", "full-prompt"},
		[]int{6656, 7168, 8192}, [2]int{10, 20}, "destination-first"},
}

// rowArgs is the full argument vector of a golden row on trace.
func (g goldenRow) rowArgs(trace string, extra ...string) []string {
	args := append([]string{trace}, commonGoldenArgs...)
	args = append(args, g.args...)
	return append(args, extra...)
}

// traceWindow writes rows [0, n) of the conversation trace into dir and returns its path (see
// sharedTrace for a missing trace).
func traceWindow(tb testing.TB, dir string, n int) string {
	tb.Helper()
	f, err := os.Open(sharedTrace(tb, "conversation_trace.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for i := 0; i < n && sc.Scan(); i++ {
		buf.Write(sc.Bytes())
		buf.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, "window.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// prepared parses a row's flags and loads its workload, as the harness does before timing.
func prepared(tb testing.TB, args []string) (*config, variant, *workload) {
	tb.Helper()
	cfg, _, err := parseArgs(args)
	if err != nil {
		tb.Fatal(err)
	}
	if err := cfg.validate(); err != nil {
		tb.Fatal(err)
	}
	v, _ := parseVariant(cfg.Variant)
	data, err := os.ReadFile(cfg.TracePath)
	if err != nil {
		tb.Fatal(err)
	}
	rows, err := report.ReadMooncake(bytes.NewReader(data), cfg.TracePath)
	if err != nil {
		tb.Fatal(err)
	}
	wl, err := buildWorkload(rows, cfg.TraceBlockSize, cfg.BlockSize, cfg.ArrivalSpeedupRatio)
	if err != nil {
		tb.Fatal(err)
	}
	return &cfg, v, wl
}

// BenchmarkGoldenRows times the replay loop (the replay_execution_ms region) of each golden
// row on the 5,000-request window and reports ns per request.
func BenchmarkGoldenRows(b *testing.B) {
	benchReplayLoop(b, traceWindow(b, b.TempDir(), 5000))
}

// BenchmarkFullTrace times the replay loop of each golden row on the whole 12,031-request
// trace, for the 2.6× scaling target.
func BenchmarkFullTrace(b *testing.B) {
	benchReplayLoop(b, sharedTrace(b, "conversation_trace.jsonl"))
}

// benchReplayLoop runs one sub-benchmark per golden row on trace, timing only the replay loop
// (as replay_execution_ms does, so building the sim is excluded) and reporting ns per request.
func benchReplayLoop(b *testing.B, trace string) {
	for _, g := range goldenRows {
		b.Run(g.name, func(b *testing.B) {
			cfg, v, wl := prepared(b, g.rowArgs(trace))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := newSim(cfg, v, wl)
				b.StartTimer()
				s.run()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(wl.requests)), "ns/request")
		})
	}
}

// BenchmarkTraceLoad times trace parsing and workload construction (trace_load_ms) on the
// 5,000-request window.
func BenchmarkTraceLoad(b *testing.B) {
	path := traceWindow(b, b.TempDir(), 5000)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rows, err := report.ReadMooncake(bytes.NewReader(data), path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := buildWorkload(rows, 512, 64, 4); err != nil {
			b.Fatal(err)
		}
	}
}
