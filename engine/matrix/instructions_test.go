package matrix

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kvparity/engine"
	"kvparity/internal/layout"
)

// fakeSlurm is a Slurm whose client tools are shell scripts over a folder: sbatch records its
// argument vector (sbatch.log, one line per submission) and queues the job PENDING; the test
// moves a job on with set; squeue and scontrol report the state; sacct says accounting is off.
type fakeSlurm struct {
	t   *testing.T
	dir string
	*Slurm
}

func newFakeSlurm(t *testing.T) *fakeSlurm {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"bin", "state"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "next"), []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tools := map[string]string{
		// The id counter and the log are updated under mkdir's lock: the matrix submits one job
		// at a time, but never trust that in a fake.
		"sbatch": `until mkdir "$F/lock" 2>/dev/null; do sleep 0.01; done
id=$(cat "$F/next"); echo $((id + 1)) > "$F/next"
echo "PENDING" > "$F/state/$id"
echo "$id $*" >> "$F/sbatch.log"
rmdir "$F/lock"
echo "$id"`,
		// squeue -h --states=all -j ID -o FORMAT
		"squeue": `read state node code < "$F/state/$4" || { echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1; }
echo "$4|$state|$node|None"`,
		// scontrol ping | scontrol show job -o ID
		"scontrol": `[ "$1" = ping ] && exit 0
read state node code < "$F/state/$4" || { echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1; }
echo "JobId=$4 JobState=$state Reason=None ExitCode=${code:-0}:0 NodeList=$node"`,
		"sacct": `echo "sacct: error: Slurm accounting storage is disabled" >&2; exit 1`,
	}
	s := &Slurm{}
	for name, body := range tools {
		path := filepath.Join(dir, "bin", name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\nF="+dir+"\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		switch name {
		case "sbatch":
			s.sbatch = path
		case "squeue":
			s.squeue = path
		case "scontrol":
			s.scontrol = path
		case "sacct":
			s.sacct = path
		}
	}
	return &fakeSlurm{t: t, dir: dir, Slurm: s}
}

// set moves job id to state on node (exit code for an ended job), atomically.
func (f *fakeSlurm) set(id, state, node string, exit int) {
	f.t.Helper()
	tmp := filepath.Join(f.dir, "state", "."+id+".tmp")
	if err := os.WriteFile(tmp, fmt.Appendf(nil, "%s %s %d\n", state, node, exit), 0o644); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(f.dir, "state", id)); err != nil {
		f.t.Fatal(err)
	}
}

// submissions are sbatch's argument vectors so far, by job id.
func (f *fakeSlurm) submissions() map[string][]string {
	b, _ := os.ReadFile(filepath.Join(f.dir, "sbatch.log"))
	out := map[string][]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		if fields := strings.Fields(line); len(fields) > 1 {
			out[fields[0]] = fields[1:]
		}
	}
	return out
}

// waitFor polls cond until it holds (or fails the test after 20 s, saying what).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// writeCountedRowFile writes a tiny built-in row that declares [perf] instructions_runs.
func writeCountedRowFile(t *testing.T, dir, name string) string {
	t.Helper()
	return writeRowFile(t, dir, name, func(r *engine.Row) { r.Perf.InstructionsRuns = 3 })
}

// Issue 39, item 4 on Slurm: a row that declares instructions_runs gets two job scripts, both
// submitted at once: the row's, which runs --stage all --no-instructions, and the instruction
// job's (kvparity-ROW-instructions, --exclusive too), which counts them in a campaign of their
// own (DIR/ROW/instructions) and writes its report. The matrix follows both and ends when both
// ended, resubmits the instruction job when it ended environmentally, and rewrites the row's
// report once the counts ended after the row's job. A row without instructions_runs keeps
// one job; running the matrix again submits nothing.
func TestMatrixSlurmCountsInstructionsInAJobOfTheirOwn(t *testing.T) {
	f := newFakeSlurm(t)
	src, dir := t.TempDir(), filepath.Join(t.TempDir(), "m")
	counted, plain := writeCountedRowFile(t, src, "counted"), writeRowFile(t, src, "plain")
	exe := filepath.Join(t.TempDir(), "kvparity")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var rowReports []string
	var log strings.Builder // written by Run's goroutine, read once Run returned
	o := Options{Log: &log, Dir: dir, RowFiles: []string{counted, plain}, Slurm: f.Slurm, RunArgs: []string{"--stage", "all", "--cpus", "0"},
		Resubmit: 1, executable: exe, buildCache: t.TempDir(), Poll: 10 * time.Millisecond, JobPoll: 10 * time.Millisecond,
		RowReport: func(rowDir string) error {
			mu.Lock()
			defer mu.Unlock()
			rowReports = append(rowReports, rowDir)
			return nil
		}}
	type ended struct {
		res *Result
		err error
	}
	done := make(chan ended, 1)
	go func() {
		res, err := Run(context.Background(), o)
		done <- ended{res, err}
	}()
	waitFor(t, "three submissions", func() bool { return len(f.submissions()) == 3 })

	abs, _ := filepath.Abs(dir)
	rowDir, instrDir, plainDir := filepath.Join(abs, "counted"), filepath.Join(abs, "counted", layout.DirInstructions), filepath.Join(abs, "plain")
	subs := f.submissions()
	// Submitted together, the row's job first: ids 1 and 2, then the plain row's.
	for id, want := range map[string]string{"1": filepath.Join(rowDir, layout.FileJobScript), "2": filepath.Join(instrDir, layout.FileJobScript), "3": filepath.Join(plainDir, layout.FileJobScript)} {
		if s := subs[id]; len(s) == 0 || s[len(s)-1] != want || s[0] != "--parsable" {
			t.Errorf("job %s: sbatch %v, want the script %s", id, s, want)
		}
	}
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }
	rowScript, instrScript, plainScript := read(filepath.Join(rowDir, layout.FileJobScript)), read(filepath.Join(instrDir, layout.FileJobScript)), read(filepath.Join(plainDir, layout.FileJobScript))
	bin := filepath.Join(abs, layout.MatrixBinary)
	for _, c := range []struct {
		name, script string
		want, not    []string
	}{
		{"the row's", rowScript, []string{"#SBATCH --job-name=kvparity-counted\n", "#SBATCH --exclusive\n",
			bin + " run " + counted + " --campaign " + rowDir + " --stage all --cpus 0 --no-instructions\n", bin + " report " + rowDir + "\n"}, nil},
		{"the instruction job's", instrScript, []string{"#SBATCH --job-name=kvparity-counted-instructions\n", "#SBATCH --exclusive\n", "#SBATCH --nodes=1\n",
			"#SBATCH --output=" + instrDir + "/slurm-%j.out\n", "#SBATCH --chdir=" + instrDir + "\n",
			bin + " matrix --record-placement " + instrDir + " || exit 3\n",
			bin + " run " + counted + " --campaign " + instrDir + " --stage instructions --cpus 0\n", bin + " report " + instrDir + "\n"},
			[]string{"--stage all", "--no-instructions"}},
		{"a row without instructions_runs", plainScript, []string{bin + " run " + plain + " --campaign " + plainDir + " --stage all --cpus 0\n"}, []string{"--no-instructions"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.script, w) {
				t.Errorf("%s script lacks %q:\n%s", c.name, w, c.script)
			}
		}
		var commands []string // the script without its comments
		for line := range strings.SplitSeq(c.script, "\n") {
			if !strings.HasPrefix(line, "#") {
				commands = append(commands, line)
			}
		}
		for _, n := range c.not {
			if strings.Contains(strings.Join(commands, "\n"), n) {
				t.Errorf("%s script has %q:\n%s", c.name, n, c.script)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(plainDir, layout.DirInstructions)); err == nil {
		t.Error("a row without instructions_runs has no instruction campaign")
	}

	// Both run at once, on two nodes; the row's job ends first, with its verdict.
	f.set("1", "RUNNING", "n1", 0)
	f.set("2", "RUNNING", "n2", 0)
	f.set("3", "COMPLETED", "n3", 0)
	fakeRun(t, plainDir, 0, "PASS")
	waitFor(t, "the instruction job followed as RUNNING on n2", func() bool {
		jobs, _ := ReadJobs(instrDir)
		return len(jobs) == 1 && jobs[0].State == JobRunning && jobs[0].Node == "n2"
	})
	fakeRun(t, rowDir, 0, "PASS")
	f.set("1", "COMPLETED", "n1", 0)
	waitFor(t, "the row's job recorded as ended", func() bool {
		jobs, _ := ReadJobs(rowDir)
		return len(jobs) == 1 && jobs[0].Verdict()
	})
	time.Sleep(100 * time.Millisecond) // ten polls: the matrix still follows the counts
	select {
	case e := <-done:
		t.Fatalf("the matrix ended while the instruction job ran: %+v %v", e.res, e.err)
	default:
	}
	mu.Lock()
	if len(rowReports) != 0 {
		t.Errorf("the row's report is rewritten only once the counts ended: %v", rowReports)
	}
	mu.Unlock()

	// The instruction job is preempted: environmental, resubmitted (--resubmit 1), then ends.
	f.set("2", "PREEMPTED", "n2", 0)
	waitFor(t, "the instruction job resubmitted", func() bool { return len(f.submissions()) == 4 })
	if s := f.submissions()["4"]; s[len(s)-1] != filepath.Join(instrDir, layout.FileJobScript) {
		t.Fatalf("the resubmission is not the instruction job's: %v", s)
	}
	f.set("4", "COMPLETED", "n2", 0)
	var e ended
	select {
	case e = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the matrix did not end once both jobs ended")
	}
	if e.err != nil {
		t.Fatal(e.err)
	}
	res := e.res
	if res.ExitCode != 0 || len(res.Rows) != 2 {
		t.Fatalf("result: %+v", res)
	}
	c, p := res.Rows[0], res.Rows[1]
	if c.Stage != RowStageDone || c.JobID != "1" || c.InstructionsJob == nil || p.InstructionsJob != nil {
		t.Fatalf("rows: %+v / %+v", c, p)
	}
	ij := c.InstructionsJob
	if ij.Dir != instrDir || ij.JobID != "4" || ij.JobState != JobCompleted || ij.Attempts != 2 || len(ij.Environmental) != 1 ||
		!strings.Contains(ij.Environmental[0], "PREEMPTED") || ij.ExitCode == nil || *ij.ExitCode != 0 {
		t.Errorf("instruction job status: %+v", ij)
	}
	jobs, err := ReadJobs(instrDir)
	if err != nil || len(jobs) != 2 || !jobs[0].Environmental || !jobs[1].Verdict() || jobs[1].Node != "n2" {
		t.Errorf("the instruction job's jobs.json: %+v %v", jobs, err)
	}
	if rj, _ := ReadJobs(rowDir); len(rj) != 1 {
		t.Errorf("the row's job is not resubmitted with its counts: %+v", rj)
	}
	mu.Lock()
	if !slices.Equal(rowReports, []string{rowDir}) {
		t.Errorf("the row's report is rewritten once, after the counts ended: %v", rowReports)
	}
	mu.Unlock()

	for _, want := range []string{"counted: submitted job 2 for its instruction counts (" + filepath.Join(instrDir, layout.FileJobScript) + ")",
		"counted (instructions): job 2 RUNNING on n2", "counted: instruction counts: job 2 on n2: PREEMPTED", "counted: resubmitting its instruction counts (automatic resubmission 1 of 1)",
		"counted: report rewritten with the instruction counts of " + instrDir} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the matrix log lacks %q:\n%s", want, log.String())
		}
	}
	t.Logf("matrix log:\n%s", log.String())

	// Both have ended with a verdict: the same command again submits nothing.
	log.Reset()
	res, err = Run(context.Background(), o)
	if !strings.Contains(log.String(), "counted: instruction counts already ended with a verdict (job 4 on n2: COMPLETED, exit 0); not resubmitted") {
		t.Errorf("the second matrix's log:\n%s", log.String())
	}
	if err != nil || res.ExitCode != 0 || len(f.submissions()) != 4 {
		t.Fatalf("a second matrix: %+v %v, %d submissions", res, err, len(f.submissions()))
	}
}

// A local matrix keeps counting after the perf stage in the row's own run: no second run, no
// instruction campaign, no --no-instructions.
func TestMatrixLocalCountsInTheRowsRun(t *testing.T) {
	src, dir := t.TempDir(), filepath.Join(t.TempDir(), "m")
	row := writeCountedRowFile(t, src, "counted")
	runs := 0
	res, err := Run(context.Background(), Options{Dir: dir, RowFiles: []string{row}, RunArgs: []string{"--stage", "all"}, Poll: 10 * time.Millisecond,
		RunLocal: func(ctx context.Context, rowFile, rowDir string, out io.Writer) int {
			runs++
			fakeRun(t, rowDir, 0, "PASS")
			return 0
		}})
	if err != nil || runs != 1 || res.Rows[0].InstructionsJob != nil {
		t.Fatalf("local matrix: %d runs, %+v, %v", runs, res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "counted", layout.DirInstructions)); err == nil {
		t.Error("a local row has no instruction campaign of its own")
	}
	jobs, _ := ReadJobs(filepath.Join(dir, "counted"))
	if len(jobs) != 1 || slices.Contains(jobs[0].Command, "--no-instructions") {
		t.Errorf("local run: %+v", jobs)
	}
}

func TestInstructionJobArguments(t *testing.T) {
	for _, c := range []struct {
		args  []string
		stage string
		instr string
	}{
		{[]string{"--stage", "all", "--cpus", "2-3"}, "all", "--stage instructions --cpus 2-3"},
		{[]string{"--stage", "determinism", "--isolate", "-stage=all"}, "all", "--stage instructions --isolate"},
		{[]string{"--cpus", "1", "--no-instructions"}, "", "--stage instructions --cpus 1"},
		{[]string{"--stage=perf"}, "perf", "--stage instructions"},
	} {
		if got := runStage(c.args); got != c.stage {
			t.Errorf("runStage(%q) = %q, want %q", c.args, got, c.stage)
		}
		if got := strings.Join(instructionsArgs(c.args), " "); got != c.instr {
			t.Errorf("instructionsArgs(%q) = %q, want %q", c.args, got, c.instr)
		}
	}
	row := engine.TinyRow("", "")
	row.Perf.InstructionsRuns = 3
	slurm := &Slurm{}
	for _, c := range []struct {
		o    Options
		want bool
	}{
		{Options{Slurm: slurm, RunArgs: []string{"--stage", "all"}}, true},
		{Options{Slurm: slurm, RunArgs: []string{"--stage", "perf"}}, false}, // --stage perf counts nothing, as kvparity run's
		{Options{Slurm: slurm, RunArgs: []string{"--stage", "determinism"}, SemanticOnly: true}, false},
		{Options{RunArgs: []string{"--stage", "all"}}, false}, // locally: after the perf stage, in the row's run
	} {
		if got := countsApart(c.o, row); got != c.want {
			t.Errorf("countsApart(%+v) = %v, want %v", c.o.RunArgs, got, c.want)
		}
	}
	row.Perf.InstructionsRuns = 0
	if countsApart(Options{Slurm: slurm, RunArgs: []string{"--stage", "all"}}, row) {
		t.Error("a row without instructions_runs counts nothing")
	}
}
