package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/engine"
)

func TestInitRowForACheckout(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := filepath.Join(t.TempDir(), "dynamo")
	trace := filepath.Join(repo, filepath.FromSlash(checkoutTrace))
	os.MkdirAll(filepath.Dir(trace), 0o755)
	os.WriteFile(trace, []byte(`{"timestamp":0,"input_length":10,"output_length":2,"hash_ids":[1]}`+"\n"), 0o644)
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-qm", "base")
	rowFile := filepath.Join(filepath.Dir(repo), "rows", "desk.toml")
	os.MkdirAll(filepath.Dir(rowFile), 0o755)
	var out, errb strings.Builder
	if code := initRowCmd([]string{"--checkout", repo, "-o", rowFile}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	row, err := engine.LoadRow(rowFile)
	if err != nil {
		t.Fatalf("the written row does not load: %v\n%s", err, mustReadFile(t, rowFile))
	}
	row.WithBaseDir(filepath.Dir(rowFile)) // as kvparity run reads it
	// The baseline is pinned to the commit HEAD names now (issue 42), no longer HEAD itself.
	head, _ := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Output()
	sha := strings.TrimSpace(string(head))
	if row.Baseline.Source != "git:"+repo+"@"+sha || row.Candidate.Source != "worktree:"+repo || row.Trace.Path != trace {
		t.Errorf("arms %q, %q, trace %q", row.Baseline.Source, row.Candidate.Source, row.Trace.Path)
	}
	text := mustReadFile(t, rowFile)
	if !strings.Contains(text, `source   = "git:../dynamo@`+sha+`"`) {
		t.Errorf("the checkout is not named relative to the row's folder:\n%s", text)
	}
	errb.Reset()
	if code := initRowCmd([]string{"--checkout", repo, "--candidate", "no-such-branch"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "--candidate: "+repo+" has no commit no-such-branch") {
		t.Errorf("a missing candidate ref: exit %d, %s", code, errb.String())
	}
	errb.Reset()
	if code := initRowCmd([]string{"--checkout", filepath.Join(repo, "nope")}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "no such folder") {
		t.Errorf("a missing checkout: exit %d, %s", code, errb.String())
	}
}

func mustReadFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
