package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	armkind "kvparity/engine/arm"
	"kvparity/engine/run"
	"kvparity/report"
	"kvparity/verdict"
)

// A StageHost is the campaign as a stage package sees it (engine/investigate, and the test
// stage of doc.go's "Adding a stage"): the row and the campaign's folder, the one running
// stage, the arms' pinned artifacts, the runner, the journal's appends and its fold, and the
// events. A stage is a function of a host, called by whoever starts it (headless, the
// workbench's Controller in engine/stages, a driver): the core never starts a stage package,
// and no stage registers anything into it.
type StageHost interface {
	Row() *Row
	Dir() string // the campaign folder; a stage's files live under it
	CPUs() []int // the campaign's CPU set, in the order stages hand them out

	// Start runs fn as the campaign's one running stage: journaled (stage_start, stage_end),
	// announced (StageStarted, StageStopped), stopped through ctx; fn says whether it was
	// cancelled. It refuses while another stage runs or the campaign is read-only.
	Start(st Stage, fn func(ctx context.Context) (cancelled bool)) error
	// Refusal is why the campaign runs no stage at all (read-only: a follower, a cleaned
	// campaign), nil when it may; Start refuses with it too.
	Refusal() error
	// PrepareArms re-pins a rebuilt source and re-verifies every pinned copy and the trace
	// window: a binary is never reused after its source changed.
	PrepareArms() error
	Pinned(arm Arm) PinnedArtifact
	History() *History   // the journal folded as it stands
	TraceWindow() string // the pinned trace window's path, as RunSpec's args name it

	// Repetitions is an arm's repetition count: the row's plus those AddRepetition added.
	Repetitions(arm Arm) int
	// AddRepetition records one more repetition of an arm (refused while a stage runs or the
	// campaign is read-only); the determinism stage then runs it.
	AddRepetition(arm Arm) error
	// ArmResult is an arm's determinism outcome over its current artifact, in h.
	ArmResult(h *History, arm Arm) ArmResult
	// Diagnoser names the likely entropy source of two differing canonical reports (nil when
	// the caller that opened the campaign gave none: Options.Diagnose).
	Diagnoser() func(a, b string) (string, error)

	// RunSpec is the process of one run of arm's current artifact (the row's args on the
	// pinned trace window, in runs/<id>/); CPUs are the caller's to set.
	RunSpec(id RunID, arm Arm, kind RunKind, index, attempt int, canonical bool) RunSpec
	// Kind is an arm's kind (engine/arm): its label, its help argv, its outputs and argv.
	Kind(arm Arm) armkind.Kind
	// ProcessSpec is a run of arm's current artifact on a process of the caller's (a stage-6
	// fixture's own trace and args), its argv the arm kind's; its folder, timeout and CPUs are
	// the caller's to set.
	ProcessSpec(id RunID, arm Arm, kind RunKind, index, attempt int, process armkind.Process) RunSpec
	// RecordedRun runs spec, journaling base as its run_start and announcing RunStarted before
	// started is called; a start the journal refused is the error.
	RecordedRun(ctx context.Context, spec RunSpec, base Record, started func(pid int)) (run.Result, error)
	// ReadRepetition reads a finished canonical run's report: canonicalised, digested, its
	// evidence extracted and kept in the run's folder. An error that StopsTheStage is the
	// campaign's (a full disk, a row whose profile does not fit); any other is the run's.
	ReadRepetition(spec RunSpec) (RepOutput, error)
	// EmitEnd publishes a recorded run_end (RunFinished, and its digest and evidence).
	EmitEnd(end Record, evidence *report.Evidence)

	Append(r Record) error // one journal record, fsync'd; an error is a full disk: stop
	Emit(ev Event)         // published after the journal holds what it says
	// Verdict records and publishes a stage verdict (finding: what a determinism verdict
	// found, kept in the record's note); false when the journal refused it.
	Verdict(st Stage, arm Arm, v verdict.Word, reason, finding string) bool
	Block(st Stage, reason string) // records and publishes that the row cannot go on

	// Runner runs the stage's processes when it watches them itself (the perf stage's samples,
	// whose start it journals from the runner's callback); RecordedRun is the usual way.
	Runner() *run.Runner
	// VerifyPinned re-checks every pinned copy's checksum (the perf stage's before warmups).
	VerifyPinned() error
	// Warn publishes a warning that stops nothing.
	Warn(msg string)
	// PerfOptions tune the performance stage beyond its row (Options.Perf).
	PerfOptions() PerfOptions
	// PerfAllowed says why the performance stage may not run yet (nil when it may): both arms
	// STABLE on their current, non-stale artifacts.
	PerfAllowed() error

	// RunProbe runs one canonical run of an arm with one replay flag's value replaced (stage
	// 3's qualification probes a capacity), journaled like any run, or returns the journal's
	// record of the same probe (probe.go).
	RunProbe(ctx context.Context, req ProbeRequest) (ProbeRun, error)
}

// StopsTheStage says whether an error of ReadRepetition is the campaign's, not the run's: a
// failure to write the campaign, or a row whose [canonical] profile does not fit what the
// harness writes (every later run would fail the same way).
func StopsTheStage(err error) bool {
	var ioe errIO
	var rowErr *RowError
	return errors.As(err, &ioe) || errors.As(err, &rowErr)
}

// Host is the campaign as its stages see it.
func (c *Campaign) Host() StageHost { return campaignHost{c} }

// campaignHost is StageHost over a Campaign: the stages' view, kept off Campaign's own
// methods so that Campaign's are what coordinates. What only stages need is implemented on it,
// in the file of its subject (runspec.go's RunSpec and RecordedRun, outputs.go's
// ReadRepetition, determinism.go's Verdict and Block, probe.go's RunProbe); the core calls
// those as campaignHost{c} where it needs them too (a watched rebuild that blocks, the replay
// of a run's end).
type campaignHost struct{ c *Campaign }

func (h campaignHost) Row() *Row                     { return h.c.row }
func (h campaignHost) History() *History             { return h.c.History() }
func (h campaignHost) TraceWindow() string           { return filepath.Join(h.c.dir, h.c.trace.Window) }
func (h campaignHost) Dir() string                   { return h.c.dir }
func (h campaignHost) CPUs() []int                   { return h.c.CPUs() }
func (h campaignHost) Pinned(arm Arm) PinnedArtifact { return h.c.Pinned(arm) }
func (h campaignHost) PrepareArms() error            { return h.c.arms.prepare() }
func (h campaignHost) Emit(ev Event)                 { h.c.emit(ev) }

func (h campaignHost) Start(st Stage, fn func(ctx context.Context) (cancelled bool)) error {
	return h.c.startStage(st, fn)
}

func (h campaignHost) Refusal() error { return h.c.refusal() }

func (h campaignHost) Runner() *run.Runner      { return h.c.runner }
func (h campaignHost) VerifyPinned() error      { return h.c.arms.verify() }
func (h campaignHost) Warn(msg string)          { h.c.warn(msg) }
func (h campaignHost) PerfOptions() PerfOptions { return h.c.opts.Perf }

func (h campaignHost) Append(r Record) error {
	_, err := h.c.journal.Append(r)
	return err
}

func (h campaignHost) Repetitions(arm Arm) int                      { return h.c.arms.repetitions(arm) }
func (h campaignHost) Diagnoser() func(a, b string) (string, error) { return h.c.opts.Diagnose }

func (h campaignHost) AddRepetition(a Arm) error {
	c := h.c
	if a != Baseline && a != Candidate {
		return fmt.Errorf("no arm %q", a)
	}
	if err := c.refusal(); err != nil {
		return err
	}
	if c.Running() {
		return errors.New("a stage is running; stop it first")
	}
	n := c.arms.repetitions(a) + 1
	if _, err := c.journal.Append(Record{Type: recAddRep, Arm: a, Index: n}); err != nil {
		return err
	}
	c.arms.addRepetition(a)
	return nil
}

// PreflightAt is an arm's preflight at generation gen, if it ran.
func (h *History) PreflightAt(arm Arm, gen int) (Preflight, bool) {
	p, ok := h.preflight[repKey{arm, gen}]
	return p, ok
}

// Diagnosed says whether the diagnosis of an arm's two differing repetitions a and b at
// generation gen is recorded.
func (h *History) Diagnosed(arm Arm, gen int, a, b RunID) bool {
	_, ok := h.diagnoses[diagnosisKey{arm, gen, a, b}]
	return ok
}

// NextAttempt is the attempt number a new run of kind on arm gets: one past the highest
// started, at generation gen (0: at any generation).
func (h *History) NextAttempt(kind RunKind, arm Arm, gen int) int {
	return h.nextAttempt(kind, arm, gen)
}
