package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/engine"
)

// The authoritative matrix's rows (stage 4) are the golden points' four templates on one
// public window, each frozen by kvparity qualify: they parse from any clone, name the trace by
// its address and checksum (no path outside the repository), keep the templates' common flags,
// declare the band they were qualified for, and carry their probe table.
func TestAuthoritativeRowsAreTheGoldenTemplatesQualified(t *testing.T) {
	files, _ := filepath.Glob("rows/authoritative/*.toml")
	want := map[string][2]int{"vllm-agg": {1, 3}, "vllm-disagg": {10, 20}, "sglang-agg": {1, 3}, "sglang-disagg": {10, 20}}
	if len(files) != len(want) {
		t.Fatalf("rows/authoritative holds %v, want the four rows %v", files, want)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".toml")
		row, err := engine.LoadRow(f)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := os.ReadFile(f)
		common := map[string]string{"--router-mode": "kv-router", "--arrival-speedup-ratio": "4", "--trace-block-size": "512", "--speedup-ratio": "1", "--decode-speedup-ratio": "1"}
		for flag, v := range common {
			if got := row.ReplayArg(flag); got != v {
				t.Errorf("%s: %s %q, want %q", f, flag, got, v)
			}
		}
		if !strings.HasPrefix(row.Trace.Path, "https://") || row.Trace.SHA256 != "b8cbb061a85206d729d91cdc2981f43c9e0d99209dce588d3af5f7934408b9df" || row.Trace.Offset != 0 || row.Trace.Count != 5000 {
			t.Errorf("%s: trace %+v", f, row.Trace)
		}
		if row.Band() != want[name] || row.Perf.Pairs != 60 {
			t.Errorf("%s: band %v (want %v), %d pairs", f, row.Band(), want[name], row.Perf.Pairs)
		}
		flat := strings.Join(strings.Fields(strings.ReplaceAll(string(text), "\n#", " ")), " ") // the comment, unwrapped
		if !strings.Contains(flat, "Qualified by kvparity qualify (protocol stage 3): on the pinned baseline (crate:dynamo-bench@1.5.1)") ||
			!strings.Contains(flat, "--num-gpu-blocks "+row.ReplayArg("--num-gpu-blocks")+" gives") {
			t.Errorf("%s: no probe table for its capacity %s", f, row.ReplayArg("--num-gpu-blocks"))
		}
	}
}
