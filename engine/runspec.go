package engine

import (
	"path/filepath"

	armkind "kvparity/engine/arm"
	"kvparity/engine/run"
	"kvparity/internal/layout"
	"kvparity/report"
)

// A RunSpec is one run of an arm as StageHost.RunSpec builds it: the process engine/run starts
// (its binary, args, folder, CPUs), and what the journal records of it (its id, arm, kind,
// index and attempt).
type RunSpec struct {
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
func (s *RunSpec) Outputs() armkind.Outputs { return s.process.Outputs }

// WithoutProgress drops the progress side channel (the embedded engine's --progress-file and
// its file) from a run that must do nothing but its measured work: a gated perf sample, a
// counted run of the instruction instrument. The arm's kind makes the argv again without it,
// so it is called before anything else edits Args.
func (s *RunSpec) WithoutProgress() {
	s.process.Outputs.Progress = ""
	s.Args, s.ProgressFile = s.armKind.Argv(s.process), ""
}

// RunSpec builds the process of one run of arm's current artifact: the pinned binary, the
// row's args on the pinned trace window, --iterations 1 and a timings file in the run's own
// folder, a canonical report file when canonical is set (never for gated perf samples), and
// what the arm's kind adds (engine/arm: for the embedded engine its --variant and
// --progress-file). CPUs is left for the caller.
func (h campaignHost) RunSpec(id RunID, arm Arm, kind RunKind, index, attempt int, canonical bool) RunSpec {
	c := h.c
	p, k := c.Pinned(arm), c.kind(arm)
	runDir := filepath.Join(c.dir, layout.DirRuns, filepath.FromSlash(string(id)))
	out := k.Outputs(runDir)
	if !canonical {
		out.Canonical = ""
	}
	spec := RunSpec{id: id, arm: arm, kind: kind, index: index, attempt: attempt,
		Spec: run.Spec{ID: string(id), Binary: filepath.Join(c.dir, p.Path), Dir: runDir, Root: c.dir, Timeout: c.row.Determinism.Timeout.Duration}}
	spec.armKind, spec.process = k, armkind.Process{Trace: c.traceWindow(), Args: c.row.Replay.Args, Outputs: out, Variant: p.Variant}
	spec.ProgressFile = out.Progress
	spec.Args = k.Argv(spec.process)
	return spec
}

// ProcessSpec is a run of arm's current artifact on a process of the caller's (a stage-6
// fixture's own trace and args), its argv the arm kind's.
func (h campaignHost) ProcessSpec(id RunID, arm Arm, kind RunKind, index, attempt int, process armkind.Process) RunSpec {
	c := h.c
	ak := c.kind(arm)
	spec := RunSpec{id: id, arm: arm, kind: kind, index: index, attempt: attempt, armKind: ak, process: process}
	spec.Spec.ID, spec.Binary, spec.Args, spec.Root = string(id), filepath.Join(c.dir, c.Pinned(arm).Path), ak.Argv(process), c.dir
	return spec
}
