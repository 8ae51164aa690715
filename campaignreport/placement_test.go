package campaignreport

import (
	"strings"
	"testing"

	"kvparity/engine"
	"kvparity/engine/run"
)

// placementOf builds the placement of repetitions run on the given CPUs (baseline, candidate)
// and an optional measured perf CPU, on a host with numa as host.json recorded it.
func placementOf(numa []run.NUMANode, nodes int, base, cand []int, perfCPU *int) placement {
	c := &campaign{host: engine.HostInfo{Hostname: "n1", NUMANodes: nodes, NUMA: numa}, hist: engine.NewHistory(engine.TinyRow("", ""))}
	for i, cpu := range base {
		c.hist.Add(engine.Record{Type: engine.RecRunStart, Kind: engine.KindRepetition, Arm: engine.Baseline, Index: i + 1, CPUs: []int{cpu}})
	}
	for i, cpu := range cand {
		c.hist.Add(engine.Record{Type: engine.RecRunStart, Kind: engine.KindRepetition, Arm: engine.Candidate, Index: i + 1, CPUs: []int{cpu}})
	}
	if perfCPU != nil {
		c.perf.Result = &engine.PerfResult{MeasuredCPU: *perfCPU}
	}
	return c.placement()
}

func TestPlacementStatesTheNUMANodeOfEveryCPUSet(t *testing.T) {
	two := []run.NUMANode{{ID: 0, CPUs: "0-3"}, {ID: 1, CPUs: "4-7"}}
	perf := 2
	p := placementOf(two, 2, []int{0, 1}, []int{2, 3}, &perf)
	want := "baseline repetitions on CPUs 0-1 (node 0); candidate repetitions on CPUs 2-3 (node 0); performance samples on CPU 2 (node 0): every process of both arms ran on NUMA node 0"
	if p.NUMA != want {
		t.Errorf("NUMA\n got %q\nwant %q", p.NUMA, want)
	}
	if len(p.CPUNodes) != 4 || p.CPUNodes[3] != 0 {
		t.Errorf("cpu_nodes %v, want CPUs 0-3 on node 0", p.CPUNodes)
	}

	p = placementOf(two, 2, []int{0, 1}, []int{4, 5}, nil)
	if !strings.Contains(p.NUMA, "candidate repetitions on CPUs 4-5 (node 1)") || !strings.HasSuffix(p.NUMA, "baseline and candidate repetitions ran on different NUMA nodes") {
		t.Errorf("arms on different nodes: %q", p.NUMA)
	}
	if p.CPUNodes[4] != 1 || p.CPUNodes[0] != 0 {
		t.Errorf("cpu_nodes %v", p.CPUNodes)
	}

	p = placementOf(two, 2, []int{0, 4}, []int{0, 4}, nil)
	if !strings.Contains(p.NUMA, "(node 0, node 1)") || !strings.HasSuffix(p.NUMA, "ran on the same NUMA nodes") {
		t.Errorf("both arms spanning both nodes: %q", p.NUMA)
	}

	p = placementOf(two, 2, []int{9}, []int{0}, nil)
	if !strings.Contains(p.NUMA, "CPUs 9 (no recorded node)") || !strings.Contains(p.NUMA, "not established") {
		t.Errorf("a CPU outside every recorded node: %q", p.NUMA)
	}
}

// A host.json written before the per-node CPU lists were recorded still gives a placement.
func TestPlacementWithoutRecordedNUMANodes(t *testing.T) {
	if p := placementOf(nil, 1, []int{0}, []int{1}, nil); p.NUMA != "one NUMA node: every process of both arms ran on node 0" || p.CPUNodes != nil {
		t.Errorf("one node: %q %v", p.NUMA, p.CPUNodes)
	}
	if p := placementOf(nil, 2, []int{0}, []int{1}, nil); !strings.Contains(p.NUMA, "does not record each CPU's node") {
		t.Errorf("two nodes, none recorded: %q", p.NUMA)
	}
}
