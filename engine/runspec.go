package engine

import (
	"context"
	"errors"
	"path/filepath"
	"time"

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
	p, k := c.Pinned(arm), h.Kind(arm)
	runDir := filepath.Join(c.dir, layout.DirRuns, filepath.FromSlash(string(id)))
	out := k.Outputs(runDir)
	if !canonical {
		out.Canonical = ""
	}
	spec := RunSpec{id: id, arm: arm, kind: kind, index: index, attempt: attempt,
		Spec: run.Spec{ID: string(id), Binary: filepath.Join(c.dir, p.Path), Dir: runDir, Root: c.dir, Timeout: c.row.Determinism.Timeout.Duration}}
	spec.armKind, spec.process = k, armkind.Process{Trace: campaignHost{c}.TraceWindow(), Args: c.row.Replay.Args, Outputs: out, Variant: p.Variant}
	spec.ProgressFile = out.Progress
	spec.Args = k.Argv(spec.process)
	return spec
}

// ProcessSpec is a run of arm's current artifact on a process of the caller's (a stage-6
// fixture's own trace and args), its argv the arm kind's.
func (h campaignHost) ProcessSpec(id RunID, arm Arm, kind RunKind, index, attempt int, process armkind.Process) RunSpec {
	c := h.c
	ak := h.Kind(arm)
	spec := RunSpec{id: id, arm: arm, kind: kind, index: index, attempt: attempt, armKind: ak, process: process}
	spec.Spec.ID, spec.Binary, spec.Args, spec.Root = string(id), filepath.Join(c.dir, c.Pinned(arm).Path), ak.Argv(process), c.dir
	return spec
}

// RecordedRun runs spec with its start journaled (base as a run_start, with the pid and the
// CPUs read back) and announced (RunStarted), then calls started with the pid. A start the
// journal refused kills the process and is the error returned.
func (h campaignHost) RecordedRun(ctx context.Context, spec RunSpec, base Record, started func(pid int)) (run.Result, error) {
	c := h.c
	var startErr error
	res := c.runner.Run(ctx, spec.Spec, func(pid int, cpus []int) error {
		rec := base
		rec.Type, rec.PID, rec.CPUs = RecRunStart, pid, cpus
		if _, err := c.journal.Append(rec); err != nil {
			startErr = err
			return err
		}
		if started != nil {
			started(pid)
		}
		c.emit(RunStarted{Run: base.Run, Arm: base.Arm, Kind: base.Kind, Repetition: base.Index, Variation: base.Variation, Gen: base.Gen, CPUs: cpus, PID: pid, At: time.Now()})
		return nil
	})
	return res, startErr
}

// EndRecord is base's run_end for a process that ended (its error is the caller's to set:
// a clean exit may still have bad outputs).
func EndRecord(base Record, res run.Result) Record {
	end := base
	end.Type, end.PID, end.CPUs = RecRunEnd, res.PID, res.CPUs
	end.ExitCode, end.Signal, end.TimedOut, end.ElapsedMs = res.ExitCode, res.Signal, res.TimedOut, float64(res.Elapsed.Microseconds())/1000
	return end
}

// EmitEnd publishes a recorded run_end (live, or replayed from the journal on open).
func (h campaignHost) EmitEnd(end Record, evidence *report.Evidence) {
	c := h.c
	var err error
	if end.Error != "" {
		err = errors.New(end.Error)
	}
	c.emit(RunFinished{Run: end.Run, Arm: end.Arm, Kind: end.Kind, ExitCode: end.ExitCode, Signal: end.Signal,
		TimedOut: end.TimedOut, Elapsed: time.Duration(end.ElapsedMs * float64(time.Millisecond)), Err: err})
	if end.Digest == "" {
		return
	}
	c.emit(DigestReady{Run: end.Run, Arm: end.Arm, Repetition: end.Index, Digest: end.Digest,
		ReportPath: filepath.Join(c.dir, end.ReportPath), FixedPoint: end.FixedPoint})
	if evidence == nil && end.Evidence != "" {
		evidence = LoadEvidence(filepath.Join(c.dir, end.Evidence))
	}
	if evidence != nil {
		c.emit(CoverageReady{Run: end.Run, Arm: end.Arm, Evidence: evidence})
		for _, p := range evidence.Pressure {
			c.emit(PressureEvent{Run: end.Run, Record: p})
		}
	}
}
