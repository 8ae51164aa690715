package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvparity/campaignreport"
	"kvparity/e2e"
	"kvparity/engine"
	"kvparity/engine/matrix"
	"kvparity/internal/layout"
)

// --no-instructions is --stage all without the instruction counts; with --stage instructions it
// is a contradiction, refused as a usage error.
func TestRunNoInstructionsFlag(t *testing.T) {
	var errb bytes.Buffer
	o, _, ok := parseRunArgs([]string{"--row", "tiny", "--stage", "all", "--no-instructions"}, &errb)
	if !ok || !o.NoInstructions || o.Stage != "all" {
		t.Fatalf("--stage all --no-instructions: %+v %v %s", o, ok, errb.String())
	}
	if o, _, ok := parseRunArgs([]string{"--row", "tiny", "--stage", "all"}, &errb); !ok || o.NoInstructions {
		t.Fatalf("--stage all counts when the row declares instructions_runs: %+v", o)
	}
	errb.Reset()
	if _, code, ok := parseRunArgs([]string{"--row", "tiny", "--stage", "instructions", "--no-instructions"}, &errb); ok || code != 3 ||
		!strings.Contains(errb.String(), "--no-instructions and --stage instructions exclude each other") {
		t.Fatalf("--stage instructions --no-instructions: exit %d, %q", code, errb.String())
	}
}

// Issue 39, item 4, end to end on a real Slurm with valgrind: a row that declares
// instructions_runs runs as two exclusive jobs, the row's (--no-instructions: its journal has
// no counted run) and the instruction job's, whose campaign DIR/ROW/instructions counts both
// arms. On the one-node cluster the two never share the node (--exclusive), and the row's
// report and the matrix report state the counts as the row's, counted in the job of their own.
func TestMatrixSlurmInstructionJob(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Slurm and valgrind; runs a tiny row's perf stage and counts it under callgrind")
	}
	matrixNeedSlurm(t)
	if _, err := exec.LookPath("valgrind"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("valgrind is missing under CI (.ci/run installs it)")
		}
		t.Skip("valgrind is not installed")
	}
	bin := e2e.Binary(t)
	src, dir := t.TempDir(), filepath.Join(t.TempDir(), "matrix")
	row, err := engine.LoadRow(matrixTinyRow(t, src, "tiny-counted", "", 200))
	if err != nil {
		t.Fatal(err)
	}
	row.Perf.InstructionsRuns = 3
	rowFile := writeRow(t, src, row)
	code, stdout, stderr := e2e.Run(t, bin, 10*time.Minute, "matrix", rowFile, "--campaign", dir, "--slurm", "--stage", "all",
		"--poll", "200ms", "--job-poll", "500ms", "--json")
	if code < 0 || code > 2 { // 4 pairs may not decide the perf gate, and a loaded host blocks it
		t.Fatalf("matrix exit %d\nstdout:\n%s\nstderr:\n%s", code, e2e.Tail(stdout, 40), e2e.Tail(stderr, 40))
	}
	rowDir := filepath.Join(dir, "tiny-counted")
	instrDir := filepath.Join(rowDir, layout.DirInstructions)
	rowJobs, _ := matrix.ReadJobs(rowDir)
	instrJobs, _ := matrix.ReadJobs(instrDir)
	if len(rowJobs) != 1 || !rowJobs[0].Verdict() || len(instrJobs) != 1 || !instrJobs[0].Verdict() || rowJobs[0].JobID == instrJobs[0].JobID {
		out, _ := os.ReadFile(filepath.Join(instrDir, "slurm-"+lastJobID(t, instrDir)+".out"))
		t.Fatalf("jobs: row %+v, instructions %+v\ninstruction job output:\n%s", rowJobs, instrJobs, out)
	}
	rowScript, _ := os.ReadFile(filepath.Join(rowDir, layout.FileJobScript))
	instrScript, _ := os.ReadFile(filepath.Join(instrDir, layout.FileJobScript))
	if !strings.Contains(string(rowScript), " --stage all --no-instructions\n") ||
		!strings.Contains(string(instrScript), " run "+rowFile+" --campaign "+instrDir+" --stage instructions\n") ||
		!strings.Contains(string(instrScript), "#SBATCH --exclusive\n") {
		t.Errorf("job scripts:\n%s\n%s", rowScript, instrScript)
	}
	// The row's job counted nothing; the instruction job counted both arms, three runs each.
	rowRecs, instrRecs := matrixJournal(t, rowDir), matrixJournal(t, instrDir)
	counted := func(recs []engine.Record) int {
		n := 0
		for _, r := range recs {
			if r.Type == engine.RecRunEnd && r.Kind == engine.KindInstructions {
				n++
			}
		}
		return n
	}
	if counted(rowRecs) != 0 || counted(instrRecs) != 6 {
		t.Errorf("counted runs: %d in the row's campaign (want 0), %d in its instruction campaign (want 6)", counted(rowRecs), counted(instrRecs))
	}
	// Both jobs exclusive: on one node (the one-node cluster of scripts/slurm-up.sh) the counts
	// never ran beside the row's perf stage; with two free nodes they ran at once, apart.
	first, second := rowRecs, instrRecs
	if instrRecs[0].At.Before(rowRecs[0].At) {
		first, second = instrRecs, rowRecs
	}
	if rowJobs[0].Node == instrJobs[0].Node && !second[0].At.After(first[len(first)-1].At) {
		t.Errorf("the instruction job shared the node with the row's job: %s..%s overlaps %s", first[0].At, first[len(first)-1].At, second[0].At)
	}
	if ps, err := matrix.ReadPlacements(instrDir); err != nil || len(ps) != 1 || ps[0].JobID != instrJobs[0].JobID {
		t.Errorf("the instruction job's placement: %+v %v", ps, err)
	}
	// The row's report states the counts, counted in the job of their own.
	r, err := campaignreport.Build(rowDir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Instructions == nil || r.InstructionsFrom != layout.DirInstructions || len(r.Instructions.Baseline.Counts) != 3 {
		t.Fatalf("the row's report: instructions %+v from %q note %q", r.Instructions, r.InstructionsFrom, r.InstructionsNote)
	}
	md, _ := os.ReadFile(filepath.Join(rowDir, layout.FileReportMD))
	if !strings.Contains(string(md), "Counted in a Slurm job of their own") {
		t.Errorf("the row's report.md, as written, lacks the counts:\n%s", md)
	}
	rep := readMatrixJSON(t, dir)
	if got := rep.Rows[0]; got.Instructions == nil || got.Instructions.Ratio != r.Instructions.Ratio || got.InstructionsJob == nil || got.InstructionsJob.JobID != instrJobs[0].JobID {
		t.Errorf("matrix.json row: %+v", got)
	}
}
