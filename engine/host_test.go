package engine

import (
	"kvparity/engine/run"
	"os"
	"testing"
)

func TestReadHostRecordsEachCPUsNUMANode(t *testing.T) {
	if _, err := os.Stat("/sys/devices/system/node/node0/cpulist"); err != nil {
		t.Skip("this kernel exposes no NUMA topology in sysfs")
	}
	h := ReadHost()
	if len(h.NUMA) == 0 || h.NUMANodes != len(h.NUMA) {
		t.Fatalf("host NUMA %+v, %d nodes", h.NUMA, h.NUMANodes)
	}
	for _, cpu := range run.AllowedCPUs() {
		if _, ok := h.NodeOf(cpu); !ok {
			t.Errorf("CPU %d is in no recorded NUMA node %+v", cpu, h.NUMA)
		}
	}
	if _, ok := h.NodeOf(1 << 20); ok {
		t.Error("a CPU that does not exist has a node")
	}
}

func TestNodeOf(t *testing.T) {
	h := HostInfo{NUMA: []run.NUMANode{{ID: 0, CPUs: "0-3,8"}, {ID: 1, CPUs: "4-7"}}}
	for cpu, want := range map[int]int{0: 0, 8: 0, 5: 1} {
		if n, ok := h.NodeOf(cpu); !ok || n != want {
			t.Errorf("NodeOf(%d) = %d, %v; want %d", cpu, n, ok, want)
		}
	}
	if _, ok := h.NodeOf(9); ok {
		t.Error("CPU 9 is in no node")
	}
}
