package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kvparity/e2e"
	"kvparity/engine/build/buildtest"
	"kvparity/report"
)

// The runner's tests need processes to run. The test binary plays them: started with
// KVPARITY_RUN_CHILD=1, TestMain acts as the child named by its first argument instead of
// running tests ("fail": an error on stderr and status 3; "hang": sleeps past any timeout).
const childEnv = "KVPARITY_RUN_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" && len(os.Args) > 1 {
		switch os.Args[1] {
		case "fail":
			fmt.Fprintln(os.Stderr, "Error: the fake replay failed on purpose")
			os.Exit(3)
		case "hang":
			time.Sleep(time.Hour) // the behaviour under test: a replay that never ends on its own
		}
		os.Exit(2)
	}
	os.Setenv(childEnv, "1")
	buildtest.NoRaceExitSleep()
	os.Exit(m.Run())
}

// childBinary is the test binary, which plays the child its first argument names.
func childBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// A recorder is an Observer that keeps what it hears.
type recorder struct {
	mu       sync.Mutex
	order    []string
	logs     []string
	progress []Progress
	pressure []report.PressureRecord
}

func (r *recorder) Progress(_ string, p Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.order, r.progress = append(r.order, "progress"), append(r.progress, p)
}

func (r *recorder) Log(_, line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.order, r.logs = append(r.order, "log"), append(r.logs, line)
}

func (r *recorder) Pressure(_ string, p report.PressureRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.order, r.pressure = append(r.order, "pressure"), append(r.pressure, p)
}

func writeScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "harness.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// deadPID is the pid of a process that has ended and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestRunnerPinsEachProcessAndRecordsStatus(t *testing.T) {
	heard := &recorder{}
	r := &Runner{Observer: heard, PollInterval: 10 * time.Millisecond}
	dir := t.TempDir()
	cpu := AllowedCPUs()[len(AllowedCPUs())-1]
	spec := Spec{ID: "det/baseline-1", Binary: childBinary(t), Dir: filepath.Join(dir, "run"), CPUs: []int{cpu},
		Args: []string{"fail"}}
	var startedPID int
	res := r.Run(context.Background(), spec, func(pid int, cpus []int) error {
		startedPID = pid
		if !slices.Equal(cpus, []int{cpu}) {
			t.Errorf("affinity read back %v, want [%d]", cpus, cpu)
		}
		return nil
	})
	if startedPID == 0 || res.PID != startedPID {
		t.Fatalf("started callback pid %d, result pid %d", startedPID, res.PID)
	}
	if res.ExitCode != 3 || res.Err == nil || !strings.Contains(res.Err.Error(), "exited with status 3: Error: the fake replay failed on purpose") {
		t.Fatalf("result %+v", res)
	}
	stderr, _ := os.ReadFile(res.Stderr)
	if !strings.Contains(string(stderr), "failed on purpose") {
		t.Fatalf("stderr not kept in the run folder: %q", stderr)
	}
	heard.mu.Lock()
	defer heard.mu.Unlock()
	if !slices.Contains(heard.logs, "Error: the fake replay failed on purpose") {
		t.Fatalf("stderr not streamed to the Observer: %q", heard.logs)
	}
}

func TestRunnerTimeoutAndCancelKillTheGroup(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a hanging fake replay until its timeout, then until a cancel")
	}
	r := &Runner{}
	spec := Spec{ID: "det/candidate-1", Binary: childBinary(t), Dir: filepath.Join(t.TempDir(), "run"),
		Args: []string{"hang"}, Timeout: 300 * time.Millisecond}
	start := time.Now()
	res := r.Run(context.Background(), spec, nil)
	if !res.TimedOut || res.Signal != "killed" || res.ExitCode != -1 || !strings.Contains(res.Err.Error(), "hung past its timeout") {
		t.Fatalf("timeout result %+v", res)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("timeout did not kill promptly")
	}

	// Cancel once the hanging replay is running: Run reports the start after the fork and exec.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec.Timeout = 0
	res = r.Run(ctx, spec, func(int, []int) error { cancel(); return nil })
	if !res.Cancelled || res.TimedOut || res.Signal != "killed" {
		t.Fatalf("cancel result %+v", res)
	}
}

func TestRunnerRefusesAStartItCannotRecord(t *testing.T) {
	r := &Runner{}
	spec := Spec{ID: "det/baseline-1", Binary: childBinary(t), Dir: filepath.Join(t.TempDir(), "run"),
		Args: []string{"hang"}}
	res := r.Run(context.Background(), spec, func(int, []int) error { return os.ErrPermission })
	if res.Err == nil || syscall.Kill(res.PID, 0) == nil {
		t.Fatalf("process not killed when its start could not be recorded: %+v", res)
	}
}

func TestCPUListRoundTrip(t *testing.T) {
	cpus, err := ParseCPUList("0-2,5,7-8\n")
	if err != nil || !slices.Equal(cpus, []int{0, 1, 2, 5, 7, 8}) || FormatCPUList(cpus) != "0-2,5,7-8" {
		t.Fatalf("%v %v %q", cpus, err, FormatCPUList(cpus))
	}
	if _, err := ParseCPUList("3-1"); err == nil {
		t.Fatal("bad range accepted")
	}
}

// The tailer hands on a pressure line as a pressure record, its readmission line as the same
// record (by ordinal) readmitted, and only the newest progress line of a poll.
func TestTailerPublishesPressureLines(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "progress.jsonl")
	os.WriteFile(prog, []byte(`{"virtual_time_ms":1.0,"completed":1,"total":9}
{"pressure":{"ordinal":0,"at_ms":5.5,"pool":"decode","worker_id":1,"dp_rank":0,"kind":"vllm_preemption","request_uuid":"u-7","running_before":3,"active_blocks":40}}
{"readmitted":{"ordinal":0,"at_ms":8.25}}
{"virtual_time_ms":9.0,"completed":4,"total":9}
`), 0o644)
	heard := &recorder{}
	tl := NewTailer("det/baseline-1", heard, filepath.Join(dir, "stderr"), prog, time.Now())
	tl.Poll(false)
	if strings.Join(heard.order, " ") != "pressure pressure progress" {
		t.Fatalf("heard %+v", heard)
	}
	p0, p1, pr := heard.pressure[0], heard.pressure[1], heard.progress[0]
	if p0.Readmitted || p0.RequestUUID != "u-7" || p0.AtMs != 5.5 ||
		p0.WorkerID != 1 || p0.ActiveBlocks != 40 || !p1.Readmitted || p1.ReadmittedAt != 8.25 ||
		p1.Ordinal != 0 || pr.Completed != 4 {
		t.Fatalf("heard %+v", heard)
	}
}

// Issue 25, wording: a replay that exits but leaves a process holding its stdout is said in
// those words (never "exec: WaitDelay expired before I/O complete"), and the holder is killed.
func TestRunnerNamesADaemonHoldingTheOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the output grace period (5 s)")
	}
	r := &Runner{PollInterval: 10 * time.Millisecond}
	dir := t.TempDir()
	// A fixture replay: exits at once, its child keeps the inherited stdout open.
	spec := Spec{ID: "det/baseline-1", Binary: "/bin/sh", Dir: filepath.Join(dir, "run"),
		Args: []string{"-c", "sleep 60 & echo started; exit 0"}}
	res := r.Run(context.Background(), spec, nil)
	if res.Err == nil || strings.Contains(res.Err.Error(), "WaitDelay") || !strings.Contains(res.Err.Error(), "still held its stdout or stderr open") {
		t.Fatalf("result error %v", res.Err)
	}
	e2e.WaitFor(t, fmt.Sprintf("every process of the replay's group %d to be gone from /proc (the daemon holding its stdout outlived it)", res.PID), 10*time.Second, func() bool {
		for _, p := range allProcs() {
			if p.PGID == res.PID && p.State != 'Z' {
				return false
			}
		}
		return true
	})
}

// Case 8 of issue 13: a clap-style argument error keeps its real "error: ..." line, and a
// replay that fails on a full disk says so.
func TestRunnerErrorsKeepTheCause(t *testing.T) {
	for name, tc := range map[string]struct{ script, want string }{
		"clap": {`echo "error: invalid value 'x' for '--num-workers <N>': invalid digit found in string" >&2
echo >&2
echo "For more information, try '--help'." >&2
exit 2
`, "exited with status 2: error: invalid value 'x' for '--num-workers <N>'"},
		"enospc": {`echo "Error: writing report: No space left on device (os error 28)" >&2
exit 1
`, "(the disk is full: ENOSPC"},
	} {
		t.Run(name, func(t *testing.T) {
			r := &Runner{PollInterval: 10 * time.Millisecond}
			res := r.Run(context.Background(), Spec{ID: "det/baseline-1", Binary: writeScript(t, tc.script), Dir: filepath.Join(t.TempDir(), "run")}, nil)
			if res.Err == nil || !strings.Contains(res.Err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", res.Err, tc.want)
			}
		})
	}
}

// Case 6 of issue 13: a replay that forks a setsid grandchild and exits normally leaves
// nothing running. The descendants write their pids down (POSIX sh has no exec -a to mark
// them), and the replay exits only once both have, instead of after a fixed sleep that a busy
// machine could outrun, leaving nothing to check.
func TestRunnerKillsSetsidGrandchildren(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	dir := t.TempDir()
	setsidPID, groupPID := filepath.Join(dir, "setsid.pid"), filepath.Join(dir, "group.pid")
	// The setsid one writes its pid and its process group, to show it left the replay's.
	script := writeScript(t, `setsid sh -c 'echo $$ $(cut -d" " -f5 /proc/$$/stat) > `+setsidPID+`; exec sleep 300' </dev/null >/dev/null 2>&1 &
sh -c 'echo $$ > `+groupPID+`; exec sleep 300' </dev/null >/dev/null 2>&1 &
i=0
until [ -s `+setsidPID+` ] && [ -s `+groupPID+` ]; do
	i=$((i+1)); [ $i -lt 3000 ] || { echo "error: the descendants never started" >&2; exit 1; }
	sleep 0.01
done
exit 0
`)
	r := &Runner{PollInterval: 10 * time.Millisecond}
	res := r.Run(context.Background(), Spec{ID: "det/baseline-1", Binary: script, Dir: filepath.Join(dir, "run")}, nil)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var pids []int
	var setsidGroup int
	for _, f := range []string{setsidPID, groupPID} {
		b, _ := os.ReadFile(f)
		var pid int
		if _, err := fmt.Sscan(string(b), &pid); err != nil {
			t.Fatalf("%s: %q", f, b)
		}
		if f == setsidPID {
			fmt.Sscan(string(b), &pid, &setsidGroup)
		}
		pids = append(pids, pid)
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	}
	if setsidGroup == 0 || setsidGroup == res.PID {
		t.Errorf("the setsid grandchild %d ran in group %d, the replay's is %d: it did not leave the group", pids[0], setsidGroup, res.PID)
	}
	e2e.WaitFor(t, fmt.Sprintf("the replay's descendants %v (setsid, group) to be gone", pids), 10*time.Second, func() bool {
		for _, pid := range pids {
			if p, ok := ReadProc(pid); ok && p.State != 'Z' {
				return false
			}
		}
		return true
	})
}

// A replay flooding its output is capped: the run folder keeps the first outputCap bytes and a
// note, kvparity's memory does not grow with it, and the run fails saying so.
func TestRunnerCapsAFloodingReplay(t *testing.T) {
	dd, err := exec.LookPath("dd")
	if err != nil {
		t.Skip("no dd")
	}
	dir := filepath.Join(t.TempDir(), "runs", "flood")
	r := &Runner{}
	res := r.Run(context.Background(), Spec{ID: "det/flood", Binary: dd,
		Args: []string{"if=/dev/zero", "of=/dev/stderr", "bs=1048576", "count=80", "status=none"}, Dir: dir}, nil)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "wrote more than 64 MiB to stderr (16777216 bytes dropped") {
		t.Fatalf("error %v", res.Err)
	}
	st, _ := os.Stat(filepath.Join(dir, "stderr"))
	if st == nil || st.Size() > outputCap+200 || st.Size() < outputCap {
		t.Fatalf("stderr kept %v bytes", st)
	}
}

// A run folder replaced by a symbolic link is refused, naming the link; nothing is written
// through it.
func TestRunnerRefusesALinkedRunFolder(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, "runs"), 0o755)
	os.Symlink(outside, filepath.Join(root, "runs", "det"))
	r := &Runner{}
	res := r.Run(context.Background(), Spec{ID: "det/x", Binary: "/bin/true", Dir: filepath.Join(root, "runs", "det", "x"), Root: root}, nil)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "is a symbolic link") || !strings.Contains(res.Err.Error(), filepath.Join(root, "runs", "det")) {
		t.Fatalf("error %v", res.Err)
	}
	if es, _ := os.ReadDir(outside); len(es) != 0 {
		t.Fatalf("wrote outside the campaign: %v", es)
	}
}

func TestOwnerAlive(t *testing.T) {
	me := Self()
	if me.Start == 0 || me.PID != os.Getpid() {
		t.Fatalf("selfOwner %+v: no start time", me)
	}
	if !me.Alive() {
		t.Fatal("this process is not alive by its own owner record")
	}
	recycled := me
	recycled.Start++ // the same pid, another process: a recycled pid
	if recycled.Alive() {
		t.Error("a pid with another start time counts as the owner")
	}
	gone := me
	gone.PID = deadPID(t)
	if gone.Alive() {
		t.Error("an ended process counts as alive")
	}
	rebooted := me
	rebooted.Boot = "another-boot"
	if rebooted.Alive() {
		t.Error("an owner of an earlier boot counts as alive")
	}
}
