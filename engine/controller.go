package engine

import (
	"kvparity/engine/build"
	"kvparity/engine/run"
)

// Controller is what the workbench drives. engine/stages implements it over a *Campaign (the
// stages are packages above the core); UI tests use a fake.
// Every method returns at once: work happens on engine goroutines and is reported as Events.
// Opening a campaign that already has a journal first replays the recorded history as events
// (RunStarted/DigestReady/SampleDone/... with their recorded values), so the UI rebuilds its
// state from events alone.
type Controller interface {
	// Events is the single channel the UI pumps. It is closed after Close.
	Events() <-chan Event
	// Info describes the row, trace window, artifacts and host for the header panes.
	Info() CampaignInfo

	StartDeterminism() error // run (or resume) the determinism stage and parity
	StartPerf() error        // run (or resume) the performance stage; refused while determinism fails
	// StartInvestigation profiles both arms (stage 7); equivalence says how equivalent
	// semantic work was established (the report's semantic verdict).
	StartInvestigation(equivalence string) error
	StopStage()                    // stop whatever stage runs; children are killed by process group
	RerunRepetition(r RunID) error // rerun one repetition in a fresh process (keeps the old attempt in the journal)
	AddRepetition(a Arm) error     // one more repetition of an arm
	SetWatch(on bool) error        // watch both arms' source binaries; a rebuilt one is re-pinned and rerun
	Watching() bool
	Running() bool // a stage is running (quit asks before abandoning it)
	Dir() string   // the campaign directory
	Close() error  // stop everything cleanly and close Events
}

// CampaignInfo is static for a pinned campaign (it changes only when an artifact is re-pinned,
// which is announced by ArtifactChanged).
type CampaignInfo struct {
	Row         string // row name
	Dir         string
	TraceSpec   string // e.g. "generated:conversation?seed=7&requests=5000[0:5000]"
	TraceSHA256 string
	Window      string // "offset 0 · 5000 requests"
	Host        HostInfo
	Artifacts   map[Arm]ArtifactInfo
	Repetitions int
	Pairs       int
	Warmups     int
	Threshold   float64
	TimingField string
	// DeskBuild says the arms are desk builds, not the release artifact ("" for release).
	DeskBuild   string
	timingProxy bool
	exclusions  []string
	args        []string
	// ReadOnly says why no stage can start ("" when the campaign runs): a cleaned campaign
	// opens read-only.
	ReadOnly string
	// Unwritable says why the campaign folder cannot be written ("" when it can): it opened
	// read-only, and nothing is written there, exception records and the report included.
	Unwritable string
}

// HostInfo is what host.json records (and report.json quotes: snake_case like every document).
type HostInfo struct {
	Hostname  string `json:"hostname"`
	CPUModel  string `json:"cpu_model"`
	Cores     int    `json:"cores"`
	NUMANodes int    `json:"numa_nodes"`
	Kernel    string `json:"kernel"`
	GoVersion string `json:"go_version"`
	// NUMA is each NUMA node's CPUs (/sys/devices/system/node/node*/cpulist), so the report can
	// state the node of every run's CPU set; empty when the kernel exposes no topology.
	NUMA []run.NUMANode `json:"numa,omitempty"`
}

// ArtifactInfo is one arm's pinned artifact (artifacts.json).
type ArtifactInfo struct {
	Arm      Arm
	Revision string
	Source   string // the path it was copied from ("builtin" for the kvparity executable)
	Path     string // the pinned copy inside the campaign
	Variant  string
	Features []string
	SHA256   string
	Size     int64
	TextSize int64 // .text section size, 0 when not ELF
	// ShippedSize is the binary without debug sections (0 when not ELF or not recorded).
	ShippedSize int64 `json:",omitempty"`
	Stale       bool  // the source changed after pinning
	// Build is how kvparity built it from the arm's source (nil for a given binary).
	Build *build.Info `json:",omitempty"`
	// SourceDiff is a worktree arm's diff against its base commit, relative to the campaign.
	SourceDiff string `json:",omitempty"`
}
