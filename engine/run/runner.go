package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"kvparity/internal/atomicfile"
	"kvparity/internal/procgroup"
)

// A Spec is one replay process: a pinned binary, its argument vector (never a shell), its
// own run folder, a CPU set and a timeout.
type Spec struct {
	// ID names the run in errors and in what the Observer hears (the campaign's run id).
	ID string

	Binary string   // the pinned artifact inside the campaign
	Args   []string // argv[1:]
	Dir    string   // the run folder: stdout and stderr are written here
	// Root is the campaign folder Dir must lie in: no symbolic link may stand between them
	// ("" skips the check, for tests that run outside a campaign).
	Root string
	CPUs []int // the CPU set to pin to (empty: no pinning)
	// Timeout kills the process group after this long (0: none).
	Timeout time.Duration
	// ProgressFile is the embedded engine's side channel ("" for binaries that give none:
	// progress is then elapsed time only).
	ProgressFile string

	// A perturbed repetition's variations; the zero values change nothing.
	Env     []string // the whole environment (nil: kvparity's own)
	WorkDir string   // the process's working directory, created inside Dir ("": Dir)
	Umask   int      // the child's umask (0: kvparity's own)
	NoASLR  bool     // start the child with address-space layout randomization off
	Noise   bool     // keep a bounded CPU load on the last CPU of the set while it runs
}

// A Result says how a process ended. Err is nil only for a clean zero exit; it names the
// run and says what went wrong in words.
type Result struct {
	PID       int
	CPUs      []int // the affinity read back from /proc/PID/status
	ExitCode  int   // -1 when killed by a signal
	Signal    string
	TimedOut  bool
	Cancelled bool // the caller's context ended (stop or quit), not a product failure
	Started   time.Time
	Elapsed   time.Duration
	Stdout    string
	Stderr    string
	Err       error
	// CPUTime is the process's user + system time (rusage), which the perf stage subtracts from
	// the measured CPU's busy time to find competing load.
	CPUTime time.Duration
	// Context switches over the process's life (rusage), for the preflight.
	VoluntarySwitches, InvoluntarySwitches int64
}

// A Runner starts replay processes. Its Observer hears each process's progress, stderr lines
// and pressure records while it runs (stderr is read in batches every PollInterval, not per
// byte).
type Runner struct {
	Observer     Observer
	PollInterval time.Duration // default 100 ms
}

// ErrAffinity marks a process whose CPU affinity could not be set or verified: an
// environmental condition (the sample is invalid), not a product failure.
var ErrAffinity = errors.New("cpu affinity not verified")

// Run starts the process, pins it, calls started (after the affinity is verified; an error
// from started kills the process, e.g. when the journal cannot record the start), streams its
// progress and stderr, and waits for it. Cancelling ctx kills the whole process group.
//
// Pinning: the child is forked from an OS thread whose affinity is set to spec.CPUs first, so
// it and every thread it ever creates inherit the set from birth (no unpinned window); the
// thread's mask is then restored. Every thread listed in /proc/PID/task is pinned again
// (belt and braces) and Cpus_allowed_list is read back; a mismatch kills the Run with
// errAffinity.
func (r *Runner) Run(ctx context.Context, spec Spec, started func(pid int, cpus []int) error) Result {
	res := Result{ExitCode: -1}
	if spec.Root != "" {
		if err := atomicfile.InsideNoLinks(spec.Root, spec.Dir); err != nil {
			res.Err = fmt.Errorf("%s: run folder: %w", spec.ID, err)
			return res
		}
	}
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		res.Err = fmt.Errorf("%s: run folder: %w", spec.ID, err)
		return res
	}
	res.Stdout = filepath.Join(spec.Dir, "stdout")
	res.Stderr = filepath.Join(spec.Dir, "stderr")
	stdout, err := atomicfile.OpenNoFollow(res.Stdout, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		res.Err = fmt.Errorf("%s: %w", spec.ID, err)
		return res
	}
	defer stdout.Close()
	stderr, err := atomicfile.OpenNoFollow(res.Stderr, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		res.Err = fmt.Errorf("%s: %w", spec.ID, err)
		return res
	}
	defer stderr.Close()

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if spec.Timeout > 0 {
		var c2 context.CancelFunc
		runCtx, c2 = context.WithTimeout(runCtx, spec.Timeout)
		defer c2()
	}
	// Its own process group: cancellation kills the whole group, and a replay dies with a killed
	// kvparity instead of running on unrecorded (the resumed campaign reruns it).
	cmd := procgroup.Command(runCtx, spec.Binary, spec.Args...)
	cmd.Dir = spec.Dir
	if spec.WorkDir != "" {
		if err := os.MkdirAll(spec.WorkDir, 0o755); err != nil {
			res.Err = fmt.Errorf("%s: working directory: %w", spec.ID, err)
			return res
		}
		cmd.Dir = spec.WorkDir
	}
	cmd.Env = spec.Env
	// Capped: a replay flooding its output fills neither the disk nor kvparity's memory.
	outCap, errCap := &cappedWriter{f: stdout, left: outputCap}, &cappedWriter{f: stderr, left: outputCap}
	cmd.Stdout, cmd.Stderr = outCap, errCap

	becomeSubreaper()
	childMu.Lock()
	if err := startPinned(cmd, spec.CPUs, forkAttrs{umask: spec.Umask, noASLR: spec.NoASLR}); err != nil {
		childMu.Unlock()
		res.Err = fmt.Errorf("%s: start %s: %w", spec.ID, spec.Binary, err)
		return res
	}
	running[cmd.Process.Pid] = true
	childMu.Unlock()
	defer func(pid int) {
		procgroup.Kill(pid)
		childMu.Lock()
		delete(running, pid)
		childMu.Unlock()
		reapOrphans() // descendants that left the group (setsid), re-parented to kvparity
	}(cmd.Process.Pid)
	res.PID = cmd.Process.Pid
	res.Started = time.Now()
	if len(spec.CPUs) > 0 {
		res.CPUs, err = pinAndVerify(res.PID, spec.CPUs)
		if err != nil {
			procgroup.Kill(res.PID)
			cmd.Wait()
			res.Err = fmt.Errorf("%s: %w: %v", spec.ID, ErrAffinity, err)
			return res
		}
	}
	if started != nil {
		if err := started(res.PID, res.CPUs); err != nil {
			procgroup.Kill(res.PID)
			cmd.Wait()
			res.Err = fmt.Errorf("%s: %w", spec.ID, err)
			return res
		}
	}

	if spec.Noise && len(spec.CPUs) > 0 {
		stop := startNoise(spec.CPUs[len(spec.CPUs)-1])
		defer stop()
	}
	t := NewTailer(spec.ID, r.Observer, res.Stderr, spec.ProgressFile, res.Started)
	done := make(chan struct{})
	tailDone := make(chan struct{})
	go func() {
		defer close(tailDone)
		t.loop(done, r.poll())
	}()
	waitErr := cmd.Wait()
	res.Elapsed = time.Since(res.Started)
	close(done)
	<-tailDone
	procgroup.Kill(res.PID) // strays the replay left behind die with it

	res.Cancelled = ctx.Err() != nil
	res.TimedOut = !res.Cancelled && errors.Is(runCtx.Err(), context.DeadlineExceeded)
	if ps := cmd.ProcessState; ps != nil {
		res.CPUTime = ps.UserTime() + ps.SystemTime()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			res.VoluntarySwitches, res.InvoluntarySwitches = ru.Nvcsw, ru.Nivcsw
		}
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = ws.Signal().String()
		} else {
			res.ExitCode = ps.ExitCode()
		}
	}
	switch {
	case res.Cancelled:
		res.Err = fmt.Errorf("%s: cancelled", spec.ID)
	case res.TimedOut:
		res.Err = fmt.Errorf("%s: hung past its timeout of %s and was killed (stderr: %s)", spec.ID, spec.Timeout, res.Stderr)
	case res.Signal != "":
		res.Err = fmt.Errorf("%s: killed by signal %q (stderr: %s)", spec.ID, res.Signal, res.Stderr)
	case res.ExitCode != 0:
		res.Err = fmt.Errorf("%s: exited with status %d%s (stderr: %s)", spec.ID, res.ExitCode, lastLine(res.Stderr), res.Stderr)
	case errors.Is(waitErr, exec.ErrWaitDelay):
		res.Err = fmt.Errorf("%s: the replay exited, but a process it left behind still held its stdout or stderr open %s later (a daemon that outlives the replay disturbs every later run); kvparity killed what was left of its process group", spec.ID, procgroup.WaitDelay)
	case waitErr != nil:
		res.Err = fmt.Errorf("%s: %w", spec.ID, waitErr)
	}
	for _, c := range []struct {
		name string
		w    *cappedWriter
	}{{"stdout", outCap}, {"stderr", errCap}} {
		if c.w.dropped == 0 {
			continue
		}
		fmt.Fprintf(c.w.f, "\n[kvparity: %s truncated at %d MiB; %d more bytes were dropped]\n", c.name, outputCap>>20, c.w.dropped)
		flood := fmt.Sprintf("wrote more than %d MiB to %s (%d bytes dropped; the first %d MiB are in %s)",
			outputCap>>20, c.name, c.w.dropped, outputCap>>20, filepath.Join(spec.Dir, c.name))
		switch {
		case res.Err == nil:
			res.Err = fmt.Errorf("%s: %s: a replay must not flood its output", spec.ID, flood)
		case !res.Cancelled:
			res.Err = fmt.Errorf("%w; it also %s", res.Err, flood)
		}
	}
	return res
}

// outputCap bounds what one replay process may write to each of stdout and stderr.
const outputCap = 64 << 20

// A cappedWriter writes the first left bytes to f and counts the rest. It never blocks the
// child on the cap (the rest is read and dropped); a write error (a full disk) is returned.
type cappedWriter struct {
	f       *os.File
	left    int64
	dropped int64
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	k := min(int64(len(p)), c.left)
	if k > 0 {
		if _, err := c.f.Write(p[:k]); err != nil {
			return 0, err
		}
		c.left -= k
	}
	c.dropped += int64(len(p)) - k
	return len(p), nil
}

func (r *Runner) poll() time.Duration {
	if r.PollInterval > 0 {
		return r.PollInterval
	}
	return 100 * time.Millisecond
}

// forkAttrs are the child's attributes set on the forking thread itself (a perturbed
// repetition's umask and ASLR), so no other thread of kvparity sees them.
type forkAttrs struct {
	umask  int // 0: unchanged
	noASLR bool
}

// startPinned forks the child from a thread pinned to cpus (and carrying attrs), then restores
// the thread. The child inherits the thread's affinity, personality and umask at fork.
func startPinned(cmd *exec.Cmd, cpus []int, attrs forkAttrs) error {
	if len(cpus) == 0 && attrs == (forkAttrs{}) {
		return cmd.Start()
	}
	runtime.LockOSThread()
	restore, err := setForkAttrs(attrs)
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	if len(cpus) == 0 {
		startErr := cmd.Start()
		if restore() {
			runtime.UnlockOSThread()
		}
		return startErr
	}
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		if restore() {
			runtime.UnlockOSThread()
		}
		return fmt.Errorf("%w: sched_getaffinity: %v", ErrAffinity, err)
	}
	set := CPUSet(cpus)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		if restore() {
			runtime.UnlockOSThread()
		}
		return fmt.Errorf("%w: sched_setaffinity %s: %v", ErrAffinity, FormatCPUList(cpus), err)
	}
	startErr := cmd.Start()
	if unix.SchedSetaffinity(0, &old) == nil && restore() {
		runtime.UnlockOSThread()
	} // else: stay locked, so this thread exits with the goroutine rather than run others altered
	return startErr
}

// addrNoRandomize is the personality flag that turns ASLR off for what the thread execs.
const addrNoRandomize = 0x0040000

// setForkAttrs gives the locked thread a's umask (after unsharing its filesystem attributes,
// which Go's threads otherwise share, so kvparity's own files keep their umask) and
// personality; restore puts both back and reports whether it could.
func setForkAttrs(a forkAttrs) (restore func() bool, err error) {
	restores := []func() bool{}
	restore = func() bool {
		ok := true
		for _, r := range slices.Backward(restores) {
			ok = r() && ok
		}
		return ok
	}
	if a.umask != 0 {
		if err := unix.Unshare(unix.CLONE_FS); err != nil {
			return nil, fmt.Errorf("umask variation: unshare(CLONE_FS): %v", err)
		}
		old := unix.Umask(a.umask)
		restores = append(restores, func() bool { unix.Umask(old); return true })
	}
	if a.noASLR {
		cur, _, e := unix.RawSyscall(unix.SYS_PERSONALITY, 0xffffffff, 0, 0)
		if e != 0 {
			restore()
			return nil, fmt.Errorf("aslr variation: personality: %v", e)
		}
		if _, _, e := unix.RawSyscall(unix.SYS_PERSONALITY, cur|addrNoRandomize, 0, 0); e != 0 {
			restore()
			return nil, fmt.Errorf("aslr variation: personality(ADDR_NO_RANDOMIZE): %v (the host's seccomp policy may refuse it; turn the variation off in the row)", e)
		}
		restores = append(restores, func() bool {
			_, _, e := unix.RawSyscall(unix.SYS_PERSONALITY, cur, 0, 0)
			return e == 0
		})
	}
	return restore, nil
}

// startNoise keeps a CPU load on cpu, 1 ms busy and 1 ms idle, until stop is called: the
// sched-noise variation's bounded competition for a perturbed repetition's CPUs.
func startNoise(cpu int) (stop func()) {
	done := make(chan struct{})
	go func() {
		// The thread must outlive the load: a replay forked earlier from this same OS thread
		// gets its Pdeathsig (SIGKILL) if the thread exits, so its mask is restored and it is
		// handed back rather than ended with the goroutine.
		runtime.LockOSThread()
		var old unix.CPUSet
		if unix.SchedGetaffinity(0, &old) != nil {
			runtime.UnlockOSThread()
			return
		}
		set := CPUSet([]int{cpu})
		_ = unix.SchedSetaffinity(0, &set)
		defer func() {
			if unix.SchedSetaffinity(0, &old) == nil {
				runtime.UnlockOSThread()
			}
		}()
		for {
			select {
			case <-done:
				return
			default:
			}
			for t := time.Now(); time.Since(t) < time.Millisecond; {
			}
			time.Sleep(time.Millisecond)
		}
	}()
	return func() { close(done) }
}

// pinAndVerify pins every current thread of pid and reads the affinity back.
func pinAndVerify(pid int, cpus []int) ([]int, error) {
	set := CPUSet(cpus)
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil {
			if err := unix.SchedSetaffinity(tid, &set); err != nil && !errors.Is(err, unix.ESRCH) {
				return nil, fmt.Errorf("sched_setaffinity(%d, %s): %v", tid, FormatCPUList(cpus), err)
			}
		}
	}
	got, err := ReadAllowedList(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	if !slices.Equal(got, cpus) {
		return got, fmt.Errorf("pid %d runs on CPUs %s, asked for %s", pid, FormatCPUList(got), FormatCPUList(cpus))
	}
	return got, nil
}

func CPUSet(cpus []int) unix.CPUSet {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	return set
}

// stderrTailBytes is how much of a replay's stderr is read to explain its failure: the end of
// the file only, however much the replay wrote.
const stderrTailBytes = 64 << 10

// readTail returns at most the last n bytes of path.
func readTail(path string, n int64) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	off := st.Size() - n
	if off < 0 {
		off = 0
	}
	buf := make([]byte, st.Size()-off)
	k, _ := f.ReadAt(buf, off)
	buf = buf[:k]
	if off > 0 {
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:] // drop the partial first line
		}
	}
	return buf
}

// lastLine returns ": <the line that explains the failure>" for error messages, or "": the
// last line starting with "error" when there is one (clap-style harnesses end with a hint
// such as "For more information, try '--help'." after their real "error: ..." line), else
// the last non-empty line. Only the last stderrTailBytes of the file are read. A full disk is
// named as such, from the replay's own words or from the run folder's filesystem.
func lastLine(path string) string {
	lines := splitLines(readTail(path, stderrTailBytes))
	pick := ""
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		if pick == "" {
			pick = l
		}
		if len(l) >= 5 && strings.EqualFold(l[:5], "error") {
			pick = l
			break
		}
	}
	if len(pick) > 300 {
		pick = pick[:300] + "…"
	}
	out := ""
	if pick != "" {
		out = ": " + pick
	}
	if diskFull(lines, filepath.Dir(path)) {
		out += " (the disk is full: ENOSPC, no space left on the campaign's filesystem; free space and resume)"
	}
	return out
}

// diskFull says whether a failed replay ran out of disk: its stderr says so (strerror of
// ENOSPC, Rust's "os error 28") or the run folder's filesystem has no space left.
func diskFull(lines []string, dir string) bool {
	for _, l := range lines {
		if strings.Contains(l, "No space left on device") || strings.Contains(l, "ENOSPC") || strings.Contains(l, "os error 28") {
			return true
		}
	}
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Bavail == 0 && st.Blocks > 0
}
