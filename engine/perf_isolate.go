package engine

import (
	"context"
	"errors"
	"fmt"
	"kvparity/engine/run"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A desk machine runs other work on the measured CPU; the perf stage's invalidation rule then
// throws pairs away until the machine is quiet. Two aids, neither changing that rule:
//
//   - the load preflight measures, for a few seconds before the first warmup, how busy the
//     measured CPU is with other work, and says what to expect;
//   - CPU isolation (PerfOptions.IsolateCPU, `kvparity run --isolate`, root only) moves every
//     other process of the machine off the measured CPU for the stage, as `cset shield` does: a
//     cpuset cgroup holding every CPU but the measured one receives all processes except
//     kvparity and its descendants, and they are moved back when the stage ends (or, after a
//     killed kvparity, when the campaign is opened again, from what the journal recorded).

// loadWindow is how long the load preflight watches the measured CPU by default.
const loadWindow = 2 * time.Second

// A LoadCheck is the load preflight's measurement.
type LoadCheck struct {
	CPU      int     `json:"cpu"`
	WindowMs float64 `json:"window_ms"`
	Busy     float64 `json:"busy_fraction"` // of the window, by /proc/stat (kvparity idle meanwhile)
	Isolated bool    `json:"isolated"`      // measured after the isolation took effect
}

// recPerfLoad records the load preflight (Data: LoadCheck); recIsolation an isolation that
// took effect (Data: isolation) and recIsolationEnd its undoing.
const (
	recPerfLoad     RecordType = "perf_load"
	recIsolation    RecordType = "perf_isolation"
	recIsolationEnd RecordType = "perf_isolation_end"
)

// What History keeps of these records: the last load preflight, and the isolation not undone.
type (
	loadState      struct{ last *LoadCheck }
	isolationState struct{ open *isolation }
)

func init() {
	defineRecord(recPerfLoad, func(h *History, r *Record, l *LoadCheck) { kindState[loadState](h, recPerfLoad).last = l }, nil)
	defineRecord(recIsolation, func(h *History, r *Record, iso *isolation) { kindState[isolationState](h, recIsolation).open = iso }, nil)
	definePlainRecord(recIsolationEnd, func(h *History, r *Record) { kindState[isolationState](h, recIsolation).open = nil }, nil)
}

// LoadCheck is the perf stage's last load preflight (ok false when none ran).
func (h *History) LoadCheck() (LoadCheck, bool) {
	if l := kindState[loadState](h, recPerfLoad).last; l != nil {
		return *l, true
	}
	return LoadCheck{}, false
}

// openIsolation is the perf stage's CPU isolation the journal recorded and never undid.
func (h *History) openIsolation() *isolation { return kindState[isolationState](h, recIsolation).open }

// Expectation says what the measured load means for the stage, for the user.
func (l LoadCheck) Expectation() string {
	pct := 100 * l.Busy
	where := fmt.Sprintf("CPU %d was %.0f%% busy with other work over %.0f s before the first warmup", l.CPU, pct, l.WindowMs/1000)
	switch {
	case l.Busy < 0.02:
		return where + ": quiet, expect few invalidated pairs"
	case l.Busy < 0.10:
		return where + ": expect some invalidated pairs and a longer stage"
	case l.Isolated:
		return where + " even with the other processes moved off it (kernel work or interrupts): expect many invalidated pairs"
	default:
		return where + ": expect most pairs to be invalidated; quiet the machine, or run as root with --isolate to move other processes off this CPU"
	}
}

// loadPreflight measures the measured CPU's competing load before the stage's runs (each
// start of the stage, resumes too), records it, and tells the user what to expect: a warning
// when the CPU is busy enough to invalidate pairs, a log line otherwise.
func (p *perfRun) loadPreflight(ctx context.Context) {
	if p.opts.CompetingLoadFraction >= 1 {
		return // the competing-load check is off: nothing to expect
	}
	window := p.opts.LoadWindow
	if window <= 0 {
		window = loadWindow
	}
	start := time.Now()
	busy, err := measureLoad(ctx, p.cpu, window)
	if err != nil {
		if ctx.Err() == nil {
			p.c.warn("perf: load preflight: " + err.Error())
		}
		return
	}
	l := LoadCheck{CPU: p.cpu, WindowMs: float64(time.Since(start).Microseconds()) / 1000, Busy: busy, Isolated: p.opts.IsolateCPU}
	p.c.journal.Append(Record{Type: recPerfLoad, Stage: StagePerf, Data: marshalData(l)})
	p.caveat("load preflight: " + l.Expectation())
	if busy >= 0.10 {
		p.c.warn("perf: " + l.Expectation())
	} else {
		p.c.emit(LogLine{Run: "perf/load", Line: l.Expectation()})
	}
}

// measureLoad watches cpu for d and returns the busy fraction of that time (/proc/stat).
func measureLoad(ctx context.Context, cpu int, d time.Duration) (float64, error) {
	busy0, total0, err := cpuTicks(cpu)
	if err != nil {
		return 0, err
	}
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	busy1, total1, err := cpuTicks(cpu)
	if err != nil {
		return 0, err
	}
	if total1 <= total0 {
		return 0, errors.New("/proc/stat did not advance")
	}
	return float64(busy1-busy0) / float64(total1-total0), nil
}

// cpuTicks is one CPU's busy and total jiffies from /proc/stat.
func cpuTicks(cpu int) (busy, total uint64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	prefix := "cpu" + strconv.Itoa(cpu) + " "
	for line := range strings.SplitSeq(string(b), "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		f := strings.Fields(line)[1:]
		for i, s := range f {
			v, _ := strconv.ParseUint(s, 10, 64)
			total += v
			if i != 3 && i != 4 { // idle and iowait are not busy
				busy += v
			}
		}
		return busy, total, nil
	}
	return 0, 0, fmt.Errorf("/proc/stat has no %s line", strings.TrimSpace(prefix))
}

// An isolation is a measured CPU shielded from the machine's other processes.
type isolation struct {
	CPU     int    `json:"cpu"`
	Cgroup  string `json:"cgroup"`  // the cpuset cgroup the other processes were moved into
	Root    string `json:"root"`    // the cpuset hierarchy's root they came from (and go back to)
	CPUs    string `json:"cpus"`    // the CPUs left to them
	Moved   int    `json:"moved"`   // processes moved
	Skipped int    `json:"skipped"` // processes that could not be moved (kernel threads, exited)
}

// procsFile lists and moves a cgroup's processes (whole thread groups), in v1 and v2 alike.
const procsFile = "cgroup.procs"

// summary is the isolation in one line.
func (i isolation) summary() string {
	return fmt.Sprintf("CPU %d isolated: %d other processes moved to CPUs %s (cpuset %s) for the stage and moved back after; %d could not be moved (kernel threads or exited)",
		i.CPU, i.Moved, i.CPUs, i.Cgroup, i.Skipped)
}

// cpusetRoot finds the cpuset hierarchy: cgroup v1's cpuset controller, or cgroup v2 with the
// cpuset controller available.
func cpusetRoot() (root string, v2 bool, err error) {
	for _, r := range []string{"/sys/fs/cgroup/cpuset", "/sys/fs/cgroup/cpuset,cpu"} {
		if _, err := os.Stat(filepath.Join(r, "cpuset.cpus")); err == nil {
			return r, false, nil
		}
	}
	for _, r := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		if b, err := os.ReadFile(filepath.Join(r, "cgroup.controllers")); err == nil && strings.Contains(" "+string(b)+" ", " cpuset ") {
			return r, true, nil
		}
	}
	return "", false, errors.New("no cpuset cgroup hierarchy is mounted (cgroup v1 cpuset, or v2 with the cpuset controller)")
}

// isolateCPU moves every process except kvparity and its descendants into a cpuset of the
// other allowed CPUs. The returned isolation undoes it with undoIsolation.
func isolateCPU(cpu int, allowed []int) (*isolation, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("CPU isolation needs root (it moves other processes between cpusets)")
	}
	var rest []int
	for _, c := range allowed {
		if c != cpu {
			rest = append(rest, c)
		}
	}
	if len(rest) == 0 {
		return nil, fmt.Errorf("CPU isolation needs another CPU for the other processes (only CPU %d is allowed)", cpu)
	}
	root, v2, err := cpusetRoot()
	if err != nil {
		return nil, err
	}
	if v2 {
		_ = os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+cpuset"), 0o644)
	}
	dir := filepath.Join(root, fmt.Sprintf("kvparity-shield-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("CPU isolation: %w", err)
	}
	iso := &isolation{CPU: cpu, Cgroup: dir, Root: root, CPUs: run.FormatCPUList(rest)}
	mems, _ := os.ReadFile(filepath.Join(root, "cpuset.mems"))
	if m := strings.TrimSpace(string(mems)); m != "" || !v2 {
		if m == "" {
			m = "0"
		}
		if err := os.WriteFile(filepath.Join(dir, "cpuset.mems"), []byte(m), 0o644); err != nil {
			undoIsolation(*iso)
			return nil, fmt.Errorf("CPU isolation: cpuset.mems: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "cpuset.cpus"), []byte(iso.CPUs), 0o644); err != nil {
		undoIsolation(*iso)
		return nil, fmt.Errorf("CPU isolation: cpuset.cpus: %w", err)
	}
	self := os.Getpid()
	for _, pid := range readPids(filepath.Join(root, procsFile)) {
		if descendsFrom(pid, self) {
			continue
		}
		if os.WriteFile(filepath.Join(dir, procsFile), []byte(strconv.Itoa(pid)), 0o644) == nil {
			iso.Moved++
		} else {
			iso.Skipped++
		}
	}
	return iso, nil
}

// undoIsolation moves every process of the isolation's cgroup back to the root and removes it.
func undoIsolation(iso isolation) error {
	if _, err := os.Stat(iso.Cgroup); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	for round := 0; round < 10; round++ {
		pids := readPids(filepath.Join(iso.Cgroup, procsFile))
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			_ = os.WriteFile(filepath.Join(iso.Root, procsFile), []byte(strconv.Itoa(pid)), 0o644)
		}
	}
	if err := os.Remove(iso.Cgroup); err != nil {
		return fmt.Errorf("removing cpuset %s: %w (move its processes back by hand: echo PID > %s)", iso.Cgroup, err, filepath.Join(iso.Root, procsFile))
	}
	return nil
}

// undoRecordedIsolation undoes an isolation the journal recorded and never ended (kvparity
// was killed during the perf stage), warning about it: the other processes would otherwise
// stay off the measured CPU.
func undoRecordedIsolation(h *History, warn func(string)) {
	open := h.openIsolation()
	if open == nil {
		return
	}
	if _, err := os.Stat(open.Cgroup); err != nil {
		return // already gone (a reboot, or undone by hand)
	}
	msg := fmt.Sprintf("the perf stage's CPU isolation (%s) was never undone (kvparity was killed during the stage): moved its processes back", open.Cgroup)
	if err := undoIsolation(*open); err != nil {
		msg = "the perf stage's CPU isolation was never undone, and undoing it failed: " + err.Error()
	}
	if warn != nil {
		warn(msg)
	}
}

// readPids lists the pids of a cgroup's procs file.
func readPids(path string) []int {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []int
	for f := range strings.FieldsSeq(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// descendsFrom says whether pid is ancestor or one of its descendants.
func descendsFrom(pid, ancestor int) bool {
	for depth := 0; pid > 1 && depth < 64; depth++ {
		if pid == ancestor {
			return true
		}
		st, ok := run.ReadProc(pid)
		if !ok {
			return false
		}
		pid = st.PPID
	}
	return pid == ancestor
}
