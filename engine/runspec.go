package engine

import (
	armkind "kvparity/engine/arm"
	"kvparity/engine/run"
	"kvparity/report"
)

// A runSpec is one run of an arm: the process engine/run starts, and what the journal records
// of it (its id, arm, kind, index and attempt).
type runSpec struct {
	run.Spec
	id      RunID
	arm     Arm
	kind    RunKind
	index   int // repetition, pair or warmup index (1-based)
	attempt int // 1-based
	// armKind made Args from process; outputs are the files the run writes (process.Outputs).
	armKind armkind.Kind
	process armkind.Process
}

// runEvents publishes what engine/run hears from a running replay as the engine's events.
type runEvents func(Event)

func (e runEvents) Progress(id string, p run.Progress) {
	e(RunProgress{Run: RunID(id), VirtualTimeMs: p.VirtualTimeMs, Completed: p.Completed, Total: p.Total, Elapsed: p.Elapsed})
}

func (e runEvents) Log(id, line string) { e(LogLine{Run: RunID(id), Line: line}) }

func (e runEvents) Pressure(id string, r report.PressureRecord) {
	e(PressureEvent{Run: RunID(id), Record: r})
}

// outputs are the files the run writes in its folder, as its arm's kind names them.
func (s *runSpec) Outputs() armkind.Outputs { return s.process.Outputs }

// WithoutProgress drops the progress side channel (the embedded engine's --progress-file and
// its file) from a run that must do nothing but its measured work: a gated perf sample, a
// counted run of the instruction instrument. The arm's kind makes the argv again without it,
// so it is called before anything else edits Args.
func (s *runSpec) WithoutProgress() {
	s.process.Outputs.Progress = ""
	s.Args, s.ProgressFile = s.armKind.Argv(s.process), ""
}
