package engine

import (
	"bufio"
	"kvparity/engine/run"
	"os"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// ReadHost describes the machine for host.json and the report (protocol: record the node
// characteristics of every row). Cores counts the CPUs this process may run on, which is what
// the runner can pin replays to.
func ReadHost() HostInfo {
	h := HostInfo{GoVersion: runtime.Version(), Cores: len(run.AllowedCPUs())}
	h.Hostname, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		h.Kernel = unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				h.CPUModel = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	// The same reading the matrix records per job (engine/matrix/placement.go); a host without
	// sysfs NUMA nodes records none and counts as one node.
	h.NUMA, _ = run.ReadNUMA("/sys/devices/system/node")
	h.NUMANodes = max(len(h.NUMA), 1)
	return h
}

// NodeOf returns the NUMA node of cpu as host.json recorded it (false when unrecorded).
func (h HostInfo) NodeOf(cpu int) (int, bool) {
	for _, n := range h.NUMA {
		cpus, err := run.ParseCPUList(n.CPUs)
		if err == nil && slices.Contains(cpus, cpu) {
			return n.ID, true
		}
	}
	return 0, false
}
