package matrix

import (
	"errors"
	"io/fs"
	"kvparity/engine"
	"kvparity/engine/run"
	"kvparity/internal/layout"
	"path/filepath"
	"time"
)

// A JobPlacement is where one job of a row ran, read from inside it (protocol: record the node
// characteristics, CPU set and NUMA placement of every row).
type JobPlacement struct {
	Mode        string          `json:"mode"`             // "slurm" or "local"
	JobID       string          `json:"job_id,omitempty"` // SLURM_JOB_ID
	NodeList    string          `json:"node_list,omitempty"`
	Partition   string          `json:"partition,omitempty"`
	Node        string          `json:"node"` // SLURMD_NODENAME, else the host name
	AllowedCPUs string          `json:"allowed_cpus"`
	CPUCount    int             `json:"cpu_count"`
	NUMA        []run.NUMANode  `json:"numa_nodes"`     // the node's NUMA topology
	NUMASpan    []int           `json:"numa_span"`      // NUMA nodes the allowed CPUs fall in
	Host        engine.HostInfo `json:"host"`           // CPU model, cores, kernel
	At          time.Time       `json:"at"`             // when the job started the row
	Note        string          `json:"note,omitempty"` // why a field is missing, in words
}

// ReadPlacement describes where this process runs: the Slurm job's environment when there is
// one, its sched_getaffinity mask and the machine's NUMA nodes.
func ReadPlacement(getenv func(string) string, sysNode string) JobPlacement {
	p := JobPlacement{Mode: "local", Host: engine.ReadHost(), At: time.Now().UTC()}
	if id := getenv("SLURM_JOB_ID"); id != "" {
		p.Mode, p.JobID = "slurm", id
		p.NodeList = getenv("SLURM_JOB_NODELIST")
		p.Partition = getenv("SLURM_JOB_PARTITION")
		p.Node = getenv("SLURMD_NODENAME")
	}
	if p.Node == "" {
		p.Node = p.Host.Hostname
	}
	cpus := run.AllowedCPUs()
	p.AllowedCPUs, p.CPUCount = run.FormatCPUList(cpus), len(cpus)
	nodes, err := run.ReadNUMA(sysNode)
	if err != nil {
		p.Note = err.Error()
	}
	p.NUMA = nodes
	p.NUMASpan = run.NUMASpan(nodes, cpus)
	return p
}

// jobPlacementLog is the file's shape.
type jobPlacementLog struct {
	Placements []JobPlacement `json:"placements"`
}

// AppendPlacement adds p to rowDir/placement.json (written to a temporary file and renamed, so
// a reader never sees half a file). Only the row's own job writes it, one job at a time.
func AppendPlacement(rowDir string, p JobPlacement) error {
	all, err := ReadPlacements(rowDir)
	if err != nil {
		return err
	}
	all = append(all, p)
	return writeJSONFile(filepath.Join(rowDir, layout.FilePlacement), jobPlacementLog{Placements: all})
}

// ReadPlacements returns every recorded placement of a row, oldest first (none when the row has
// not started).
func ReadPlacements(rowDir string) ([]JobPlacement, error) {
	var l jobPlacementLog
	if err := engine.ReadJSONFile(filepath.Join(rowDir, layout.FilePlacement), &l); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return l.Placements, nil
}
