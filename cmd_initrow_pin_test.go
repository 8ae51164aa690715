package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/engine"
	"kvparity/engine/build"
	"kvparity/verdict"
)

// checkoutFixture is a git checkout at dir shipping the bench crate's trace, with three
// commits on main (so HEAD~2, HEAD^ and main@{1} name older ones), a tag and a branch.
func checkoutFixture(t *testing.T, dir string) (repo string, rev func(string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	trace := filepath.Join(dir, filepath.FromSlash(checkoutTrace))
	if err := os.MkdirAll(filepath.Dir(trace), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(trace, []byte(`{"timestamp":0,"input_length":10,"output_length":2,"hash_ids":[1]}`+"\n"), 0o644)
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-qm", "c1")
	git("tag", "v1")
	for _, c := range []string{"c2", "c3"} {
		os.WriteFile(filepath.Join(dir, c), []byte(c), 0o644)
		git("add", ".")
		git("commit", "-qm", c)
	}
	git("branch", "feature", "HEAD~1")
	return dir, func(ref string) string { return git("rev-parse", "--verify", ref+"^{commit}") }
}

// initRowLoad runs init-row --checkout repo with args into a new row file and loads the row as
// kvparity run does.
func initRowLoad(t *testing.T, repo string, args ...string) (*engine.Row, string) {
	t.Helper()
	rowFile := filepath.Join(t.TempDir(), "desk.toml")
	var out, errb strings.Builder
	if code := initRowCmd(append([]string{"--checkout", repo, "-o", rowFile}, args...), &out, &errb); code != 0 {
		t.Fatalf("init-row %v: exit %d: %s", args, code, errb.String())
	}
	text := mustReadFile(t, rowFile)
	row, err := engine.LoadRow(rowFile)
	if err != nil {
		t.Fatalf("init-row %v wrote a row that does not load: %v\n%s", args, err, text)
	}
	row.WithBaseDir(filepath.Dir(rowFile))
	return row, text
}

// init-row pins what it resolves (issue 42): a baseline of HEAD~2, HEAD^, main@{1}, a tag or a
// short SHA is written as the full SHA it names now, the typed ref in a comment, and the row
// resolves to exactly that commit (HEAD~8 used to write a row run refused; main@{1} one whose
// checkout was "no such folder"). A candidate on a branch or HEAD stays a ref w follows; any
// other candidate ref is pinned the same way.
func TestInitRowPinsWhatItResolves(t *testing.T) {
	repo, rev := checkoutFixture(t, filepath.Join(t.TempDir(), "dynamo"))
	resolved := func(t *testing.T, source string) string {
		t.Helper()
		s, err := engine.ParseSource(source)
		if err != nil {
			t.Fatal(err)
		}
		if s, err = build.Resolve(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		return s.Commit
	}
	for _, ref := range []string{"HEAD", "HEAD~2", "HEAD^", "main@{1}", "v1", rev("HEAD~1")[:8]} {
		want := rev(ref)
		row, text := initRowLoad(t, repo, "--baseline", ref)
		if row.Baseline.Source != "git:"+repo+"@"+want || resolved(t, row.Baseline.Source) != want {
			t.Errorf("--baseline %s: source %q, want the full SHA %s", ref, row.Baseline.Source, want)
		}
		if !strings.Contains(text, `# baseline: --baseline "`+ref+`", pinned to the commit it named then,`) {
			t.Errorf("--baseline %s: the typed ref is not in a comment:\n%s", ref, text)
		}
	}
	for ref, follows := range map[string]bool{"HEAD": true, "feature": true, "HEAD^": false, "main@{1}": false, "v1": false, "HEAD~2": false} {
		want := rev(ref)
		row, text := initRowLoad(t, repo, "--candidate", ref)
		wantSource := "git:" + repo + "@" + want
		if follows {
			wantSource = "git:" + repo + "@" + ref
		}
		if row.Candidate.Source != wantSource || resolved(t, row.Candidate.Source) != want {
			t.Errorf("--candidate %s: source %q, want %q (commit %s)", ref, row.Candidate.Source, wantSource, want)
		}
		if !strings.Contains(text, `# candidate: --candidate "`+ref+`"`) {
			t.Errorf("--candidate %s: the typed ref is not in a comment:\n%s", ref, text)
		}
	}
}

// Whatever the checkout's path holds — a newline, quotes, a backslash, a leading dot — the
// row init-row writes loads and names that checkout (issue 42: the path went raw into a
// comment, and a newline broke the file). A path a source cannot spell (a working tree's
// with '@') is refused with the reason, and no row is written.
func TestInitRowCheckoutPathWithANewlineLoads(t *testing.T) {
	for _, base := range []string{"dyn\namo", "\n.dy\"na\\mo\ttab\x7f", ".hidden"} {
		parent := t.TempDir()
		repo, _ := checkoutFixture(t, filepath.Join(parent, base))
		rowFile := filepath.Join(parent, "rows", "desk.toml")
		os.MkdirAll(filepath.Dir(rowFile), 0o755)
		var out, errb strings.Builder
		if code := initRowCmd([]string{"--checkout", repo, "-o", rowFile}, &out, &errb); code != 0 {
			t.Fatalf("%q: exit %d: %s", base, code, errb.String())
		}
		row, err := engine.LoadRow(rowFile)
		if err != nil {
			t.Fatalf("%q: the row does not load: %v\n%s", base, err, mustReadFile(t, rowFile))
		}
		row.WithBaseDir(filepath.Dir(rowFile))
		if row.Candidate.Source != "worktree:"+repo || !strings.HasPrefix(row.Baseline.Source, "git:"+repo+"@") ||
			row.Trace.Path != filepath.Join(repo, filepath.FromSlash(checkoutTrace)) {
			t.Errorf("%q: arms %q, %q, trace %q", base, row.Baseline.Source, row.Candidate.Source, row.Trace.Path)
		}
	}
	repo, _ := checkoutFixture(t, filepath.Join(t.TempDir(), "dyn@mo"))
	rowFile := filepath.Join(t.TempDir(), "desk.toml")
	var out, errb strings.Builder
	code := initRowCmd([]string{"--checkout", repo, "-o", rowFile}, &out, &errb)
	if code != verdict.ExitUsage || !strings.Contains(errb.String(), "kvparity init-row: the checkout cannot be named in a row: "+rowFile+": [candidate] source:") {
		t.Errorf("a working tree path with '@': exit %d, %s", code, errb.String())
	}
	if _, err := os.Stat(rowFile); err == nil {
		t.Errorf("a refused checkout wrote %s", rowFile)
	}
}
