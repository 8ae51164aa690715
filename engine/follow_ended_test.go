package engine

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"kvparity/engine/run"
	"kvparity/internal/layout"
)

// Issue 42: the followed writer is killed outright (SIGKILL: no end recorded for its stage or
// its runs) while a replay's process group still runs. The follower reports what it saw: the
// stage has no end record, which runs the writer started have none, which of their process
// groups still run and which left nothing; runs of an earlier writer are not the writer's; and
// it stops nothing (the next writer's resume does).
func TestFollowerReportsWhatItsKilledWriterLeft(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, err := OpenOrCreate(tinyTestRow("", ""), testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	writer := exec.Command("sleep", "300") // the writer's process, killed below
	if err := writer.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { writer.Process.Kill(); writer.Wait() })
	me := run.Self()
	wo := run.Owner{PID: writer.Process.Pid, Host: me.Host, Boot: me.Boot}
	earlier := run.Owner{PID: deadPID(t), Host: me.Host, Boot: me.Boot}
	live, _ := startGroupIn(t, filepath.Join(dir, layout.DirRuns, "det", "baseline-1"), "sleep", "300")
	gone := deadPID(t)
	for _, r := range []Record{
		{Type: RecRunStart, Run: "det/baseline-2", Arm: Baseline, Kind: KindRepetition, Index: 2, Attempt: 1, Gen: 1, PID: gone, Owner: &earlier},
		{Type: recStageStart, Stage: StageDeterminism},
		{Type: RecRunStart, Run: "det/baseline-1", Arm: Baseline, Kind: KindRepetition, Index: 1, Attempt: 1, Gen: 1, PID: live, Owner: &wo},
		{Type: RecRunStart, Run: "det/candidate-1", Arm: Candidate, Kind: KindRepetition, Index: 1, Attempt: 1, Gen: 1, PID: gone, Owner: &wo},
	} {
		if _, err := c.journal.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	// The campaign lock, held here (a follower follows a held lock) and naming the writer.
	lock, err := run.TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	holder := run.Holder{Owner: wo, Command: []string{"kvparity", "run", "--stage", "determinism"}, Since: time.Now().UTC()}
	b, _ := json.Marshal(holder)
	if err := os.WriteFile(filepath.Join(dir, layout.FileLock), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}

	opts := testOptions(t, dir)
	opts.Follow = true
	f, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flog := drain(f)
	flog.waitFor(t, "the followed writer", func(evs []Event) bool { return len(eventsOf[FollowedWriter](evs)) == 1 })
	writer.Process.Signal(syscall.SIGKILL)
	writer.Wait()
	flog.waitFor(t, "the writer's end", func(evs []Event) bool {
		fw := eventsOf[FollowedWriter](evs)
		return len(fw) == 2 && fw[1].Ended
	})
	evs := flog.all()
	stopped := eventsOf[StageStopped](evs)
	if len(stopped) != 1 || stopped[0].Stage != StageDeterminism || !stopped[0].WriterGone || stopped[0].Reason != "" {
		t.Errorf("StageStopped %+v, want the determinism stage, seen with no end record as its writer went", stopped)
	}
	end := eventsOf[FollowedWriter](evs)[1]
	if end.Released {
		t.Error("the writer was killed (its lock file still names it), yet the follower says it released its lock")
	}
	want := []UnfinishedRun{{Run: "det/baseline-1", PGID: live, Running: []int{live}}, {Run: "det/candidate-1", PGID: gone}}
	if !slices.EqualFunc(end.Unfinished, want, func(a, b UnfinishedRun) bool {
		return a.Run == b.Run && a.PGID == b.PGID && slices.Equal(a.Running, b.Running)
	}) {
		t.Errorf("Unfinished %+v, want %+v", end.Unfinished, want)
	}
	if st, ok := run.ReadProc(live); !ok || st.State == 'Z' {
		t.Error("the follower killed the process group of its writer's unfinished run")
	}
}
