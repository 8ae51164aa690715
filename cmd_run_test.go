package main

import (
	"bytes"
	"encoding/json"
	"kvparity/e2e"
	"kvparity/engine/journal"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"kvparity/engine"
	"kvparity/headless"
)

func decodeSummary(t *testing.T, out string) headless.Document {
	t.Helper()
	var s headless.Document
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, out)
	}
	return s
}

func TestRunTinyRowWithTheEmbeddedEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kvparity with go build and runs the tiny row's campaign in it, twice")
	}
	bin := e2e.Binary(t)
	dir := filepath.Join(t.TempDir(), "c")
	code, out, errOut := e2e.Run(t, bin, 3*time.Minute, "run", "--row", "tiny", "--campaign", dir, "--json")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	s := decodeSummary(t, out)
	b, c := s.Arms[engine.Baseline], s.Arms[engine.Candidate]
	if b.Verdict != "STABLE" || c.Verdict != "STABLE" || s.Parity.Verdict != "PASS" || s.Coverage.Verdict != "PASS" {
		t.Fatalf("summary %+v %+v %+v", b, c, s)
	}
	if len(b.Runs) != 2 || b.Runs[0].Digest == "" || b.Runs[0].Digest != c.Runs[1].Digest {
		t.Fatalf("digests %+v %+v", b.Runs, c.Runs)
	}
	if ev := b.Evidence; ev == nil || ev.PreemptionsTotal < engine.TinyPressureBand[0] || ev.PreemptionsTotal > engine.TinyPressureBand[1] || ev.Handoffs == nil || ev.Terminal["completed"] != 200 {
		t.Fatalf("evidence %+v", ev)
	}
	if !strings.Contains(errOut, "det/baseline-1") || !strings.Contains(errOut, "parity: PASS") {
		t.Fatalf("progress on stderr:\n%s", errOut)
	}
	// Rerunning the finished campaign runs nothing again and gives the same verdict.
	code, out2, errOut2 := e2e.Run(t, bin, 3*time.Minute, "run", "--row", "tiny", "--campaign", dir, "--json")
	if code != 0 || strings.Contains(errOut2, "started") {
		t.Fatalf("rerun: exit %d, stderr:\n%s", code, errOut2)
	}
	if s2 := decodeSummary(t, out2); s2.Arms[engine.Baseline].Runs[0].Digest != b.Runs[0].Digest {
		t.Fatal("rerun changed the recorded digests")
	}
}

func TestRunVariantsGiveTheProtocolVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kvparity with go build and runs two tiny-row campaigns in it")
	}
	bin := e2e.Binary(t)
	rows := t.TempDir()
	t.Run("leak-random-uuid", func(t *testing.T) {
		row := writeTinyRow(t, rows, "leak", "leak-random-uuid")
		code, out, errOut := e2e.Run(t, bin, 3*time.Minute, "run", row, "--stage", "all", "--campaign", filepath.Join(t.TempDir(), "c"), "--json")
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
		}
		s := decodeSummary(t, out)
		if s.Arms[engine.Candidate].Verdict != "UNSTABLE" || s.Arms[engine.Baseline].Verdict != "STABLE" || s.Parity.Verdict != "BLOCKED" {
			t.Fatalf("summary %+v", s)
		}
		if !strings.Contains(errOut, "perf: performance refused: candidate is UNSTABLE") {
			t.Fatalf("perf not refused with a clear message:\n%s", errOut)
		}
		for _, r := range s.Arms[engine.Candidate].Runs {
			if r.Report == "" {
				t.Errorf("%s: the unstable arm's report was deleted", r.Run)
			}
		}
	})
	t.Run("fifo-preemption", func(t *testing.T) {
		row := writeTinyRow(t, rows, "fifo", "fifo-preemption")
		code, out, errOut := e2e.Run(t, bin, 3*time.Minute, "run", row, "--campaign", filepath.Join(t.TempDir(), "c"), "--json")
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
		}
		s := decodeSummary(t, out)
		if s.Arms[engine.Candidate].Verdict != "STABLE" || s.Parity.Verdict != "FAIL" {
			t.Fatalf("summary %+v", s)
		}
		for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
			if rep := s.Arms[arm].Runs[0].Report; rep == "" {
				t.Errorf("%s report not kept although parity failed", arm)
			} else if _, err := os.Stat(rep); err != nil {
				t.Error(err)
			}
		}
	})
}

func TestRunSIGKILLMidStageResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kvparity with go build, SIGKILLs a default-row campaign mid-stage and resumes it")
	}
	bin := e2e.Binary(t)
	rows := t.TempDir()
	// 5,000 requests: each replay takes long enough to be killed in the middle of the stage.
	r := engine.DefaultRow()
	r.Name = "kill"
	b, _ := r.Encode()
	row := filepath.Join(rows, "kill.toml")
	os.WriteFile(row, b, 0o644)
	dir := filepath.Join(t.TempDir(), "c")

	cmd := exec.Command(bin, "run", row, "--campaign", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	finishedBefore := map[engine.RunID]bool{}
	deadline := time.Now().Add(2 * time.Minute)
	for len(finishedBefore) == 0 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no repetition finished in time")
		}
		time.Sleep(50 * time.Millisecond)
		finishedBefore = finishedRuns(t, dir)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	finishedBefore = finishedRuns(t, dir)
	if len(finishedBefore) >= 4 {
		t.Skip("the stage finished before the kill landed")
	}

	code, out, errOut := e2e.Run(t, bin, 3*time.Minute, "run", row, "--campaign", dir, "--json")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errOut)
	}
	for run := range finishedBefore {
		if regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(string(run)) + `\s+started`).MatchString(errOut) {
			t.Errorf("finished repetition %s was rerun", run)
		}
	}
	after := finishedRuns(t, dir)
	if len(after) != 4 {
		t.Fatalf("%d finished repetitions after resume, want 4: %v", len(after), after)
	}
	for run := range finishedBefore {
		if !after[run] {
			t.Errorf("finished repetition %s lost", run)
		}
	}
	s := decodeSummary(t, out)
	if s.Parity.Verdict != "PASS" {
		t.Fatalf("summary %+v", s)
	}
}

// finishedRuns reads the journal and returns the repetitions recorded as finished, failing on
// a repetition recorded twice.
func finishedRuns(t *testing.T, dir string) map[engine.RunID]bool {
	t.Helper()
	path := filepath.Join(dir, "journal.jsonl")
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	j, _, err := journal.Read[engine.Record](path, journal.RefuseDamage)
	if err != nil {
		t.Fatal(err)
	}
	m := map[engine.RunID]bool{}
	seen := map[string]bool{}
	for _, r := range j {
		if r.Type != engine.RecRunEnd || r.Error != "" || r.Kind != engine.KindRepetition {
			continue // the plain repetitions (the preflight and perturbed runs are checked apart)
		}
		key := string(r.Arm) + "/" + string(rune('0'+r.Index))
		if seen[key] {
			t.Errorf("repetition %s recorded twice", key)
		}
		seen[key] = true
		m[r.Run] = true
	}
	return m
}

func TestRunAndInitRowInputErrors(t *testing.T) {
	var out, errOut bytes.Buffer
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte(strings.Replace(engine.ExampleRowTOML, "pairs = 60", "pairs = 0", 1)), 0o644)
	if code := dispatch([]string{"run", bad}, &out, &errOut); code != 3 || !strings.Contains(errOut.String(), "bad.toml: [perf] pairs: 0 is out of bounds: must be 2..10000") {
		t.Fatalf("bad row: exit %d, %s", code, errOut.String())
	}
	errOut.Reset()
	if code := dispatch([]string{"run", "--stage", "soon"}, &out, &errOut); code != 3 || !strings.Contains(errOut.String(), "--stage \"soon\"") {
		t.Fatalf("bad stage: exit %d, %s", code, errOut.String())
	}
	errOut.Reset()
	if code := dispatch([]string{"run", "--row", "huge"}, &out, &errOut); code != 3 || !strings.Contains(errOut.String(), "the built-in rows are default and tiny") {
		t.Fatalf("bad --row: exit %d, %s", code, errOut.String())
	}
	row := filepath.Join(dir, "my-row.toml")
	if code := dispatch([]string{"init-row", "-o", row}, &out, &errOut); code != 0 {
		t.Fatalf("init-row: %d %s", code, errOut.String())
	}
	if _, err := engine.LoadRow(row); err != nil {
		t.Fatalf("init-row wrote a row that does not load: %v", err)
	}
	errOut.Reset()
	if code := dispatch([]string{"init-row", "-o", row}, &out, &errOut); code != 3 || !strings.Contains(errOut.String(), "exists") {
		t.Fatalf("init-row overwrote %s: %d %s", row, code, errOut.String())
	}
	out.Reset()
	if code := dispatch([]string{"init-row"}, &out, &errOut); code != 0 || out.String() != engine.ExampleRowTOML {
		t.Fatalf("init-row to stdout: %d", code)
	}
}
