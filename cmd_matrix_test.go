package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"kvparity/e2e"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvparity/engine"
	"kvparity/engine/matrix"
	"kvparity/internal/layout"
	"kvparity/ui/matrixview"
	"kvparity/verdict"
)

func TestMatrixUsageErrors(t *testing.T) {
	row := filepath.Join(t.TempDir(), "r.toml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{row}, "--campaign DIR is required"},
		{[]string{"--campaign", t.TempDir()}, "no row files given"},
		{[]string{row, "--campaign", t.TempDir(), "--partition", "p"}, "need --slurm"},
		{[]string{row, "--campaign", t.TempDir(), "--stage", "fast"}, `--stage "fast"`},
		{[]string{row, "--campaign", t.TempDir(), "--cpus", "3-1"}, "--cpus"},
		{[]string{row, "--campaign", t.TempDir(), "--slurm", "--resubmit", "-1"}, "--resubmit must be >= 0"},
		{[]string{filepath.Join(t.TempDir(), "absent.toml"), "--campaign", t.TempDir()}, "absent.toml"},
	} {
		var out, errb bytes.Buffer
		if code := runMatrix(c.args, &out, &errb); code != 3 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 3 and %q", c.args, code, errb.String(), c.want)
		}
	}
}

func TestParseInterleaved(t *testing.T) {
	var got []string
	for _, args := range [][]string{
		{"a.toml", "b.toml", "--campaign", "D", "--slurm"},
		{"--campaign", "D", "a.toml", "--slurm", "b.toml"},
		{"--slurm", "--campaign=D", "--", "a.toml", "b.toml"},
	} {
		fs := flag.NewFlagSet("matrix", flag.ContinueOnError)
		fs.String("campaign", "", "")
		fs.Bool("slurm", false, "")
		pos, err := parseInterleaved(fs, args)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join(pos, ","), fs.Lookup("campaign").Value.String(), fs.Lookup("slurm").Value.String())
	}
	want := "a.toml,b.toml D true a.toml,b.toml D true a.toml,b.toml D true"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %s", strings.Join(got, " "))
	}
}

// Shared test helpers: writeTinyRow and writeRow (e2e builds and runs the binary)
// are used by cmd_run_test.go as well.

// writeTinyRow writes the built-in tiny row (200 generated requests) under a new name, with the
// candidate playing an embedded-engine variant ("" for none).
func writeTinyRow(t *testing.T, dir, name, candidateVariant string) string {
	t.Helper()
	r := engine.TinyRow("", candidateVariant)
	r.Name = name
	return writeRow(t, dir, r)
}

// writeRow encodes r into dir/NAME.toml and returns the path.
func writeRow(t *testing.T, dir string, r *engine.Row) string {
	t.Helper()
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, r.Name+".toml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// matrixTinyRow writes the built-in tiny row under a new name, with the candidate playing an
// embedded-engine variant ("" for none) on a generated trace of the given size. The pressure
// band is wide: these tests are about scheduling, not about a fixture's pressure count.
func matrixTinyRow(t *testing.T, dir, name, candidateVariant string, requests int) string {
	t.Helper()
	r := engine.TinyRow("", candidateVariant)
	r.Name = name
	r.Trace = engine.TraceSpec{Path: fmt.Sprintf("generated:conversation?seed=7&requests=%d", requests), Count: requests}
	r.Determinism.PressureBand = []int{1, 1000}
	r.Perf.Pairs, r.Perf.WarmupsPerArm = 4, 2
	// G1 capacity at the pressure edge for the window: a few preemptions, every request completes
	// (measured on the embedded engine: 1,700 blocks for 200 requests, 3,000 for 2,000).
	blocks := "1700"
	if requests > 200 {
		blocks = "3000"
	}
	for i, a := range r.Replay.Args {
		if a == "--num-gpu-blocks" && i+1 < len(r.Replay.Args) {
			r.Replay.Args[i+1] = blocks
		}
	}
	return writeRow(t, dir, r)
}

// Without --slurm the rows run one after another through kvparity run's own code path, and the
// same matrix report comes out.
func TestMatrixLocalEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kvparity with go build and runs a two-row matrix of tiny campaigns")
	}
	bin := e2e.Binary(t)
	src, dir := t.TempDir(), filepath.Join(t.TempDir(), "matrix")
	rowA := matrixTinyRow(t, src, "local-a", "", 200)
	rowB := matrixTinyRow(t, src, "local-b", "leak-random-uuid", 200)
	code, stdout, stderr := e2e.Run(t, bin, 5*time.Minute, "matrix", rowA, rowB, "--campaign", dir, "--poll", "100ms")
	if code != 1 {
		t.Fatalf("an UNSTABLE candidate fails the matrix (exit 1), got %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"local-a", "node ", "determinism 4/4", "semantic PASS", "local-b", "matrix " + dir + ": FAIL (exit 1)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("progress lacks %q:\n%s", want, stdout)
		}
	}
	rep := readMatrixJSON(t, dir)
	a, b := rep.Rows[0], rep.Rows[1]
	if a.Mode != "local" || a.Stage != matrix.RowStageDone || a.Semantic.Verdict != verdict.Pass || a.Determinism.Baseline.Verdict != verdict.Stable || *a.RunExitCode != 0 {
		t.Errorf("row a: %+v", a)
	}
	if b.Determinism.Candidate.Verdict != verdict.Unstable || !strings.HasPrefix(b.CandidateDigest, "UNSTABLE") || *b.RunExitCode != 1 {
		t.Errorf("row b: %+v", b)
	}
	if a.ReportMD != "local-a/report.md" || b.ReportJSON != "local-b/report.json" {
		t.Errorf("the rows' reports are written and linked: %q %q", a.ReportMD, b.ReportJSON)
	}
	out, _ := os.ReadFile(filepath.Join(dir, "local-a", layout.FileLocalRunOutput))
	if !strings.Contains(string(out), "parity: PASS") {
		t.Errorf("local-a run output:\n%s", out)
	}
	// Rerunning the matrix runs nothing again: both rows have a verdict.
	code, stdout, _ = e2e.Run(t, bin, time.Minute, "matrix", rowA, rowB, "--campaign", dir)
	if code != 1 || !strings.Contains(stdout, "already has a verdict") {
		t.Fatalf("rerun: exit %d\n%s", code, stdout)
	}
	if jobs, _ := matrix.ReadJobs(filepath.Join(dir, "local-a")); len(jobs) != 1 {
		t.Fatalf("rerun started row a again: %+v", jobs)
	}
}

// The matrix view opens a row's workbench only once nothing else writes the row's journal.
func TestOpenRowCmdWaitsForTheRowToEnd(t *testing.T) {
	open := openRowCmd("/usr/bin/kvparity")
	for _, c := range []struct {
		row  matrix.RowStatus
		want string
	}{
		{matrix.RowStatus{Row: "a", Mode: "slurm", JobID: "7", JobState: matrix.JobPending, Stage: matrix.RowStageQueued}, "row a is pending (queued)"},
		{matrix.RowStatus{Row: "b", Mode: "local", JobState: matrix.JobRunning, Stage: matrix.RowStagePerf, Done: 3, Total: 60}, "row b is running (perf 3/60)"},
		{matrix.RowStatus{Row: "c", Stage: matrix.RowStageWaiting}, "row c has no campaign yet"},
	} {
		msg := open(c.row)()
		if note, ok := msg.(matrixview.NoteMsg); !ok || !strings.Contains(string(note), c.want) {
			t.Errorf("row %s: got %v, want a note %q", c.row.Row, msg, c.want)
		}
	}
	done := matrix.RowStatus{Row: "d", Mode: "slurm", JobID: "8", JobState: matrix.JobCompleted, Stage: matrix.RowStageDone, Records: 30, Dir: "/m/d"}
	if cmd := open(done); cmd == nil {
		t.Fatal("a finished row opens")
	} else if _, isNote := cmd().(matrixview.NoteMsg); isNote {
		t.Fatal("a finished row opens the workbench, not a note")
	}
}

// The matrix view in a real terminal (tmux): it follows a local row to its verdict, shows the
// matrix's end, and q quits.
func TestMatrixViewInATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kvparity with go build and runs a matrix campaign under tmux")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but tmux is missing: %v", err)
		}
		t.Skip("tmux not installed")
	}
	bin := e2e.Binary(t)
	src, dir := t.TempDir(), filepath.Join(t.TempDir(), "matrix")
	row := matrixTinyRow(t, src, "view-row", "", 200)
	socket := fmt.Sprintf("kvparity-matrixview-%d", os.Getpid())
	tm := func(args ...string) (string, error) {
		out, err := exec.Command(tmux, append([]string{"-L", socket}, args...)...).CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() { tm("kill-server") })
	// More than one argument: tmux execs the command itself, no shell in between.
	if out, err := tm("new-session", "-d", "-x", "120", "-y", "12", "-s", "m", "--", bin, "matrix", row, "--campaign", dir, "--view"); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	screen := ""
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(screen, "matrix PASS (exit 0)") {
		if time.Now().After(deadline) {
			t.Fatalf("the view never showed the matrix's end:\n%s", screen)
		}
		time.Sleep(200 * time.Millisecond)
		screen, _ = tm("capture-pane", "-p", "-t", "m")
	}
	for _, want := range []string{"MATRIX " + dir, "▸ view-row", "local", "done", "semantic PASS", "enter open row · q quit"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if out, err := tm("send-keys", "-t", "m", "q"); err != nil {
		t.Fatalf("send-keys: %v %s", err, out)
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		if _, err := tm("has-session", "-t", "m"); err != nil {
			break // the program quit and its session closed
		}
		if time.Now().After(deadline) {
			t.Fatal("q did not quit the view")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if rep := readMatrixJSON(t, dir); rep.Overall.Verdict != verdict.Pass {
		t.Fatalf("matrix.json: %+v", rep)
	}
}

// After "--" every argument is positional, even one that looks like a flag; -h is ErrHelp.
func TestParseInterleavedTerminatorAndHelp(t *testing.T) {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	all := fs.Bool("all", false, "")
	pos, err := parseInterleaved(fs, []string{"a.jsonl", "--", "--all", "-b.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(pos, ",") != "a.jsonl,--all,-b.jsonl" || *all {
		t.Fatalf("positionals %q, --all %v; want a.jsonl,--all,-b.jsonl and false", pos, *all)
	}
	fs = flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if _, err := parseInterleaved(fs, []string{"a.jsonl", "-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h gave %v; want flag.ErrHelp", err)
	}
}
