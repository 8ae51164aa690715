package matrix

import (
	"fmt"
	"slices"
	"time"

	"kvparity/engine"
	"kvparity/verdict"
)

// A RowStatus is one row's line in the matrix: where it runs, how far it got, and its verdicts,
// folded from the row's journal and its jobs. Values are copies: safe to hand to the UI.
type RowStatus struct {
	Row     string `json:"row"`
	RowFile string `json:"row_file"`
	Dir     string `json:"dir"` // DIR/ROW

	// Scheduling.
	Mode     string   `json:"mode"` // "slurm" or "local"
	JobID    string   `json:"job_id,omitempty"`
	JobState JobState `json:"job_state,omitempty"`
	JobNote  string   `json:"job_reason,omitempty"` // Slurm's reason, e.g. why a job is pending
	Node     string   `json:"node,omitempty"`
	CPUs     string   `json:"cpus,omitempty"`      // allowed CPU list inside the job
	NUMASpan []int    `json:"numa_span,omitempty"` // NUMA nodes the CPUs fall in
	Attempts int      `json:"attempts"`            // jobs (or local runs) started for the row

	// Progress, from the journal.
	Stage    RowStage `json:"stage"`
	Done     int      `json:"done"`  // finished processes of the current stage
	Total    int      `json:"total"` // processes the current stage needs
	Running  string   `json:"running,omitempty"`
	Records  int      `json:"records"` // journal records read
	Samples  int      `json:"samples"` // measured samples with a valid timing record
	LastNote string   `json:"last_note,omitempty"`

	// Results. Stability, Parity, Perf and Footprint are live, from the row's journal; Verdicts
	// is the row's decided state from its report.json once its run ended (the same words its
	// report and its kvparity run gave), nil before.
	Digests   map[engine.Arm][]string     `json:"digests,omitempty"`   // distinct digests per arm, in order seen
	Stability map[engine.Arm]verdict.Word `json:"stability,omitempty"` // STABLE / UNSTABLE
	Parity    verdict.Word                `json:"parity,omitempty"`    // byte parity of the digests
	Perf      verdict.Word                `json:"perf,omitempty"`
	Footprint verdict.Word                `json:"footprint,omitempty"`
	Blocked   string                      `json:"blocked,omitempty"`   // why the row was blocked
	ExitCode  *int                        `json:"exit_code,omitempty"` // kvparity run's exit status, once known
	Verdicts  *verdict.Verdicts           `json:"verdicts,omitempty"`

	// Environmental ends of the row's jobs (preemption, node failure, time limit, cancel).
	Environmental []string `json:"environmental,omitempty"`

	// InstructionsJob is the row's instruction counts in a Slurm job of their own (nil when the
	// row's own run counts them, or nothing does): a campaign of their own in DIR/ROW/instructions.
	InstructionsJob *InstructionsJob `json:"instructions_job,omitempty"`

	Updated time.Time `json:"updated"`
}

// An InstructionsJob is a row's instruction-count job on Slurm: where its campaign is, its
// last job and how its jobs ended. The counts themselves are read from that campaign by the
// reports (the row's, the matrix's).
type InstructionsJob struct {
	Dir           string   `json:"dir"` // DIR/ROW/instructions: its campaign and its job's folder
	JobID         string   `json:"job_id,omitempty"`
	JobState      JobState `json:"job_state,omitempty"`
	Node          string   `json:"node,omitempty"`
	Attempts      int      `json:"attempts"`
	ExitCode      *int     `json:"exit_code,omitempty"` // kvparity run --stage instructions' exit status
	Environmental []string `json:"environmental,omitempty"`
}

// A RowStage is where a row is, as the matrix shows it.
type RowStage string

const (
	RowStageWaiting     RowStage = "waiting"     // not submitted or started yet
	RowStageQueued      RowStage = "queued"      // job pending in Slurm
	RowStageStarting    RowStage = "starting"    // job (or local run) started, no campaign record yet
	RowStagePinning     RowStage = "pinning"     // campaign created, artifacts being pinned
	RowStageDeterminism RowStage = "determinism" // determinism repetitions running
	RowStagePerf        RowStage = "perf"        // warmups or pairs running
	RowStageDone        RowStage = "done"        // kvparity run ended with a verdict
	RowStageBlocked     RowStage = "blocked"     // kvparity run refused or blocked the row
	RowStageInterrupted RowStage = "interrupted" // the job ended environmentally; resubmission resumes
	RowStageFailedJob   RowStage = "job-failed"  // the job ended without a verdict (script or setup failure)
)

// A rowFold is a row's status as its journal's fold (engine.History) gives it: the verdicts
// and the progress of the current phase are the History's, derived the same way for every
// surface; the job fields are the matrix's (applyJobs).
type rowFold struct {
	row  *engine.Row
	hist *engine.History
	st   RowStatus
}

func newRowFold(base RowStatus, row *engine.Row) *rowFold {
	f := &rowFold{row: row, st: base}
	f.reset()
	return f
}

// reset forgets every journal-derived field (the journal is re-read from its start).
func (f *rowFold) reset() {
	f.hist = engine.NewHistory(f.row)
	f.sync()
}

// add folds one journal record.
func (f *rowFold) add(r engine.Record) {
	f.hist.Add(r)
	f.sync()
}

// rowStages is the matrix's word for each journal phase.
var rowStages = map[engine.Phase]RowStage{
	engine.PhaseNone:        RowStageWaiting,
	engine.PhasePinning:     RowStagePinning,
	engine.PhaseDeterminism: RowStageDeterminism,
	engine.PhasePerf:        RowStagePerf,
	engine.PhaseBlocked:     RowStageBlocked,
}

// sync copies the History's view into the status. The last record's time and the last
// matrix_job note outlive a reset (they say when and what happened last).
func (f *rowFold) sync() {
	s := &f.st
	p := f.hist.Progress()
	span := f.hist.Span()
	s.Stage, s.Done, s.Total, s.Running, s.Records, s.Samples = rowStages[p.Phase], p.Done, p.Total, string(p.Running), span.Records, p.Samples
	s.Digests, s.Blocked = p.Digests, p.Blocked
	s.Stability = map[engine.Arm]verdict.Word{}
	if span.Records == 0 {
		s.Parity, s.Perf, s.Footprint = "", "", "" // nothing read: no verdict words at all yet
		return
	}
	s.Updated = span.Last
	if r, ok := f.hist.Last(RecMatrixJob); ok {
		s.LastNote = r.Note
	}
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		if v := f.hist.ArmResult(arm).Verdict; v.Decided() {
			s.Stability[arm] = v
		}
	}
	s.Parity = f.hist.Parity().Verdict
	s.Perf = f.hist.Performance().Verdict
	s.Footprint = f.hist.Footprint().Verdict
}

// status returns a deep copy of the current status.
func (f *rowFold) status() RowStatus {
	s := f.st
	s.Digests = make(map[engine.Arm][]string, len(f.st.Digests))
	for a, d := range f.st.Digests {
		s.Digests[a] = slices.Clone(d)
	}
	s.Stability = make(map[engine.Arm]verdict.Word, len(f.st.Stability))
	for a, v := range f.st.Stability {
		s.Stability[a] = v
	}
	s.NUMASpan = slices.Clone(f.st.NUMASpan)
	s.Environmental = slices.Clone(f.st.Environmental)
	if f.st.ExitCode != nil {
		c := *f.st.ExitCode
		s.ExitCode = &c
	}
	if f.st.Verdicts != nil {
		v := *f.st.Verdicts
		s.Verdicts = &v
	}
	return s
}

// Progress is the stage progress in words, e.g. "determinism 3/4" or "perf 12/20".
func (s RowStatus) Progress() string {
	if s.Stage == RowStageQueued && s.JobNote != "" {
		return string(s.Stage) + " (" + s.JobNote + ")"
	}
	if s.Total == 0 || (s.Stage != RowStageDeterminism && s.Stage != RowStagePerf) {
		return string(s.Stage)
	}
	return fmt.Sprintf("%s %d/%d", s.Stage, min(s.Done, s.Total), s.Total)
}

// Overall is the row's overall outcome: its report's once decided, else Undecided saying how
// far the row got.
func (s RowStatus) Overall() verdict.Outcome {
	if s.Verdicts != nil {
		return s.Verdicts.Overall
	}
	if s.Blocked != "" {
		return verdict.Of(verdict.Blocked, "%s", s.Blocked)
	}
	return verdict.Of(verdict.Undecided, "row %s is %s: no report with its verdicts yet", s.Row, s.Progress())
}
