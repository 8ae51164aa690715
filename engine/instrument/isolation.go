package instrument

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"kvparity/engine/run"
)

// An Isolation is a measured CPU shielded from the machine's other processes.
type Isolation struct {
	CPU     int    `json:"cpu"`
	Cgroup  string `json:"cgroup"`  // the cpuset cgroup the other processes were moved into
	Root    string `json:"root"`    // the cpuset hierarchy's root they came from (and go back to)
	CPUs    string `json:"cpus"`    // the CPUs left to them
	Moved   int    `json:"moved"`   // processes moved
	Skipped int    `json:"skipped"` // processes that could not be moved (kernel threads, exited)
}

// procsFile lists and moves a cgroup's processes (whole thread groups), in v1 and v2 alike.
const procsFile = "cgroup.procs"

// Summary is the isolation in one line.
func (i Isolation) Summary() string {
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

// IsolateCPU moves every process except kvparity and its descendants into a cpuset of the
// other allowed CPUs. The returned isolation's Undo moves them back.
func IsolateCPU(cpu int, allowed []int) (*Isolation, error) {
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
	iso := &Isolation{CPU: cpu, Cgroup: dir, Root: root, CPUs: run.FormatCPUList(rest)}
	mems, _ := os.ReadFile(filepath.Join(root, "cpuset.mems"))
	if m := strings.TrimSpace(string(mems)); m != "" || !v2 {
		if m == "" {
			m = "0"
		}
		if err := os.WriteFile(filepath.Join(dir, "cpuset.mems"), []byte(m), 0o644); err != nil {
			iso.Undo()
			return nil, fmt.Errorf("CPU isolation: cpuset.mems: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "cpuset.cpus"), []byte(iso.CPUs), 0o644); err != nil {
		iso.Undo()
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

// Undo moves every process of the isolation's cgroup back to the root and removes it.
func (iso Isolation) Undo() error {
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
