package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/engine"
	"kvparity/verdict"
)

// kvparity bisect refuses what it cannot bisect before building anything, naming the flag or
// the row's key at fault. (bisect's tests run whole bisects with a fake toolchain.)
func TestBisectCommandRefusesWhatItCannotBisect(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "dynamo")
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "README"), []byte("x\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "one"}} {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	writeRow := func(name, candidate string) string {
		r := engine.TinyRow("", "")
		r.Candidate = engine.ArmSpec{Source: candidate, Features: []string{"replay-bench"}}
		b, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	gitRow := writeRow("git.toml", "git:"+repo+"@HEAD")
	crateRow := writeRow("crate.toml", "crate:dynamo-bench@1.6.1")
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{gitRow, "--good", "HEAD"}, "usage: kvparity bisect"},
		{[]string{gitRow, "--good", "HEAD", "--bad", "HEAD", "--judge", "speed"}, `--judge "speed": use semantic, determinism, perf or instructions`},
		{[]string{crateRow, "--good", "HEAD", "--bad", "HEAD"}, `bisect needs a candidate source = "git:PATH@REF"`},
		{[]string{gitRow, "--good", "nosuchref", "--bad", "HEAD"}, "--good: " + repo + " has no commit nosuchref"},
		{[]string{gitRow, "--good", "HEAD", "--bad", "HEAD"}, "has no commit after --good"},
		{[]string{gitRow, "--good", "HEAD", "--bad", "HEAD", "--view", "--json"}, "--view and --json exclude each other"},
		{[]string{gitRow, "--good", "HEAD", "--bad", "HEAD", "--view"}, "--view needs a terminal"},
	} {
		var out, errb bytes.Buffer
		if code := bisectCmd(append(c.args, "--dir", filepath.Join(dir, "b")), &out, &errb); code != verdict.ExitUsage || !strings.Contains(errb.String(), c.says) {
			t.Errorf("kvparity bisect %s: exit %d, stderr %q; want %d saying %q", strings.Join(c.args, " "), code, errb.String(), verdict.ExitUsage, c.says)
		}
	}
}
