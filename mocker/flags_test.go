package mocker

import (
	"strings"
	"testing"
)

func TestParseArgsDefaultsMatchHarness(t *testing.T) {
	cfg, skip, err := parseArgs([]string{"t.jsonl"})
	if err != nil || skip {
		t.Fatal(err, skip)
	}
	if cfg.NumWorkers != 4 || cfg.ServingMode != "aggregated" || cfg.NumPrefillWorkers != 1 || cfg.NumDecodeWorkers != 1 ||
		cfg.EngineType != "vllm" || cfg.RouterMode != "kv-router" || cfg.RouterQueueThreshold != nil ||
		cfg.ArrivalSpeedupRatio != 4 || cfg.TraceBlockSize != 512 || cfg.BlockSize != 64 || cfg.NumGPUBlocks != nil ||
		cfg.KVTransferTimingMode != "full-prompt" || cfg.Iterations != 1 {
		t.Fatalf("defaults differ from offline_replay_bench: %+v", cfg)
	}
	a := poolArgs(&cfg, "aggregated")
	if a.numGPUBlocks != 16384 || a.maxNumSeqs != 256 || a.maxBatched != 8192 || a.speedup != 1 || a.decodeSpeedup != 1 {
		t.Fatalf("engine defaults differ: %+v", a)
	}
}

func TestParseArgsForms(t *testing.T) {
	cfg, _, err := parseArgs([]string{"--num-workers=2", "t.jsonl", "--bench", "--serving-mode", "disagg", "--router-queue-threshold", "0.5", "--scale-event", "10:1", "--scale-event", "20:2"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.NumWorkers != 2 || cfg.ServingMode != "disagg" || *cfg.RouterQueueThreshold != 0.5 || len(cfg.ScaleEvents) != 2 || cfg.TracePath != "t.jsonl" {
		t.Fatalf("%+v", cfg)
	}
	if _, skip, _ := parseArgs([]string{"--bench"}); !skip {
		t.Fatal("a --bench-only invocation must be skipped")
	}
}

func TestMainErrorsAreTheHarnessMessages(t *testing.T) {
	dir := t.TempDir()
	trace := genTrace(t, dir, 3, 1)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{trace, "--router-mode", "round-robin", "--router-queue-threshold", "0.5"}, 1, "Error: --router-queue-threshold requires --router-mode kv-router\n"},
		{[]string{trace, "--router-mode", "round-robin", "--router-policy-config", "p.yaml"}, 1, "Error: --router-policy-config requires --router-mode kv-router\n"},
		{[]string{trace, "--iterations", "0"}, 1, "Error: iterations must be greater than 0\n"},
		{[]string{trace, "--arrival-speedup-ratio", "0"}, 1, "Error: arrival_speedup_ratio must be finite and greater than 0, got 0\n"},
		{[]string{trace, "--serving-mode", "disagg", "--engine-type", "trtllm"}, 1, "Error: TRT-LLM does not support destination handoff\n"},
		{[]string{trace, "--variant", "nope"}, 1, "Error: --variant \"nope\" is not known"},
		{[]string{trace, "--num-workers", "x"}, 2, "error: invalid value 'x' for '--num-workers <NUM_WORKERS>': invalid digit found in string\n"},
		{[]string{trace, "--serving-mode", "agg"}, 2, "error: invalid value 'agg' for '--serving-mode <SERVING_MODE>'\n  [possible values: aggregated, disagg]\n"},
		{[]string{trace, "--frobnicate", "1"}, 2, "error: unexpected argument '--frobnicate' found\n"},
		{[]string{trace, "--block-size"}, 2, "error: a value is required for '--block-size <BLOCK_SIZE>' but none was supplied\n"},
		{[]string{"--num-workers", "2"}, 2, "error: the following required arguments were not provided:\n  <TRACE_FILE>\n"},
		{[]string{dir + "/missing.jsonl"}, 1, "Error: reading trace " + dir + "/missing.jsonl: no such file or directory\n"},
	}
	for _, c := range cases {
		code, _, stderr := runMain(c.args...)
		if code != c.code || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d, prefix %q", c.args, code, stderr, c.code, c.want)
		}
	}
	code, _, stderr := runMain("--bench")
	if code != 0 || stderr != "offline_replay_bench: skipping no-arg harness invocation\n" {
		t.Errorf("--bench only: exit %d, %q", code, stderr)
	}
}

func TestMainBadTraceNamesLineAndField(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/bad.jsonl"
	writeFile(t, path, "{\"timestamp\": 0, \"output_length\": 1, \"hash_ids\": [1]}\n\n{\"timestamp\": 1, \"output_length\": 1, \"hash_ids\": [1, \"a\"]}\n")
	code, _, stderr := runMain(path)
	want := "Error: " + path + ":3: field \"hash_ids\": element 1: expected a non-negative integer, got \"a\"\n"
	if code != 1 || stderr != want {
		t.Fatalf("exit %d stderr %q, want %q", code, stderr, want)
	}
	writeFile(t, path, "\n")
	if code, _, stderr := runMain(path); code != 1 || !strings.Contains(stderr, "trace has no requests") {
		t.Fatalf("empty trace: exit %d %q", code, stderr)
	}
}
