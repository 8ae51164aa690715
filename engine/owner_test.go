package engine

import (
	"bufio"
	"kvparity/engine/journal"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"kvparity/engine/run"
	"kvparity/internal/layout"
)

// deadPID is the pid of a process that has ended and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// Issue 25, case "opening a campaign kills another process's live replay": a run with no
// recorded end whose owning kvparity is alive is its live replay, never a stray, and a resume
// leaves its process group running.
func TestResumeLeavesLiveOwnersRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, err := OpenOrCreate(tinyTestRow("", ""), testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	// The live replay is cat: it echoes a line back only while it lives, which proves below that
	// the resume did not kill it.
	runDir := filepath.Join(dir, layout.DirRuns, "det", "baseline-1")
	os.MkdirAll(runDir, 0o755)
	replay := exec.Command("cat")
	replay.Dir = runDir
	replay.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	toReplay, _ := replay.StdinPipe()
	fromReplay, _ := replay.StdoutPipe()
	if err := replay.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := replay.Process.Pid
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL); replay.Wait() })
	// Appended by this (live) process: the journal records it as the owner.
	if _, err := c.journal.Append(Record{Type: RecRunStart, Run: "det/baseline-1", Arm: Baseline, Kind: KindRepetition, Index: 1, Attempt: 1, Gen: 1, PID: pgid}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	recs, _, _ := journal.Read[Record](filepath.Join(dir, layout.FileJournal), journal.RefuseDamage)
	if o := recs[len(recs)-1].Owner; o == nil || o.PID != os.Getpid() || o.Start == 0 {
		t.Fatalf("run_start records owner %+v, want this process with its start time", o)
	}
	c, err = Open(dir, testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	// A kill, had the resume sent one, is pending before Open returns, and a process with a
	// pending SIGKILL never returns to user space: an echo read now proves the replay outlived
	// the resume (no fixed wait for a kill that may or may not come).
	echoed := make(chan string, 1)
	go func() {
		toReplay.Write([]byte("alive\n"))
		line, _ := bufio.NewReader(fromReplay).ReadString('\n')
		echoed <- line
	}()
	select {
	case line := <-echoed:
		if line != "alive\n" {
			t.Fatalf("the resume killed a run whose owner is alive (its replay answered %q, then its output closed)", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("timed out after 30s waiting for the live replay (cat) to echo a line after the resume")
	}
	if st, ok := run.ReadProc(pgid); !ok || st.State == 'Z' {
		t.Fatal("the resume killed a run whose owner is alive")
	}
}

// startGroupIn starts a process group in runDir (created), as a replay's would be, and kills it
// when the test ends; it returns the group and the command.
func startGroupIn(t *testing.T, runDir, name string, args ...string) (int, *exec.Cmd) {
	t.Helper()
	os.MkdirAll(runDir, 0o755)
	cmd := exec.Command(name, args...)
	cmd.Dir = runDir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL); cmd.Wait() })
	return pgid, cmd
}
