package campaignreport

import (
	"time"

	"kvparity/diffview"
	"kvparity/diffview/diagnose"
	"kvparity/engine"
	"kvparity/engine/instrument"
	"kvparity/exceptions"
	"kvparity/report"
	"kvparity/verdict"
)

// Report is report.json: every item of protocol stage 8 for one row's campaign, as recorded.
// It is a document of kvparity's shared schema (verdict.SchemaVersion): schema_version, kind,
// then the verdicts as verdict.Decide combined them (Semantic and Performance carry their
// verdict and reason beside their details), then the campaign's record.
type Report struct {
	// Warnings say what the report ignored (a torn journal tail); never part of the files.
	Warnings []string `json:"-"`
	// dir is the campaign folder, which summary.md says every path relative to.
	dir           string
	SchemaVersion int    `json:"schema_version"`
	Kind          string `json:"kind"`
	// Overall is the worst of the semantic, performance and footprint verdicts
	// (PASS_WITH_SEMANTIC_EXCEPTIONS counts as a pass); ExitCode is what
	// `kvparity run --stage all` exits with for this state.
	Overall     verdict.Outcome `json:"overall"`
	Semantic    Semantic        `json:"semantic"`
	Performance Performance     `json:"performance"`
	Footprint   Footprint       `json:"footprint"`
	Coverage    verdict.Outcome `json:"coverage"` // the stage-3 lifecycle rules over both arms
	Parity      verdict.Outcome `json:"parity"`   // byte parity of the digests
	Determinism verdict.Arms    `json:"determinism"`
	Blocked     []string        `json:"blocked"`
	ExitCode    int             `json:"exit_code"`
	// Scope is always verdict.ScopeAll here; SemanticExitCode is what `kvparity run --stage
	// determinism` (the semantic verdict alone) exits with for this state.
	Scope            string `json:"scope"`
	SemanticExitCode int    `json:"semantic_exit_code"`

	Row     string      `json:"row"`
	Journal journalInfo `json:"journal"`
	// DeskBuild says both arms are desk builds, not the release artifact (engine/build/desk.go).
	DeskBuild string `json:"desk_build,omitempty"`

	Revisions []revision      `json:"revisions"`
	Trace     traceInfo       `json:"trace"`
	Artifacts []ArtifactInfo  `json:"artifacts"` // every pin, oldest first
	Config    ConfigInfo      `json:"config"`
	Host      engine.HostInfo `json:"host"`
	Placement placement       `json:"placement"`

	Arms       []armReport `json:"arms"`                // baseline, then candidate
	Statements []statement `json:"coverage_statements"` // skipped or unsupported coverage
	// Profiler is stage 7's investigation (kvparity investigate), when one ran.
	Profiler *engine.Investigation `json:"profiler_findings"`
	// Metrics is each arm's product metrics (baseline, then candidate), from its counted
	// repetitions' canonical summaries; Plots the images of plots/ the report links.
	Metrics []armMetrics `json:"metrics"`
	Plots   []string     `json:"plots"`
	// Instructions is the instruction-count instrument's result (nil: not counted): a
	// secondary, deterministic measure that never enters a verdict.
	Instructions *instrument.InstructionResult `json:"instructions"`
	// InstructionsFrom is where Instructions was counted when not in this campaign: the folder,
	// relative to it, of the campaign kvparity matrix on Slurm counts them in, in a job of their
	// own on another node (instructions.go). "" when counted here or not counted.
	InstructionsFrom string `json:"instructions_from,omitempty"`
	// InstructionsNote says why that campaign's counts are not Instructions ("" when there is
	// no such campaign, or they are).
	InstructionsNote string `json:"instructions_note,omitempty"`
	// LoadPreflight is the perf stage's last load preflight in words ("" when none ran): said
	// with the performance verdict even before the stage has a result.
	LoadPreflight string `json:"load_preflight,omitempty"`
	// Fixtures are stage 6's results on the current artifacts (fixtures.go; omitted when none ran).
	Fixtures []fixtureResult `json:"fixtures,omitempty"`
}

// Verdicts is the report's verdicts as verdict.Decide gave them: what every other surface
// prints for the same campaign.
func (r *Report) Verdicts() verdict.Verdicts {
	return verdict.Verdicts{Overall: r.Overall, Semantic: r.Semantic.Outcome, Performance: r.Performance.Outcome,
		Footprint: r.Footprint.Outcome, Coverage: r.Coverage, Parity: r.Parity, Determinism: r.Determinism,
		Blocked: r.Blocked, ExitCode: r.ExitCode, Scope: r.Scope, SemanticExitCode: r.SemanticExitCode}
}

// journalInfo says which journal state the report describes; Clean refuses to run when the
// journal has moved on since (LastSeq).
type journalInfo struct {
	Records int       `json:"records"`
	LastSeq int64     `json:"last_seq"`
	First   time.Time `json:"first_record_at"`
	Last    time.Time `json:"last_record_at"`
}

// A revision is one arm's code revision and the determinism patch applied to it.
type revision struct {
	Arm              engine.Arm `json:"arm"`
	Revision         string     `json:"revision"`
	Source           string     `json:"source,omitempty"` // crate:NAME@VERSION or git:PATH@COMMIT, when kvparity built it
	Variant          string     `json:"variant,omitempty"`
	CommitSHA        bool       `json:"commit_sha"` // the revision looks like an immutable commit SHA
	DeterminismPatch string     `json:"determinism_patch"`
}

// traceInfo is the pinned trace window (trace/checksums.json).
type traceInfo struct {
	Spec         string `json:"spec"` // source[offset:offset+count]
	Source       string `json:"source"`
	Generated    bool   `json:"generated"`
	SourceSHA256 string `json:"source_sha256"`
	Offset       int    `json:"offset"`
	Count        int    `json:"count"`
	WindowSHA256 string `json:"window_sha256"`
	WindowBytes  int64  `json:"window_bytes"`
	WindowFile   string `json:"window_file"` // kept, or removed at cleanup
}

// ArtifactInfo is one pinned artifact with its routing-mode assertion.
type ArtifactInfo struct {
	Arm      engine.Arm `json:"arm"`
	Gen      int        `json:"gen"`
	Current  bool       `json:"current"` // the generation the verdicts below are about
	Revision string     `json:"revision"`
	Source   string     `json:"source"`
	Builtin  bool       `json:"builtin"`
	Path     string     `json:"path"`
	Variant  string     `json:"variant,omitempty"`
	Features []string   `json:"features"`
	SHA256   string     `json:"sha256"`
	Size     int64      `json:"size"`
	TextSize int64      `json:"text_size"`
	PinnedAt time.Time  `json:"pinned_at"`
	Stale    bool       `json:"stale"`
	Copy     string     `json:"copy"` // the pinned copy in the campaign: kept, or removed at cleanup
	// ReplayBench is the routing-mode assertion: how many canonical reports and timing records
	// of this artifact were checked for metadata.replay_bench == true (a run without it never
	// gets a digest or a sample: the row is blocked instead).
	ReplayBench replayBench `json:"replay_bench"`
	// Build is how kvparity built the binary from the arm's source (protocol stage 1: toolchain,
	// features, profile, lockfile and determinism-patch checksums); null for a given binary.
	Build *engine.BuildInfo `json:"build"`
}

// replayBench counts the outputs whose replay_bench: true was verified.
type replayBench struct {
	CanonicalReports int `json:"canonical_reports"`
	TimingRecords    int `json:"timing_records"`
	// SeededTimingRecords counts the timing records whose work fingerprint equalled the arm's
	// canonical run (engine.PerfSample.WorkVerified).
	SeededTimingRecords int    `json:"seeded_timing_records"`
	Assertion           string `json:"assertion"`
}

// ConfigInfo is the frozen configuration (row.toml as the campaign froze it).
type ConfigInfo struct {
	RowSHA256      string             `json:"row_toml_sha256"`
	Args           []string           `json:"replay_args"`
	Repetitions    int                `json:"repetitions"`
	AddedReps      map[string]int     `json:"added_repetitions,omitempty"`
	Perturbations  []engine.Variation `json:"perturbations"` // the perturbed repetitions' set ([]: off)
	Timeout        string             `json:"timeout"`
	PressureBand   [2]int             `json:"pressure_band"`
	QueueThreshold string             `json:"router_queue_threshold"` // "" = not set: queueing off
	Pairs          int                `json:"pairs"`
	Warmups        int                `json:"warmups_per_arm"`
	ScheduleSeed   int64              `json:"schedule_seed"`
	Threshold      float64            `json:"threshold"`
	TimingField    string             `json:"timing_field"`
	TimingProxy    bool               `json:"timing_proxy"`
	Exclusions     []string           `json:"exclusions"`
	Unordered      map[string]string  `json:"unordered"`
	ProtocolList   bool               `json:"exclusions_are_protocol_list"` // exactly stage 2's closed list
	FootprintNote  string             `json:"footprint_explained,omitempty"`
	// DeterminismPatch is the declared stage-1.3 patch as recorded (null when none).
	DeterminismPatch *engine.DeterminismPatch `json:"determinism_patch"`
	RowTOML          string                   `json:"row_toml"`
}

// placement is where the row ran: one node, the CPUs of every process, NUMA.
type placement struct {
	Node        string `json:"node"`
	NUMANodes   int    `json:"numa_nodes"`
	NUMA        string `json:"numa"`        // the placement in words
	Determinism string `json:"determinism"` // CPU list used by repetitions
	PerfCPU     *int   `json:"perf_cpu"`    // the one measured CPU, when perf ran
	// CPUNodes maps every CPU a process ran on to its NUMA node (host.json); absent for a
	// campaign whose host.json predates the per-node CPU lists.
	CPUNodes map[int]int `json:"cpu_nodes,omitempty"`
	Note     string      `json:"note"`
}

// An armReport is one arm's determinism result on its current artifact.
type armReport struct {
	Arm         engine.Arm   `json:"arm"`
	Revision    string       `json:"revision"`
	Variant     string       `json:"variant,omitempty"`
	Gen         int          `json:"gen"`
	SHA256      string       `json:"sha256"`
	Stale       bool         `json:"stale"`
	Repetitions int          `json:"repetitions"`
	Verdict     verdict.Word `json:"verdict"` // STABLE, UNSTABLE, BLOCKED or UNDECIDED
	Reason      string       `json:"reason"`
	Digests     []string     `json:"digests"` // distinct digests of the counted repetitions
	Runs        []RunInfo    `json:"runs"`    // every attempt of the current generation, in journal order
	OlderRuns   int          `json:"older_generation_runs"`
	// Evidence is the lifecycle evidence of EvidenceRun (the first counted repetition with
	// evidence); EvidenceAgree says whether every counted repetition's evidence is the same.
	Evidence      *report.Evidence `json:"evidence"`
	EvidenceRun   engine.RunID     `json:"evidence_run,omitempty"`
	EvidenceAgree bool             `json:"evidence_agree"`
	Instability   *DiffSummary     `json:"instability_diff,omitempty"` // first two differing repetitions
	// Preflight is the arm's single-core probe; Perturbed its perturbed repetitions (the whole
	// set, then each variation tried alone), Finding what triggers a second digest under them.
	Preflight *engine.Preflight     `json:"preflight"`
	Perturbed []engine.PerturbedRun `json:"perturbed"`
	Finding   string                `json:"finding,omitempty"`
	// PerturbedNotRun says why the row's perturbed repetitions did not run for this arm
	// (engine.ArmResult.PerturbedNotRun); "" when they ran, may still run, or are off.
	PerturbedNotRun string `json:"perturbed_not_run,omitempty"`
}

// RunInfo is one repetition attempt as the journal recorded it.
type RunInfo struct {
	Run        engine.RunID `json:"run"`
	Repetition int          `json:"repetition"`
	Attempt    int          `json:"attempt"`
	Status     string       `json:"status"` // counted, superseded, interrupted
	CPUs       []int        `json:"cpus"`
	PID        int          `json:"pid"`
	StartedAt  time.Time    `json:"started_at"`
	EndedAt    *time.Time   `json:"ended_at"`
	ExitCode   int          `json:"exit_code"`
	Signal     string       `json:"signal,omitempty"`
	TimedOut   bool         `json:"timed_out,omitempty"`
	ElapsedMs  float64      `json:"elapsed_ms"`
	Digest     string       `json:"digest,omitempty"`
	FixedPoint string       `json:"fixed_point,omitempty"`
	Error      string       `json:"error,omitempty"`
	FullReport string       `json:"full_report"` // where the full canonical report is, or why not

	reportPath string // as recorded in the run_end, campaign-relative
}

// Run statuses.
const (
	statusCounted     = "counted"     // the latest attempt of its repetition: the verdict uses it
	statusSuperseded  = "superseded"  // a later attempt of the same repetition replaced it
	statusInterrupted = "interrupted" // started, no end recorded: kvparity stopped or died
)

// Semantic is the stage-8 semantic result with what decided it.
type Semantic struct {
	verdict.Outcome
	Diff       *DiffSummary                 `json:"diff"` // baseline vs candidate, when they differ
	Exceptions []exceptions.ExceptionRecord `json:"exception_records"`
	Coverage   []recordCoverage             `json:"record_coverage"`
	UncoveredN int                          `json:"uncovered_count"`
	Uncovered  []string                     `json:"uncovered"` // the first maxUncovered, in document order
}

// recordCoverage says how many differing pointers one exception record covers, and whether
// that makes it broad. There is one per record, in the file's order.
type recordCoverage struct {
	ID     string `json:"id"`
	Covers int    `json:"covers"`
	// Broad says why the record is broad against this report's differences (a root pattern,
	// or more than half of them), "" when it is not: computed here, never read from the file.
	Broad string `json:"broad,omitempty"`
	// ConfirmedBroad is the file's "broad": its author confirmed the record as broad when
	// saving it. It is what was confirmed, not whether the record is broad now.
	ConfirmedBroad bool `json:"confirmed_broad,omitempty"`
}

// A DiffSummary is a focused diff of two canonical reports: every differing pointer, the first
// divergence and the diagnosis. File is the campaign file it is kept in (diffs/*.json).
type DiffSummary struct {
	File      string                `json:"file"`
	A         string                `json:"a"`
	B         string                `json:"b"`
	Count     int                   `json:"count"`
	Held      int                   `json:"held,omitempty"` // of a truncated diff: the changes its groups and diagnosis read
	Pointers  []string              `json:"-"`              // every differing pointer: in File, too many for the report
	GroupN    int                   `json:"group_count"`
	Groups    []diffGroup           `json:"groups"` // the first maxGroups
	First     *diffview.JSONFirst   `json:"first_divergence"`
	Diagnosis []diagnose.Signature  `json:"diagnosis"`
	Changes   []diffview.JSONChange `json:"changes"` // the first changes of each group (up to 5)
}

// A diffGroup is one group of changes with its size.
type diffGroup struct {
	Key   string `json:"key"`
	Title string `json:"title"`
	Count int    `json:"count"`
}

// Performance is the stage-7 result as recorded.
type Performance struct {
	verdict.Outcome
	Status string             `json:"status"` // decided, blocked (ended on a block, no result), in progress, not run
	Scope  string             `json:"scope"`
	Metric string             `json:"metric"`
	Proxy  bool               `json:"timing_proxy"`
	Result *engine.PerfResult `json:"result"`
	// Sampling is the sampling assumption the bounds are conditional on, in words.
	Sampling string `json:"sampling_assumption"`
}

// Footprint is the footprint gate's verdict and, once the performance stage ran it, its figures.
type Footprint struct {
	verdict.Outcome
	Result *instrument.FootprintResult `json:"result"`
}

// A statement is one piece of coverage the campaign did not establish, said plainly.
type statement struct {
	Topic string `json:"topic"`
	Text  string `json:"text"`
	// md is Text as Markdown: the same words with the values in it escaped (mdf).
	md string
}

// markdown is the statement as report.md says it; one read back from report.json has only
// its text, escaped whole.
func (s statement) markdown() string {
	if s.md != "" {
		return s.md
	}
	return mdText(s.Text)
}
