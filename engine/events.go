package engine

import (
	"kvparity/verdict"
	"time"

	"kvparity/report"
)

// The UI consumes these events through one re-armed tea.Cmd reading Campaign.Events(). Every
// event names the run or stage it belongs to in the protocol's words. Events are values: the
// engine never mutates one after sending it. Adding fields is fine; renaming needs both sides.

// An Event is anything the engine publishes.
type Event interface{ event() }

// An Arm is one side of a comparison row.
type Arm string

const (
	Baseline  Arm = "baseline"
	Candidate Arm = "candidate"
)

// A RunKind says what a process was started for.
type RunKind string

const (
	KindRepetition RunKind = "repetition" // determinism stage
	KindWarmup     RunKind = "warmup"     // performance stage, not measured
	KindSample     RunKind = "sample"     // performance stage, one member of a pair
	KindPerturbed  RunKind = "perturbed"  // determinism stage: a repetition under variations
	KindPreflight  RunKind = "preflight"  // determinism stage: the single-core probe
)

// A RunID names one process of the campaign, e.g. "det/baseline-1", "perf/warmup-03-candidate",
// "perf/pair-017-baseline-a2" (attempt 2). It is also the folder name under runs/.
type RunID string

// A Stage is a protocol stage kvparity runs.
type Stage string

const (
	StageDeterminism Stage = "determinism"
	StageParity      Stage = "parity"
	StagePerf        Stage = "perf"
	StageFootprint   Stage = "footprint"
)

// RunStarted: a replay process was started (after its CPU affinity was verified).
type RunStarted struct {
	Run        RunID
	Arm        Arm
	Kind       RunKind
	Repetition int    // 1-based for repetitions; pair index (1-based) for samples; warmup index
	Variation  string // perturbed repetitions: "set" (all the row's variations) or the one tried alone
	Gen        int    // the generation of pinned artifacts it runs (1 on the first; 0 when not recorded)
	CPUs       []int
	PID        int
	At         time.Time
}

// RunProgress: the embedded engine's side channel (virtual time, completed requests) or, for
// binaries that give none, elapsed time only (Total == 0).
type RunProgress struct {
	Run           RunID
	VirtualTimeMs float64
	Completed     int
	Total         int
	Elapsed       time.Duration
}

// RunFinished: the process ended. Err is nil only for a clean exit with valid outputs.
type RunFinished struct {
	Run      RunID
	Arm      Arm
	Kind     RunKind
	ExitCode int    // -1 when killed by a signal
	Signal   string // e.g. "killed", "" when none
	TimedOut bool
	Elapsed  time.Duration
	Err      error // product failure in words: non-zero exit, malformed report, timeout...
}

// LogLine: one line a run wrote to stderr (kept in runs/<id>/stderr too).
type LogLine struct {
	Run  RunID
	Line string
}

// DigestReady: a repetition's canonical report was canonicalized and digested.
type DigestReady struct {
	Run        RunID
	Arm        Arm
	Repetition int
	Digest     string // hex SHA-256 of the canonical bytes
	ReportPath string // canonical report kept on disk (may be deleted later if it matches)
	FixedPoint string // "" when the harness's own output was already canonical, else the pointer that broke it
}

// PreflightDone: one arm's single-core probe was measured (before its first repetition).
type PreflightDone struct {
	Preflight Preflight
}

// CoverageReady: lifecycle evidence extracted from a repetition's canonical record.
type CoverageReady struct {
	Run      RunID
	Arm      Arm
	Evidence *report.Evidence
}

// PressureEvent: one pressure record (preemption or retraction) of a run.
type PressureEvent struct {
	Run    RunID
	Record report.PressureRecord
}

// StageVerdict: a verdict for a stage (Arm set for per-arm STABLE/UNSTABLE).
type StageVerdict struct {
	Stage   Stage
	Arm     Arm // "" for cross-arm verdicts
	Verdict verdict.Word
	Reason  string
	// Finding is a determinism verdict's short account of what triggers a second digest
	// ("differs only with all-cores: thread-order dependent"), when one is known.
	Finding string
}

// SampleDone: one measured (or warmup) sample finished with a valid timing record.
type SampleDone struct {
	Run     RunID
	Arm     Arm
	Warmup  bool
	Index   int // warmup index or pair index (1-based)
	Attempt int
	Ms      float64 // the row's timing field
}

// PairDone: both members of a pair are in; Ratio = candidate / baseline whatever the order.
type PairDone struct {
	Pair          int
	BaselineFirst bool
	BaselineMs    float64
	CandidateMs   float64
	Ratio         float64
	Done, Total   int
}

// SampleInvalidated: a predeclared environmental condition invalidated a pair; it is rerun in
// the same order.
type SampleInvalidated struct {
	Pair    int
	Attempt int
	Reason  string
	Causes  []string // the conditions named in Reason, each once, without the run it was seen in
}

// PerfSummary: the running (or final) state of the performance stage. Final is set at the end.
type PerfSummary struct {
	Done, Total int
	Median      float64
	Diagnostics []Diagnostic
	Lower       float64 // order-statistic bounds, only when Final
	Upper       float64
	Verdict     verdict.Word // PASS, FAIL, INCONCLUSIVE (only when Final)
	Reason      string
	Final       bool

	LowerOrder, UpperOrder         int    // e.g. 24 and 37 for 60 pairs (only when Final)
	TimingField                    string // the row's timing field
	TimingProxy                    bool   // TimingField is a declared proxy: label it so everywhere
	WarmupsDone, WarmupsTotal      int    // per arm
	Invalidated                    int    // pair attempts that do not count (environment or interruption)
	MaxInvalidations               int    // invalidations of one pair in a session before the stage stops (0: unknown)
	telemetry                      string // "unavailable" or "available" (only when Final)
	caveats                        []string
	drift                          float64 // Theil–Sen log-ratio drift across the session (only when Final)
	bootstrapLower, bootstrapUpper float64 // secondary diagnostic, never the verdict (only when Final)
	// DependenceMethod is the row's predeclared [perf] dependence_method; DecidedBy the rule
	// that gave the verdict: "order-statistics", "block-medians" or "none" (only when Final).
	// When the block medians decided, DecidedLower/DecidedUpper are their bounds and
	// DecidedBasis says what they are, e.g. "X(1), X(6) of 6 block medians (blocks of 9–11 pairs)".
	DependenceMethod           string
	DecidedBy                  string
	DecidedLower, DecidedUpper float64
	DecidedBasis               string
	// Work is how the measured samples' work fingerprints were checked so far.
	Work WorkTally
}

// Diagnostic is one dependence test result as shown to the user.
type Diagnostic struct {
	Name      string
	Statistic float64
	Threshold float64
	Breached  bool
	detail    string

	Low, High float64 // the acceptance region [Low, High] (only High when OneSided)
	OneSided  bool
	Outcome   string // "ok", "breached", "not computable"
}

// ArtifactChanged: an arm's source binary (or the row file) changed and settled.
type ArtifactChanged struct {
	Arm       Arm // "" for the row file
	Path      string
	OldSHA256 string
	NewSHA256 string
	Repinned  bool // true when watch mode re-pinned it and a rerun follows
	// OldGen is the generation whose results the change made stale; NewGen the generation
	// pinned in its place (0 until one is). A view of OldGen's results (the diff) says so.
	OldGen, NewGen int
}

// RowBlocked: the row cannot go on (bad input, missing timing field, replay_bench false...).
type RowBlocked struct {
	Stage  Stage
	Reason string
}

// StageStarted / StageStopped bracket a stage run.
type StageStarted struct {
	Stage Stage
	// Repetitions is, for the determinism stage, how many repetitions each arm has when the
	// stage starts (the row's plus any added): the totals a progress count is out of.
	Repetitions map[Arm]int
}
type StageStopped struct {
	Stage     Stage
	Cancelled bool
	// Reason is the cause the stage's end record gives ("" when it finished).
	Reason string
	// WriterGone: no end was recorded; a follower saw the kvparity it followed end mid-stage
	// (FollowedWriter says what it saw). Nothing was stopped by the process that says so.
	WriterGone bool
}

func (RunStarted) event()        {}
func (RunProgress) event()       {}
func (RunFinished) event()       {}
func (LogLine) event()           {}
func (DigestReady) event()       {}
func (PreflightDone) event()     {}
func (CoverageReady) event()     {}
func (PressureEvent) event()     {}
func (StageVerdict) event()      {}
func (SampleDone) event()        {}
func (PairDone) event()          {}
func (SampleInvalidated) event() {}
func (PerfSummary) event()       {}
func (ArtifactChanged) event()   {}
func (RowBlocked) event()        {}
func (StageStarted) event()      {}
func (StageStopped) event()      {}
func (BuildProgress) event()     {} // watch mode rebuilding a checkout arm
