package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/report"
)

func runCanonArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runCanon(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCanonCommand(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "c.jsonl")
	line1 := `{"metadata":{"replay_bench":true},"summary":{"wall_time_ms":1.5,"x":1}}`
	line2 := `{"summary":{"x":1},"metadata":{"replay_bench":true}}`
	if err := os.WriteFile(in, []byte(line1+"\n"+line2+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	code, stdout, stderr := runCanonArgs(t, in, "--write", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	canon := `{"metadata":{"replay_bench":true},"summary":{"x":1}}` + "\n"
	digest := report.Digest([]byte(canon))
	for _, want := range []string{
		in + ":1 sha256 " + digest, "fixed point: yes", in + ":2 sha256 " + digest,
		"fixed point: NO, first difference at /metadata", "2 lines, 1 distinct digest(s)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if got, _ := os.ReadFile(out); string(got) != canon+canon {
		t.Errorf("--write wrote %q", got)
	}
	// --exclude replaces the default list: wall_time_ms is kept.
	_, stdout, _ = runCanonArgs(t, "--exclude", "/metadata/none", in)
	if first, _, _ := strings.Cut(stdout, "\n"); strings.Contains(first, digest) || !strings.Contains(stdout, "2 distinct") {
		t.Errorf("--exclude did not replace the default exclusions:\n%s", stdout)
	}
}

func TestCanonCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"a\":1}\n{\"a\":NaN}\n"), 0o644)
	noBench := filepath.Join(dir, "nobench.jsonl")
	os.WriteFile(noBench, []byte(`{"metadata":{"replay_bench":false}}`+"\n"), 0o644)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{bad}, 3, "bad.jsonl:2: canonical report at \"/a\" (byte 5): non-finite number NaN"},
		{[]string{}, 3, "want exactly one FILE"},
		{[]string{bad, bad}, 3, "want exactly one FILE"},
		{[]string{filepath.Join(dir, "missing")}, 3, "no such file"},
		{[]string{"--exclude", "nope", bad}, 3, "must be empty or start with '/'"},
		{[]string{"--unordered", "/per_request", bad}, 3, "want POINTER=KEY"},
		{[]string{"--bogus", bad}, 3, "flag provided but not defined"},
		{[]string{noBench}, 2, "row blocked"},
	}
	for _, c := range cases {
		code, _, stderr := runCanonArgs(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.msg)
		}
	}
}

// replayWindow runs the embedded engine (vLLM disaggregated) on rows 100..299 of a generated
// conversation trace and returns the canonical-reports file.
func replayWindow(t *testing.T, gpuBlocks string) string {
	t.Helper()
	dir := t.TempDir()
	window := filepath.Join(dir, "window.jsonl")
	f, err := os.Create(window)
	if err != nil {
		t.Fatal(err)
	}
	info, err := report.WriteWindow("generated:conversation?seed=7&requests=400", 100, 200, f)
	if cerr := f.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	if info.Rows != 200 || info.FirstLine != 101 {
		t.Fatalf("window %+v", info)
	}
	out := filepath.Join(dir, "canonical.jsonl")
	var stdout, stderr bytes.Buffer
	args := []string{window, "--serving-mode", "disagg", "--num-prefill-workers", "2", "--num-decode-workers", "2",
		"--engine-type", "vllm", "--block-size", "64", "--num-gpu-blocks", gpuBlocks, "--max-num-seqs", "16",
		"--max-num-batched-tokens", "8192", "--kv-bytes-per-token", "1", "--kv-transfer-bandwidth", "100",
		"--canonical-reports-jsonl", out}
	if code := commands["replay"].run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("replay exit %d: %s", code, stderr.String())
	}
	return out
}

func evidenceOfFile(t *testing.T, path string) *report.Evidence {
	t.Helper()
	recs, err := report.CheckFile(path, report.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	e, err := report.ExtractEvidence(recs[0].Canonical, report.EvidenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestCanonAndEvidenceOnEmbeddedReplay checks what the report package says about the embedded
// engine's real output: the harness line is already a fixed point whose digest is sha256 of the
// file, replay_bench is true, and the lifecycle evidence holds — or names the rejected requests
// when the capacity is too small for some prompts.
func TestCanonAndEvidenceOnEmbeddedReplay(t *testing.T) {
	out := replayWindow(t, "3000")
	code, canonOut, canonErr := runCanonArgs(t, out)
	if code != 0 || !strings.Contains(canonOut, "fixed point: yes  replay_bench: true") {
		t.Fatalf("canon exit %d:\n%s%s", code, canonOut, canonErr)
	}
	raw, _ := os.ReadFile(out)
	if !strings.Contains(canonOut, "sha256 "+report.Digest(raw)) {
		t.Fatal("the digest of a fixed-point harness line is not sha256 of the file")
	}
	e := evidenceOfFile(t, out)
	// --work prints the fingerprint a timed run of this work must write.
	if code, workOut, _ := runCanonArgs(t, out, "--work"); code != 0 || e.Work == nil || !strings.Contains(workOut, ":1 work "+e.Work.String()+"\n") {
		t.Errorf("canon --work exit %d:\n%s\nwant the line's %v", code, workOut, e.Work)
	}
	if e.Topology != "disaggregated" || e.Engine != "vllm" || e.Requests != 200 || e.Handoffs == nil || e.Handoffs.Expected != "source-first" {
		t.Fatalf("evidence header %+v", e)
	}
	for _, name := range []string{"overlap-sensitive routing", "immediate placement", "queue accounting", "no preempt/readmit cycling",
		"no pressure runaway", "virtual time advances", "terminal cleanup", "handoffs complete"} {
		for _, r := range e.Rules {
			if r.Name == name && !r.Passed {
				t.Errorf("rule %s failed on the embedded engine's output: %s", name, r.Why)
			}
		}
	}
	t.Logf("pressure at 3000 blocks: %d events", len(e.Pressure))

	// 1200 blocks cannot hold the longest prompts: the engine rejects them, and the evidence
	// says so instead of calling the run clean.
	e = evidenceOfFile(t, replayWindow(t, "1200"))
	var terminal report.Rule
	for _, r := range e.Rules {
		if r.Name == "terminal cleanup" {
			terminal = r
		}
	}
	if terminal.Passed || e.Terminal["rejected"] == 0 || !strings.Contains(terminal.Why, "rejected") {
		t.Fatalf("terminal rule at 1200 blocks: %+v (%v)", terminal, e.Terminal)
	}
}
