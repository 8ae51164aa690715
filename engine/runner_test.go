package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func fakeTrace(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "trace.jsonl")
	os.WriteFile(p, []byte("{\"timestamp\":0}\n{\"timestamp\":1}\n"), 0o644)
	return p
}

func TestRunnerPinsEachProcessAndRecordsStatus(t *testing.T) {
	var mu sync.Mutex
	var evs []Event
	r := &runner{emit: func(e Event) { mu.Lock(); evs = append(evs, e); mu.Unlock() }, pollInterval: 10 * time.Millisecond}
	dir := t.TempDir()
	cpu := AllowedCPUs()[len(AllowedCPUs())-1]
	spec := runSpec{id: "det/baseline-1", binary: testBinary(t), dir: filepath.Join(dir, "run"), cpus: []int{cpu},
		args: []string{"replay", fakeTrace(t), "--variant", "exit-nonzero", "--progress-file", filepath.Join(dir, "run", "progress.jsonl")}}
	var startedPID int
	res := r.run(context.Background(), spec, func(pid int, cpus []int) error {
		startedPID = pid
		if !slices.Equal(cpus, []int{cpu}) {
			t.Errorf("affinity read back %v, want [%d]", cpus, cpu)
		}
		return nil
	})
	if startedPID == 0 || res.pid != startedPID {
		t.Fatalf("started callback pid %d, result pid %d", startedPID, res.pid)
	}
	if res.exitCode != 3 || res.err == nil || !strings.Contains(res.err.Error(), "exited with status 3: Error: the fake replay failed on purpose") {
		t.Fatalf("result %+v", res)
	}
	stderr, _ := os.ReadFile(res.stderr)
	if !strings.Contains(string(stderr), "failed on purpose") {
		t.Fatalf("stderr not kept in the run folder: %q", stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	var logged []string
	for _, e := range evs {
		if l, ok := e.(LogLine); ok {
			logged = append(logged, l.Line)
		}
	}
	if !slices.Contains(logged, "Error: the fake replay failed on purpose") {
		t.Fatalf("stderr not streamed as LogLine events: %q", logged)
	}
}

func TestRunnerTimeoutAndCancelKillTheGroup(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a hanging fake replay until its timeout, then until a cancel")
	}
	r := &runner{}
	spec := runSpec{id: "det/candidate-1", binary: testBinary(t), dir: filepath.Join(t.TempDir(), "run"),
		args: []string{"replay", fakeTrace(t), "--variant", "hang"}, timeout: 300 * time.Millisecond}
	start := time.Now()
	res := r.run(context.Background(), spec, nil)
	if !res.timedOut || res.signal != "killed" || res.exitCode != -1 || !strings.Contains(res.err.Error(), "hung past its timeout") {
		t.Fatalf("timeout result %+v", res)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("timeout did not kill promptly")
	}

	// Cancel once the hanging replay is running: Run reports the start after the fork and exec.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec.timeout = 0
	res = r.run(ctx, spec, func(int, []int) error { cancel(); return nil })
	if !res.cancelled || res.timedOut || res.signal != "killed" {
		t.Fatalf("cancel result %+v", res)
	}
}

func TestRunnerRefusesAStartItCannotRecord(t *testing.T) {
	r := &runner{}
	spec := runSpec{id: "det/baseline-1", binary: testBinary(t), dir: filepath.Join(t.TempDir(), "run"),
		args: []string{"replay", fakeTrace(t), "--variant", "hang"}}
	res := r.run(context.Background(), spec, func(int, []int) error { return os.ErrPermission })
	if res.err == nil || syscallKill0(res.pid) == nil {
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

// A pressure record the replay announces on its progress side channel is published while the
// run is live: before its RunFinished (its evidence repeats it, by ordinal, after).
func TestPressureEventsArriveBeforeTheRunEnds(t *testing.T) {
	_, evs := runDeterminism(t, tinyTestRow("", ""), t.TempDir())
	first, finished := map[RunID]int{}, map[RunID]int{}
	for i, e := range evs {
		switch e := e.(type) {
		case PressureEvent:
			if _, ok := first[e.Run]; !ok {
				first[e.Run] = i
			}
		case RunFinished:
			finished[e.Run] = i
		}
	}
	if len(finished) == 0 {
		t.Fatal("no run finished")
	}
	for run, end := range finished {
		at, ok := first[run]
		if !ok || at > end {
			t.Errorf("%s: first PressureEvent at %d (%v), RunFinished at %d", run, at, ok, end)
		}
	}
}

// The tailer publishes a pressure line as a PressureEvent, its readmission line as the same
// record (by ordinal) readmitted, and only the newest progress line of a poll.
func TestTailerPublishesPressureLines(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "progress.jsonl")
	os.WriteFile(prog, []byte(`{"virtual_time_ms":1.0,"completed":1,"total":9}
{"pressure":{"ordinal":0,"at_ms":5.5,"pool":"decode","worker_id":1,"dp_rank":0,"kind":"vllm_preemption","request_uuid":"u-7","running_before":3,"active_blocks":40}}
{"readmitted":{"ordinal":0,"at_ms":8.25}}
{"virtual_time_ms":9.0,"completed":4,"total":9}
`), 0o644)
	var evs []Event
	tl := &tailer{run: "det/baseline-1", emit: func(e Event) { evs = append(evs, e) }, stderr: filepath.Join(dir, "stderr"), progress: prog, start: time.Now()}
	tl.poll(false)
	if len(evs) != 3 {
		t.Fatalf("events %+v", evs)
	}
	p0, ok0 := evs[0].(PressureEvent)
	p1, ok1 := evs[1].(PressureEvent)
	pr, ok2 := evs[2].(RunProgress)
	if !ok0 || !ok1 || !ok2 || p0.Record.Readmitted || p0.Record.RequestUUID != "u-7" || p0.Record.AtMs != 5.5 ||
		p0.Record.WorkerID != 1 || p0.Record.ActiveBlocks != 40 || !p1.Record.Readmitted || p1.Record.ReadmittedAt != 8.25 ||
		p1.Record.Ordinal != 0 || pr.Completed != 4 {
		t.Fatalf("events %+v", evs)
	}
}

// Issue 25, wording: a replay that exits but leaves a process holding its stdout is said in
// those words (never "exec: WaitDelay expired before I/O complete"), and the holder is killed.
func TestRunnerNamesADaemonHoldingTheOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the output grace period (5 s)")
	}
	r := &runner{pollInterval: 10 * time.Millisecond}
	dir := t.TempDir()
	// A fixture replay: exits at once, its child keeps the inherited stdout open.
	spec := runSpec{id: "det/baseline-1", binary: "/bin/sh", dir: filepath.Join(dir, "run"),
		args: []string{"-c", "sleep 60 & echo started; exit 0"}}
	res := r.run(context.Background(), spec, nil)
	if res.err == nil || strings.Contains(res.err.Error(), "WaitDelay") || !strings.Contains(res.err.Error(), "still held its stdout or stderr open") {
		t.Fatalf("result error %v", res.err)
	}
	time.Sleep(50 * time.Millisecond)
	for _, p := range allProcs() {
		if p.pgid == res.pid && p.state != 'Z' {
			t.Fatalf("pid %d of the replay's group outlived it", p.pid)
		}
	}
}
