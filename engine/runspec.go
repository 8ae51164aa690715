package engine

import (
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

// withoutProgress drops the embedded engine's progress side channel (--progress-file and its
// file) from a run that must do nothing but its measured work: a gated perf sample, a counted
// run of the instruction instrument.
func (s *runSpec) withoutProgress() {
	args := make([]string, 0, len(s.Args))
	for i := 0; i < len(s.Args); i++ {
		if s.Args[i] == "--progress-file" {
			i++
			continue
		}
		args = append(args, s.Args[i])
	}
	s.Args, s.ProgressFile = args, ""
}
