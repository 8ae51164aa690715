package run

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"kvparity/e2e"
)

// A replay whose child outlives it: when Run returns, the child (still in the replay's process
// group, re-parented to kvparity as its subreaper) has been killed and reaped, not left as a
// zombie; the pid Run reports and hands to started is the replay's own, the group's leader.
func TestRunnerReapsAChildThatOutlivesTheReplay(t *testing.T) {
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	// The replay writes its pid, its child's and the child's process group, then exits at once.
	script := writeScript(t, `sleep 300 </dev/null >/dev/null 2>&1 &
child=$!
echo "$$ $child $(cut -d' ' -f5 /proc/$child/stat)" > `+pids+`
exit 0
`)
	var startedPID int
	r := &Runner{PollInterval: 10 * time.Millisecond}
	res := r.Run(context.Background(), Spec{ID: "det/baseline-1", Binary: script, Dir: filepath.Join(dir, "run")},
		func(pid int, _ []int) error { startedPID = pid; return nil })
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var replay, child, childGroup int
	b, _ := os.ReadFile(pids)
	if _, err := fmt.Sscan(string(b), &replay, &child, &childGroup); err != nil {
		t.Fatalf("the replay's pid file %q: %v", b, err)
	}
	if res.PID != replay || startedPID != replay {
		t.Errorf("Run reports pid %d and started heard %d; the replay was pid %d", res.PID, startedPID, replay)
	}
	if childGroup != replay || child == replay {
		t.Fatalf("the child %d ran in group %d, want the replay's group %d", child, childGroup, replay)
	}
	// Reaped, not only killed: a zombie child would still have its /proc entry. (A pid recycled
	// since would be in another group.)
	if p, ok := ReadProc(child); ok && p.PGID == replay {
		t.Fatalf("the replay's child %d is still in /proc (state %c, parent %d) after Run returned", child, p.State, p.PPID)
	}
}

// startEcho starts cat in its own process group with working directory cwd, as a replay's
// process would run. alive writes a line and reads it back: a process that was sent SIGKILL
// never returns to user space, so an echo proves it outlived whatever ran before.
func startEcho(t *testing.T, cwd string) (pgid int, alive func() bool) {
	t.Helper()
	cmd := exec.Command("cat")
	cmd.Dir = cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid = cmd.Process.Pid
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL); cmd.Wait() })
	br := bufio.NewReader(out)
	return pgid, func() bool {
		got := make(chan string, 1)
		go func() {
			io.WriteString(in, "ping\n")
			line, _ := br.ReadString('\n')
			got <- line
		}()
		select {
		case line := <-got:
			return line == "ping\n"
		case <-time.After(30 * time.Second):
			t.Fatalf("timed out after 30s waiting for pid %d to echo a line", pgid)
			return false
		}
	}
}

// KillStrays kills the surviving processes of a run with no recorded end only when its owner is
// gone and the processes are the campaign's (working directory or command line inside it): a
// live owner's replay and a recycled process group elsewhere are left running, unwarned.
func TestKillStraysDecides(t *testing.T) {
	campaign := t.TempDir()
	runDir := func(name string) string {
		d := filepath.Join(campaign, "runs", "det", name)
		os.MkdirAll(d, 0o755)
		return d
	}
	// The dead owner's survivor.
	survivor := exec.Command("sleep", "300")
	survivor.Dir = runDir("baseline-1")
	survivor.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := survivor.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-survivor.Process.Pid, syscall.SIGKILL); survivor.Wait() })
	livePGID, liveAlive := startEcho(t, runDir("baseline-2"))  // its owner (this process) lives
	elsewherePGID, elsewhereAlive := startEcho(t, t.TempDir()) // a recycled pgid outside the campaign

	dead := Self()
	dead.PID = deadPID(t)
	me := Self()
	var warned []string
	KillStrays(campaign, []Stray{
		{Run: "det/baseline-1", PGID: survivor.Process.Pid, Owner: &dead},
		{Run: "det/baseline-2", PGID: livePGID, Owner: &me},
		{Run: "det/candidate-1", PID: elsewherePGID}, // no owner recorded, no pgid: its pid led the group
		{Run: "det/candidate-2"},                     // nothing recorded to find it by
	}, func(s string) { warned = append(warned, s) })

	want := fmt.Sprintf("run det/baseline-1 (process group %d) has no recorded end and 1 of its processes were still running (pids [%d]): killed them",
		survivor.Process.Pid, survivor.Process.Pid)
	if len(warned) != 1 || warned[0] != want {
		t.Errorf("warnings %q, want exactly %q", warned, want)
	}
	e2e.WaitFor(t, fmt.Sprintf("the dead owner's survivor %d to die", survivor.Process.Pid), 10*time.Second, func() bool {
		p, ok := ReadProc(survivor.Process.Pid)
		return !ok || p.State == 'Z'
	})
	if !liveAlive() {
		t.Error("the replay of a live owner was killed")
	}
	if !elsewhereAlive() {
		t.Error("a process group outside the campaign was killed")
	}
	// Running only looks: what KillStrays would kill, here the live owner's cat.
	if got := (Stray{PGID: livePGID}).Running(campaign); len(got) != 1 || got[0] != livePGID {
		t.Errorf("Running lists %v, want [%d]", got, livePGID)
	}
	if got := (Stray{PGID: elsewherePGID}).Running(campaign); len(got) != 0 {
		t.Errorf("Running lists %v for a group outside the campaign", got)
	}
}

// A stray's group is its recorded pgid, else its pid (a replay leads its group), else none.
func TestStrayGroup(t *testing.T) {
	for _, c := range []struct {
		s    Stray
		want int
	}{{Stray{PGID: 9, PID: 7}, 9}, {Stray{PID: 7}, 7}, {Stray{}, 0}, {Stray{PID: -1}, 0}} {
		if got := c.s.Group(); got != c.want {
			t.Errorf("%+v: group %d, want %d", c.s, got, c.want)
		}
	}
	if got := (Stray{}).Running(t.TempDir()); got != nil {
		t.Errorf("a stray with no group lists %v", got)
	}
}
