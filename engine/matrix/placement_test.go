package matrix

import (
	"kvparity/engine/run"
	"kvparity/internal/layout"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func fakeSysNode(t *testing.T, nodes map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, cpus := range nodes {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "cpulist"), []byte(cpus+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadPlacementInsideAJob(t *testing.T) {
	env := map[string]string{"SLURM_JOB_ID": "77", "SLURM_JOB_NODELIST": "node[07]", "SLURMD_NODENAME": "node07", "SLURM_JOB_PARTITION": "batch"}
	cpus := run.AllowedCPUs()
	// NUMA node 0 holds every CPU this process may use; node 1 holds none of them.
	sys := fakeSysNode(t, map[string]string{"node0": run.FormatCPUList(cpus), "node1": "4096-4097"})
	p := ReadPlacement(func(k string) string { return env[k] }, sys)
	if p.Mode != "slurm" || p.JobID != "77" || p.Node != "node07" || p.NodeList != "node[07]" || p.Partition != "batch" {
		t.Fatalf("job fields: %+v", p)
	}
	if p.AllowedCPUs != run.FormatCPUList(cpus) || p.CPUCount != len(cpus) {
		t.Fatalf("CPUs %q (%d), want %q", p.AllowedCPUs, p.CPUCount, run.FormatCPUList(cpus))
	}
	if !reflect.DeepEqual(p.NUMASpan, []int{0}) || len(p.NUMA) != 2 || p.NUMA[1].ID != 1 || p.NUMA[1].CPUs != "4096-4097" {
		t.Fatalf("NUMA %+v span %v", p.NUMA, p.NUMASpan)
	}
	if p.Host.Hostname == "" || p.At.IsZero() || p.Note != "" {
		t.Fatalf("host/time/note: %+v", p)
	}
}

func TestReadPlacementLocalWithoutNUMA(t *testing.T) {
	p := ReadPlacement(func(string) string { return "" }, filepath.Join(t.TempDir(), "absent"))
	host, _ := os.Hostname()
	if p.Mode != "local" || p.JobID != "" || p.Node != host {
		t.Fatalf("%+v", p)
	}
	if p.Note == "" || len(p.NUMASpan) != 0 {
		t.Fatalf("a missing NUMA tree must be said in words: %+v", p)
	}
}

func TestAppendPlacementKeepsHistory(t *testing.T) {
	dir := t.TempDir()
	if ps, err := ReadPlacements(dir); err != nil || ps != nil {
		t.Fatalf("no file yet: %v %v", ps, err)
	}
	for _, id := range []string{"10", "11"} {
		if err := AppendPlacement(dir, JobPlacement{Mode: "slurm", JobID: id, Node: "n1"}); err != nil {
			t.Fatal(err)
		}
	}
	ps, err := ReadPlacements(dir)
	if err != nil || len(ps) != 2 || ps[0].JobID != "10" || ps[1].JobID != "11" {
		t.Fatalf("got %+v %v", ps, err)
	}
	if err := os.WriteFile(filepath.Join(dir, layout.FilePlacement), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPlacements(dir); err == nil || !strings.Contains(err.Error(), layout.FilePlacement) {
		t.Fatalf("a damaged placement file must be named: %v", err)
	}
}
