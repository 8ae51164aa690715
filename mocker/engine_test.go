package mocker

import (
	"fmt"
	"path/filepath"
	"testing"
)

func replayRecord(t *testing.T, args ...string) canonicalRecord {
	t.Helper()
	out := filepath.Join(t.TempDir(), "c.jsonl")
	if code, _, stderr := runMain(append(args, "--canonical-reports-jsonl", out)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rec, _ := readCanonical(t, out)
	return rec
}

// Every engine and topology completes a generated trace with consistent records.
func TestEnginesCompleteWithConsistentRecords(t *testing.T) {
	trace := genTrace(t, t.TempDir(), 250, 12)
	cases := [][]string{
		{"--engine-type", "vllm", "--num-gpu-blocks", "3000"},
		{"--engine-type", "sglang", "--block-size", "512", "--num-gpu-blocks", "400"},
		{"--engine-type", "trtllm", "--block-size", "32", "--num-gpu-blocks", "6000"},
		{"--engine-type", "vllm", "--serving-mode", "disagg", "--num-prefill-workers", "2", "--num-decode-workers", "2", "--kv-bytes-per-token", "2", "--kv-transfer-bandwidth", "1"},
		{"--engine-type", "sglang", "--serving-mode", "disagg", "--block-size", "512", "--num-gpu-blocks", "500", "--kv-bytes-per-token", "2", "--kv-transfer-bandwidth", "1", "--kv-transfer-timing-mode", "destination-missing"},
	}
	for _, c := range cases {
		rec := replayRecord(t, append([]string{trace}, c...)...)
		if len(rec.PerRequest) != 250 {
			t.Fatalf("%v: %d records", c, len(rec.PerRequest))
		}
		for _, p := range rec.PerRequest {
			if p.TerminalStatus != "completed" || p.OutputLength != p.RequestedOutput || p.FirstToken == nil || *p.FirstToken < p.Arrival ||
				*p.Terminal < *p.FirstToken || *p.FirstAdmit < p.Arrival || p.AdmissionCount != len(p.AdmissionHistory) {
				t.Fatalf("%v: inconsistent record %+v", c, p)
			}
			if p.Reused >= p.InputLength {
				t.Fatalf("%v: reused %d of %d tokens: the last prompt token is always computed", c, p.Reused, p.InputLength)
			}
		}
	}
}

// TRT-LLM's guaranteed-no-evict admission never preempts, even where vLLM must.
func TestTRTLLMNeverPreempts(t *testing.T) {
	trace := genTrace(t, t.TempDir(), 200, 6)
	vllm := replayRecord(t, trace, "--num-workers", "1", "--engine-type", "vllm", "--block-size", "32", "--num-gpu-blocks", "1500")
	trt := replayRecord(t, trace, "--num-workers", "1", "--engine-type", "trtllm", "--block-size", "32", "--num-gpu-blocks", "1500")
	if vllm.Coverage.Pressure.VLLM == 0 {
		t.Fatal("the vLLM control must preempt at this capacity")
	}
	if n := trt.Coverage.Pressure.VLLM + trt.Coverage.Pressure.SGLang; n != 0 {
		t.Fatalf("TRT-LLM preempted %d times", n)
	}
}

// SGLang retracts under decode memory pressure and every retraction is readmitted.
func TestSGLangRetractionsAreReadmitted(t *testing.T) {
	trace := genTrace(t, t.TempDir(), 300, 8)
	rec := replayRecord(t, trace, "--num-workers", "1", "--engine-type", "sglang", "--block-size", "64", "--num-gpu-blocks", "1200")
	pr := rec.Coverage.Pressure
	if pr.SGLang == 0 || pr.VLLM != 0 {
		t.Fatalf("want SGLang retractions only, got %d / %d", pr.SGLang, pr.VLLM)
	}
	for _, r := range pr.Records {
		if r.Kind != "sglang_retraction" || r.ReadmittedAt == nil || *r.ReadmittedAt < r.AtMs {
			t.Fatalf("record %+v", r)
		}
	}
}

// Round-robin placement cycles through the workers and captures no KV events.
func TestRoundRobinCyclesAndCapturesNoKVEvents(t *testing.T) {
	trace := genTrace(t, t.TempDir(), 40, 3)
	rec := replayRecord(t, trace, "--router-mode", "round-robin", "--num-workers", "3")
	for i, p := range rec.PerRequest {
		if p.DecodeWorker == nil || *p.DecodeWorker != i%3 {
			t.Fatalf("request %d on worker %v", i, p.DecodeWorker)
		}
	}
	if rec.Coverage.KVIngest != nil {
		t.Fatal("round-robin must not capture kv_ingest")
	}
}

// The KV router prefers the worker that already holds a request's prefix.
func TestKVRouterFollowsOverlap(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "prefix.jsonl")
	// the second request shares the first's 4 trace blocks and arrives after the first's pass
	writeFile(t, path, row(0, 2048, 2, 1, 2, 3, 4)+row(200, 2560, 2, 1, 2, 3, 4, 5))
	rec := replayRecord(t, path, "--num-workers", "4", "--arrival-speedup-ratio", "1")
	a, b := rec.PerRequest[0], rec.PerRequest[1]
	if *a.DecodeWorker != *b.DecodeWorker || b.Reused != 2048 || b.RoutingHistory[0].Outcome != "immediate" {
		t.Fatalf("second request on worker %d (first on %d), reused %d", *b.DecodeWorker, *a.DecodeWorker, b.Reused)
	}
}

func TestSoftmaxSampleTemperature(t *testing.T) {
	rng := wyrand{s: selectorSeed}
	counts := make([]int, 3)
	for i := 0; i < 3000; i++ {
		counts[softmaxSample([]float64{1, 2, 3}, 0.5, &rng)]++
	}
	if !(counts[0] > counts[1] && counts[1] > counts[2] && counts[2] > 0) {
		t.Fatalf("softmax over costs 1,2,3 sampled %v: lower cost must be likelier", counts)
	}
	for i := 0; i < 100; i++ {
		if j := softmaxSample([]float64{5, 5}, 1, &rng); j < 0 || j > 1 {
			t.Fatal(j)
		}
	}
}

// Degenerate rows (empty prompt, zero output, a prompt larger than G1) never panic: every
// engine and topology ends each request in a terminal state, rejecting only the oversize one.
func TestEdgeRowsReachTerminalStates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "edge.jsonl")
	writeFile(t, path, `{"timestamp": 0, "input_length": 0, "output_length": 3, "hash_ids": []}
{"timestamp": 0, "input_length": 700, "output_length": 0, "hash_ids": [1, 2]}
{"timestamp": 1, "input_length": 200000, "output_length": 4, "hash_ids": [`+idList(400)+`]}
{"timestamp": 1, "output_length": 1, "hash_ids": [1]}
{"timestamp": 2, "input_length": 900, "output_length": 5, "hash_ids": [1, 2]}
`)
	for _, args := range [][]string{
		{"--num-workers", "2", "--num-gpu-blocks", "256"},
		{"--num-workers", "2", "--engine-type", "sglang", "--num-gpu-blocks", "256"},
		{"--num-workers", "2", "--engine-type", "trtllm", "--num-gpu-blocks", "256"},
		{"--serving-mode", "disagg", "--num-gpu-blocks", "256"},
		{"--serving-mode", "disagg", "--engine-type", "sglang", "--num-gpu-blocks", "256"},
		{"--num-workers", "2", "--router-mode", "round-robin", "--num-gpu-blocks", "256"},
	} {
		rec := replayRecord(t, append([]string{path}, args...)...)
		if len(rec.PerRequest) != 5 {
			t.Fatalf("%v: %d records", args, len(rec.PerRequest))
		}
		for i, p := range rec.PerRequest {
			want := "completed"
			if p.InputLength == 200000 {
				want = "rejected"
			}
			if p.TerminalStatus != want {
				t.Errorf("%v: request %d (%d tokens) ended %q, want %q", args, i, p.InputLength, p.TerminalStatus, want)
			}
		}
	}
}

func idList(n int) string {
	s := ""
	for i := 0; i < n; i++ {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(100 + i)
	}
	return s
}
