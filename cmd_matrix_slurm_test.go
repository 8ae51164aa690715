package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"kvparity/e2e"
	"kvparity/e2e/realrow"
	"kvparity/engine/journal"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kvparity/campaignreport"
	"kvparity/engine"
	"kvparity/engine/build"
	"kvparity/engine/matrix"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// These tests run kvparity matrix against a real Slurm (scripts/slurm-up.sh starts a one-node
// cluster; .ci/slurm-setup.sh does it in CI). With CI set they fail when no controller answers;
// elsewhere they skip.

func matrixNeedSlurm(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := (&matrix.Slurm{}).Available(ctx); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but Slurm is not available (run .ci/slurm-setup.sh): %v", err)
		}
		t.Skipf("no Slurm here (scripts/slurm-up.sh starts one): %v", err)
	}
}

func readMatrixJSON(t *testing.T, dir string) campaignreport.MatrixReport {
	t.Helper()
	var rep campaignreport.MatrixReport
	b, err := os.ReadFile(filepath.Join(dir, layout.FileMatrixJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("%s: %v", layout.FileMatrixJSON, err)
	}
	return rep
}

func matrixJournal(t *testing.T, rowDir string) []engine.Record {
	t.Helper()
	recs, _, err := journal.Read[engine.Record](filepath.Join(rowDir, layout.FileJournal), journal.SkipDamagedTail)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// Two tiny built-in rows, one job each through sbatch: a passing row and one whose candidate
// changes semantics (parity FAIL). Both rows' campaigns, placements and the matrix report are
// checked, and the two jobs never overlap on the node.
func TestMatrixSlurmTwoRows(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Slurm, builds kvparity with go build and runs a matrix through sbatch")
	}
	matrixNeedSlurm(t)
	bin := e2e.Binary(t)
	src, dir := t.TempDir(), filepath.Join(t.TempDir(), "matrix")
	rowA := matrixTinyRow(t, src, "tiny-pass", "", 200)
	rowB := matrixTinyRow(t, src, "tiny-fifo", "fifo-preemption", 200)
	code, stdout, stderr := e2e.Run(t, bin, 8*time.Minute, "matrix", rowA, rowB, "--campaign", dir,
		"--slurm", "--poll", "200ms", "--job-poll", "500ms", "--json")
	if code != 1 {
		t.Fatalf("a parity FAIL row makes the matrix exit 1, got %d\nstderr:\n%s", code, stderr)
	}
	var printed campaignreport.MatrixReport
	if err := json.Unmarshal([]byte(stdout), &printed); err != nil {
		t.Fatalf("--json stdout is not the matrix report: %v\n%s", err, stdout)
	}
	rep := readMatrixJSON(t, dir)
	if rep.Overall.Verdict != verdict.Fail || len(rep.Rows) != 2 || printed.Overall.Verdict != verdict.Fail {
		t.Fatalf("matrix.json: %+v", rep)
	}
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	a, b := rep.Rows[0], rep.Rows[1]
	for _, r := range rep.Rows {
		if r.Mode != "slurm" || r.JobID == "" || r.Node != host || r.CPUs == "" || r.Stage != matrix.RowStageDone || r.Attempts != 1 {
			out, _ := os.ReadFile(filepath.Join(dir, r.Row, "slurm-"+r.JobID+".out"))
			t.Errorf("row %s placement/stage: %+v\njob output:\n%s", r.Row, r, out)
		}
		if r.Determinism.Baseline.Verdict != verdict.Stable || r.Determinism.Candidate.Verdict != verdict.Stable || len(r.BaselineDigest) != 64 || len(r.CandidateDigest) != 64 {
			t.Errorf("row %s determinism: %+v", r.Row, r)
		}
		rowDir := filepath.Join(dir, r.Row)
		// The job wrote the row's own report, and the matrix links it.
		if r.ReportMD != r.Row+"/report.md" || r.ReportJSON != r.Row+"/report.json" {
			t.Errorf("row %s report links: %q %q", r.Row, r.ReportMD, r.ReportJSON)
		}
		if b, err := os.ReadFile(filepath.Join(dir, r.ReportMD)); err != nil || !strings.Contains(string(b), r.Row) {
			t.Errorf("row %s report.md: %v", r.Row, err)
		}
		ps, err := matrix.ReadPlacements(rowDir)
		if err != nil || len(ps) != 1 || ps[0].JobID != r.JobID || ps[0].Mode != "slurm" || ps[0].Node != host {
			t.Errorf("row %s placement.json: %+v %v", r.Row, ps, err)
		}
		jobs, err := matrix.ReadJobs(rowDir)
		if err != nil || len(jobs) != 1 || jobs[0].JobID != r.JobID || !slices.Contains(jobs[0].Command, filepath.Join(rowDir, layout.FileJobScript)) {
			t.Errorf("row %s jobs.json: %+v %v", r.Row, jobs, err)
		}
		// The row's own journal ends with the job's end and where it ran.
		recs := matrixJournal(t, rowDir)
		if len(recs) == 0 { // a row whose job never started: say so instead of indexing nothing
			t.Errorf("row %s: its journal has no record", r.Row)
			continue
		}
		var jr matrix.JobRecord
		if last := recs[len(recs)-1]; last.Type != matrix.RecMatrixJob || json.Unmarshal(last.Data, &jr) != nil ||
			jr.JobID != r.JobID || jr.Placement == nil || jr.Placement.JobID != r.JobID || jr.Placement.AllowedCPUs != r.CPUs {
			t.Errorf("row %s: last journal record %+v (job %+v)", r.Row, last, jr)
		}
		out, err := os.ReadFile(filepath.Join(rowDir, "slurm-"+r.JobID+".out"))
		if err != nil || !strings.Contains(string(out), "kvparity: job "+r.JobID+" on "+host) || !strings.Contains(string(out), "row "+r.Row) {
			t.Errorf("row %s job output: %v\n%s", r.Row, err, out)
		}
		script, _ := os.ReadFile(filepath.Join(rowDir, layout.FileJobScript))
		if !strings.Contains(string(script), "#SBATCH --exclusive") || !strings.Contains(string(script), " run "+filepath.Join(src, r.Row+".toml")+" --campaign "+rowDir) {
			t.Errorf("row %s job script:\n%s", r.Row, script)
		}
	}
	if a.Semantic.Verdict != verdict.Pass || a.BaselineDigest != a.CandidateDigest || *a.RunExitCode != 0 || a.JobState != matrix.JobCompleted {
		t.Errorf("passing row: %+v", a)
	}
	if b.Semantic.Verdict != verdict.Fail || b.BaselineDigest == b.CandidateDigest || *b.RunExitCode != 1 || b.JobState != matrix.JobFailed {
		t.Errorf("failing row: %+v", b)
	}
	if a.BaselineDigest != b.BaselineDigest {
		t.Errorf("both rows' baselines replay the same window with the same engine: %s vs %s", a.BaselineDigest, b.BaselineDigest)
	}
	md, _ := os.ReadFile(filepath.Join(dir, layout.FileMatrixMD))
	for _, want := range []string{"overall **FAIL**", "| tiny-pass | " + host + " | " + a.JobID, "| tiny-fifo |",
		"[report.md](tiny-pass/report.md) [report.json](tiny-pass/report.json)",
		"- tiny-fifo: baseline `" + b.BaselineDigest + "`, candidate `" + b.CandidateDigest + "`"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("matrix.md lacks %q:\n%s", want, md)
		}
	}
	// --exclusive on a one-node cluster: the second row's journal starts after the first ended.
	ra, rb := matrixJournal(t, filepath.Join(dir, a.Row)), matrixJournal(t, filepath.Join(dir, b.Row))
	first, second := ra, rb
	if rb[0].At.Before(ra[0].At) {
		first, second = rb, ra
	}
	if !second[0].At.After(first[len(first)-1].At) {
		t.Errorf("two rows shared the node: %s..%s overlaps %s", first[0].At, first[len(first)-1].At, second[0].At)
	}
}

// A job cancelled mid-way through the performance stage is recorded as environmental and the
// row resumes from its journal, on the same node: once through --resubmit (the matrix
// resubmits by itself), once by running the same command again. Nothing is lost: every record
// written before each cancel is still there, byte for byte, and no finished repetition,
// finished warmup or valid pair is run again (protocol: retain every attempted sample; only the
// pair in flight is rerun, whole and in the same order).
func TestMatrixSlurmResumeAfterCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Slurm, builds kvparity with go build and cancels and resumes a matrix job")
	}
	matrixNeedSlurm(t)
	bin := e2e.Binary(t)
	src, dir := t.TempDir(), filepath.Join(t.TempDir(), "matrix")
	row := matrixTinyRow(t, src, "tiny-resume", "", 2000) // ~0.3 s per replay: time to cancel mid-run
	rowDir := filepath.Join(dir, "tiny-resume")
	args := []string{"matrix", row, "--campaign", dir, "--slurm", "--stage", "all", "--poll", "200ms", "--job-poll", "300ms"}

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--resubmit", "1")...)
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// First cancel: the matrix resubmits the row by itself (--resubmit 1).
	before1 := matrixCancelMidPerf(t, rowDir, 1, 2, &errb)
	// Second cancel, once the resubmitted job has measured something: resubmissions are used up.
	before2 := matrixCancelMidPerf(t, rowDir, 2, matrixPerfEnds(before1)+1, &errb)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("an interrupted row leaves the matrix unfinished (exit 2), got %v\nstderr:\n%s", err, errb.String())
	}
	jobs, _ := matrix.ReadJobs(rowDir)
	if len(jobs) != 2 || jobs[0].State != matrix.JobCancelled || !jobs[0].Environmental || jobs[1].State != matrix.JobCancelled || !jobs[1].Environmental {
		t.Fatalf("both cancelled jobs must be recorded as environmental: %+v", jobs)
	}
	if rep := readMatrixJSON(t, dir); rep.Rows[0].Stage != matrix.RowStageInterrupted || len(rep.Rows[0].Environmental) != 2 {
		t.Fatalf("matrix.json after the cancels: %+v", rep.Rows[0])
	}
	matrixWaitNoProcess(t, rowDir)

	// Resubmit by running the same command again.
	t.Logf("the matrix recorded both cancels; running it again")
	code, stdout, stderr := e2e.Run(t, bin, 8*time.Minute, args...)
	if code < 0 || code > 2 { // a verdict: 4 pairs rarely decide the perf gate, a loaded host blocks it
		out, _ := os.ReadFile(filepath.Join(rowDir, "slurm-"+lastJobID(t, rowDir)+".out"))
		t.Fatalf("resumed matrix exit %d\nstdout:\n%s\nstderr:\n%s\njob output:\n%s", code, stdout, stderr, out)
	}
	after := matrixJournal(t, rowDir)
	matrixCheckResumed(t, before1, before2)
	matrixCheckResumed(t, before2, after)

	jobs, _ = matrix.ReadJobs(rowDir)
	if len(jobs) != 3 || !jobs[2].Verdict() {
		t.Fatalf("third job: %+v", jobs)
	}
	for _, j := range jobs[1:] {
		if !slices.Contains(j.Command, "--nodelist="+jobs[0].Node) {
			t.Errorf("a resubmitted row goes back to its node: %v", j.Command)
		}
	}
	if matrixCountType(after, matrix.RecMatrixJob) != 3 {
		t.Errorf("each job end is in the row's journal: %d matrix_job records", matrixCountType(after, matrix.RecMatrixJob))
	}
	rep := readMatrixJSON(t, dir)
	r := rep.Rows[0]
	if r.Attempts != 3 || r.Semantic.Verdict != verdict.Pass || len(r.Environmental) != 2 || !strings.Contains(r.Environmental[1], "CANCELLED") {
		t.Fatalf("matrix.json after the resume: %+v", r)
	}
	switch {
	case r.Stage == matrix.RowStageDone && r.Performance.Verdict.Decided():
		if n := len(matrixPairNumbers(t, after)); n != 4 {
			t.Errorf("perf verdict %s with %d valid pairs, want 4", r.Performance.Verdict, n)
		}
	case r.Stage == matrix.RowStageBlocked && strings.Contains(strings.Join(r.Blocked, "; "), "invalidated"):
		// A loaded host (other test binaries on the CPU) invalidates pairs until the engine
		// declares the node unfit; the resume itself is what this test checks.
		t.Logf("perf blocked by competing load on this host: %s", r.Blocked)
	default:
		t.Fatalf("the resumed row ended neither with a perf verdict nor blocked by load: %+v", r)
	}
	ps, _ := matrix.ReadPlacements(rowDir)
	if len(ps) != 3 || ps[2].JobID != jobs[2].JobID {
		t.Fatalf("placements: %+v", ps)
	}
	for _, p := range ps {
		if p.Node != ps[0].Node {
			t.Fatalf("the row's jobs ran on different nodes: %+v", ps)
		}
	}
}

// matrixCancelMidPerf waits until the row's jobs.json has n jobs, the journal holds at least
// minEnds ended perf processes and the next perf process has just started; then it cancels the
// n-th job and returns the journal as it was just before.
func matrixCancelMidPerf(t *testing.T, rowDir string, n, minEnds int, matrixErr *strings.Builder) []engine.Record {
	t.Helper()
	deadline := time.Now().Add(4 * time.Minute)
	for {
		if time.Now().After(deadline) {
			t.Fatalf("job %d never got to its perf stage within 4 min; matrix stderr:\n%s", n, matrixErr.String())
		}
		time.Sleep(50 * time.Millisecond)
		jobs, err := matrix.ReadJobs(rowDir)
		if err != nil || len(jobs) != n {
			continue
		}
		recs, _, err := journal.Read[engine.Record](filepath.Join(rowDir, layout.FileJournal), journal.SkipDamagedTail)
		if err != nil || len(recs) == 0 {
			continue
		}
		last := recs[len(recs)-1]
		if matrixPerfEnds(recs) >= minEnds && last.Type == engine.RecRunStart && last.Kind != engine.KindRepetition {
			t.Logf("cancelling job %s after %d journal records (%d perf processes ended)", jobs[n-1].JobID, len(recs), matrixPerfEnds(recs))
			if out, err := exec.Command("scancel", jobs[n-1].JobID).CombinedOutput(); err != nil {
				t.Fatalf("scancel: %v %s", err, out)
			}
			return recs
		}
	}
}

// matrixCheckResumed checks that the journal after a resume keeps everything recorded before,
// byte for byte, and that no process finished before was started again.
func matrixCheckResumed(t *testing.T, before, after []engine.Record) {
	t.Helper()
	if len(after) <= len(before) {
		t.Fatalf("the resumed job recorded nothing: %d records before, %d after", len(before), len(after))
	}
	for i, r := range before {
		a, _ := json.Marshal(after[i])
		b, _ := json.Marshal(r)
		if string(a) != string(b) {
			t.Fatalf("record %d changed across the resume:\n%s\n%s", i, b, a)
		}
	}
	done := map[string]bool{}
	for _, r := range before {
		if r.Type == engine.RecRunEnd && r.Error == "" && (r.Kind == engine.KindRepetition || r.Kind == engine.KindWarmup) {
			done[fmt.Sprintf("%s/%s/%d", r.Kind, r.Arm, r.Index)] = true
		}
	}
	for _, r := range after[len(before):] {
		if r.Type == engine.RecRunStart && done[fmt.Sprintf("%s/%s/%d", r.Kind, r.Arm, r.Index)] {
			t.Errorf("finished %s %s #%d was run again after the resume (%s)", r.Kind, r.Arm, r.Index, r.Run)
		}
	}
	pairsBefore, pairsAfter := matrixPairNumbers(t, before), matrixPairNumbers(t, after)
	for p := range pairsBefore {
		if pairsAfter[p] != 1 {
			t.Errorf("pair %d, valid before the cancel, has %d valid records after the resume", p, pairsAfter[p])
		}
	}
}

func lastJobID(t *testing.T, rowDir string) string {
	t.Helper()
	jobs, err := matrix.ReadJobs(rowDir)
	if err != nil || len(jobs) == 0 {
		return "none"
	}
	return jobs[len(jobs)-1].JobID
}

// matrixPerfEnds counts the perf processes (warmups and samples) that ended.
func matrixPerfEnds(recs []engine.Record) int {
	n := 0
	for _, r := range recs {
		if r.Type == engine.RecRunEnd && (r.Kind == engine.KindWarmup || r.Kind == engine.KindSample) {
			n++
		}
	}
	return n
}

func matrixCountType(recs []engine.Record, typ engine.RecordType) int {
	n := 0
	for _, r := range recs {
		if r.Type == typ {
			n++
		}
	}
	return n
}

// matrixPairNumbers counts the valid pair records per pair number.
func matrixPairNumbers(t *testing.T, recs []engine.Record) map[int]int {
	t.Helper()
	m := map[int]int{}
	for _, r := range recs {
		if r.Type != engine.RecPerfPair {
			continue
		}
		var p engine.PerfPair
		if err := json.Unmarshal(r.Data, &p); err != nil {
			t.Fatalf("perf_pair record %d: %v", r.Seq, err)
		}
		m[p.Pair]++
	}
	return m
}

// matrixWaitNoProcess waits until no process runs a binary from the row's folder: scancel must
// reach the replays too (proctrack/linuxproc follows them into their own process groups).
func matrixWaitNoProcess(t *testing.T, rowDir string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var left []string
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			b, err := os.ReadFile(p)
			if err == nil && strings.Contains(string(b), rowDir) {
				left = append(left, fmt.Sprintf("%s: %s", filepath.Dir(p), strings.ReplaceAll(string(b), "\x00", " ")))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the cancelled job survived:\n%s", strings.Join(left, "\n"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A row whose arms name sources (the shipped real row: two published Dynamo versions) runs on
// Slurm without any node compiling: the matrix builds (here: finds) both arms once, before it
// submits, in the build cache its job reads (job.sh exports KVPARITY_BUILD_CACHE), and the job
// pins exactly those binaries.
func TestMatrixSlurmSourceRow(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Slurm and the real row's builds; runs its determinism stage through sbatch")
	}
	matrixNeedSlurm(t)
	realrow.NeedBuilds(t, realrow.Row)
	bin := e2e.Binary(t)
	dir := filepath.Join(t.TempDir(), "matrix")
	row, _ := filepath.Abs(realrow.Row)
	code, stdout, stderr := e2e.Run(t, bin, 20*time.Minute, "matrix", row, "--campaign", dir, "--slurm", "--stage", "determinism",
		"--poll", "500ms", "--job-poll", "1s")
	stderr = stdout + stderr // the matrix's scheduling lines go to one of them
	// 1.5.1 and 1.6.1 may differ: a verdict either way.
	if code != verdict.ExitPass && code != verdict.ExitFail {
		t.Fatalf("matrix exit %d\nstderr:\n%s", code, e2e.Tail(stderr, 40))
	}
	cache, err := build.DefaultCache()
	if err != nil {
		t.Fatal(err)
	}
	name := "dynamo-1.5.1-vs-1.6.1"
	if !strings.Contains(stderr, name+": building its source arms into "+cache) || strings.Count(stderr, "(cached)") != 2 {
		t.Errorf("the matrix did not find both arms in the cache before submitting:\n%s", e2e.Tail(stderr, 40))
	}
	script, _ := os.ReadFile(filepath.Join(dir, name, layout.FileJobScript))
	if !strings.Contains(string(script), "KVPARITY_BUILD_CACHE="+cache+"\nexport KVPARITY_BUILD_CACHE") {
		t.Errorf("job.sh does not point the job at the matrix's builds:\n%s", script)
	}
	var arts struct {
		Artifacts []engine.PinnedArtifact `json:"artifacts"`
	}
	if err := engine.ReadJSONFile(filepath.Join(dir, name, layout.FileArtifacts), &arts); err != nil {
		t.Fatal(err)
	}
	for _, p := range arts.Artifacts {
		if p.Build == nil || !p.Build.Cached || !strings.HasPrefix(p.Source, cache+"/") {
			t.Errorf("the job pinned %s from %s (build %+v), not the matrix's cached build", p.Arm, p.Source, p.Build)
		}
	}
	rep := readMatrixJSON(t, dir)
	if len(rep.Rows) != 1 || rep.Rows[0].Semantic.Verdict == verdict.Undecided || rep.Rows[0].Determinism.Baseline.Verdict != verdict.Stable {
		t.Errorf("matrix.json: %+v", rep.Rows)
	}
}
