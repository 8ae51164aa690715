package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Every descendant of a replay dies with it. The runner starts each replay as the leader of its
// own process group (Setpgid) and kills the group at the end of every run, whatever the end. A
// descendant that left the group (setsid) is caught another way: kvparity makes itself a child
// subreaper (PR_SET_CHILD_SUBREAPER) before its first replay, so an orphaned descendant is
// re-parented to kvparity instead of init, and after every run the runner kills and reaps
// every child of kvparity that is not a replay it is running. After kvparity itself was
// killed, the resumed campaign finds the survivors from the process groups its journal
// recorded (run_start's pgid, for runs with no run_end) and kills them, with a warning.

var (
	subreaperOnce sync.Once
	// childMu guards running: a child is registered between its fork and the next orphan scan.
	childMu sync.Mutex
	running = map[int]bool{}
)

// becomeSubreaper makes this process the child subreaper of its descendants (once).
func becomeSubreaper() {
	subreaperOnce.Do(func() {
		unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	})
}

// Proc is what /proc/PID/stat says of a process: its parent, process group and state.
type Proc struct {
	PID, PPID, PGID int
	State           byte
}

func ReadProc(pid int) (Proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return Proc{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return Proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	return Proc{PID: pid, PPID: ppid, PGID: pgid, State: f[0][0]}, true
}

// allProcs lists the processes in /proc.
func allProcs() []Proc {
	ents, _ := os.ReadDir("/proc")
	var out []Proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := ReadProc(pid); ok {
			out = append(out, st)
		}
	}
	return out
}

// reapOrphans kills and reaps every child of this process that is not a running replay: the
// descendants a replay left behind outside its process group, re-parented to kvparity as their
// subreaper. It repeats while killing one orphans more (a tree under a setsid grandchild).
func reapOrphans() {
	self, ownGroup := os.Getpid(), syscall.Getpgrp()
	for round := 0; round < 50; round++ {
		childMu.Lock()
		var orphans []int
		for _, p := range allProcs() {
			// A child in kvparity's own process group is one it started itself (a toolchain
			// probe, a build), never a replay's descendant: those are in the replay's group or
			// in a session of their own.
			if p.PPID == self && !running[p.PID] && p.PGID != ownGroup {
				orphans = append(orphans, p.PID)
			}
		}
		childMu.Unlock()
		if len(orphans) == 0 {
			return
		}
		for _, pid := range orphans {
			syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		}
	}
}

// strayProcesses returns the live processes of process group pgid whose working directory or
// command line is inside the campaign dir (a recycled pgid that is not the campaign's is left
// alone).
func strayProcesses(pgid int, dir string) []int {
	var out []int
	for _, p := range allProcs() {
		if p.PGID != pgid || p.PID == os.Getpid() || p.State == 'Z' {
			continue
		}
		if inCampaign(p.PID, dir) {
			out = append(out, p.PID)
		}
	}
	return out
}

// inCampaign reports whether pid's cwd or command line is inside dir.
func inCampaign(pid int, dir string) bool {
	proc := "/proc/" + strconv.Itoa(pid)
	if cwd, err := os.Readlink(proc + "/cwd"); err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+string(filepath.Separator))) {
		return true
	}
	cmd, _ := os.ReadFile(proc + "/cmdline")
	return strings.Contains(string(cmd), dir+string(filepath.Separator))
}

// A Stray is a run the journal says started and never ended: its process group (0: its pid
// led one), its pid and the kvparity that owned it (nil when not recorded).
type Stray struct {
	Run   string
	PGID  int
	PID   int
	Owner *Owner
}

// Group is the stray's recorded process group (its pid when it led one; 0 when neither was
// recorded).
func (s Stray) Group() int {
	if s.PGID != 0 {
		return s.PGID
	}
	return max(s.PID, 0)
}

// Running lists the processes of the stray's group still running in the campaign dir: what
// KillStrays would kill. It only looks (a follower reports them; it may not stop them).
func (s Stray) Running(dir string) []int {
	if s.Group() <= 0 {
		return nil
	}
	return strayProcesses(s.Group(), dir)
}

// KillStrays kills what survives of the process groups of runs that started and never
// ended (kvparity was killed while they ran), warning about each: such a survivor would disturb
// every later performance sample. A run whose owning kvparity is still alive is not a stray:
// it is that kvparity's live replay (the campaign lock keeps a second writer out; this keeps
// even an owner that lost its lock from having its runs killed).
func KillStrays(dir string, open []Stray, warn func(string)) {
	for _, r := range open {
		id := r.Run
		if r.Owner != nil && r.Owner.Alive() {
			continue
		}
		pgid := r.Group()
		pids := r.Running(dir)
		if len(pids) == 0 {
			continue
		}
		err := syscall.Kill(-pgid, syscall.SIGKILL)
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		msg := fmt.Sprintf("run %s (process group %d) has no recorded end and %d of its processes were still running (pids %v): killed them", id, pgid, len(pids), pids)
		if err != nil && !errors.Is(err, syscall.ESRCH) {
			msg += fmt.Sprintf(" (kill: %v)", err)
		}
		if warn != nil {
			warn(msg)
		}
		waitGone(pids, 2*time.Second)
	}
}

// waitGone waits (up to d) until none of pids is alive.
func waitGone(pids []int, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		alive := false
		for _, pid := range pids {
			if st, ok := ReadProc(pid); ok && st.State != 'Z' {
				alive = true
			}
		}
		if !alive {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
