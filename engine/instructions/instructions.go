package instructions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kvparity/engine"
	"kvparity/engine/instrument"
	"kvparity/report"
)

// Start counts both arms' timed regions (or publishes the result already counted for these
// artifacts). runs is the number of counted runs per arm (0: the row's instructions_runs, or
// engine.DefaultInstructionsRuns). A desk row is refused (engine.ErrDeskBuild): it counts no
// release artifact.
func Start(h engine.StageHost, runs int) error {
	if err := h.Refusal(); err != nil {
		return err
	}
	if h.Row().Desk() {
		return engine.ErrDeskBuild
	}
	return h.Start(engine.StageInstructions, func(ctx context.Context) bool {
		if err := h.PrepareArms(); err != nil {
			h.Block(engine.StageInstructions, err.Error())
			return false
		}
		return count(ctx, h, runs)
	})
}

// runsPerArm is the number of counted runs per arm a stage started with runs asks for.
func runsPerArm(row *engine.Row, runs int) int {
	switch {
	case runs > 0:
		return runs
	case row.Perf.InstructionsRuns > 0:
		return row.Perf.InstructionsRuns
	}
	return engine.DefaultInstructionsRuns
}

// failed records and says why the instrument gives no figure; a journal that refuses the
// record (a full disk) blocks, as for any stage.
func failed(h engine.StageHost, key, reason string) {
	if err := h.Append(engine.Record{Type: engine.RecInstructionsFailed, Stage: engine.StageInstructions, Data: engine.MarshalData(engine.InstructionsFailure{Key: key, Reason: reason})}); err != nil {
		h.Block(engine.StageInstructions, err.Error())
		return
	}
	h.Emit(engine.LogLine{Run: "instructions", Line: "instructions: not counted: " + reason})
	h.Emit(engine.InstructionsDone{Failed: reason})
}

// count runs the missing counted runs, alternating arms, then records the result. It returns
// whether the stage was cancelled.
func count(ctx context.Context, h engine.StageHost, runs int) bool {
	key := engine.PerfKey(h.Pinned(engine.Baseline).Gen, h.Pinned(engine.Candidate).Gen)
	hist := h.History()
	if r := hist.InstructionsAt(key); r != nil {
		h.Emit(engine.InstructionsDone{Result: r}) // counted for these artifacts already: never recounted silently
		return false
	}
	vg, err := instrument.FindValgrind(ctx)
	if err != nil {
		h.Emit(engine.LogLine{Run: "instructions", Line: "instructions: " + err.Error()})
		h.Emit(engine.InstructionsDone{Unavailable: err.Error()})
		return false
	}
	row := h.Row()
	n := runsPerArm(row, runs)
	cpus := h.CPUs()
	cpu := cpus[len(cpus)-1]
	for i := 1; i <= n; i++ {
		for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
			if hist.InstructionRunAt(key, arm, i) != nil {
				continue
			}
			cancelled, err := countRun(ctx, h, vg, key, arm, i, cpu)
			if cancelled {
				return true
			}
			var notCounted errCounted
			if errors.As(err, &notCounted) {
				failed(h, key, err.Error())
				return false
			}
			if err != nil { // the journal refused a record
				h.Block(engine.StageInstructions, err.Error())
				return false
			}
		}
	}
	hist = h.History()
	counts := map[engine.Arm][]uint64{}
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		var first *engine.InstructionRun
		for i := 1; i <= n; i++ {
			r := hist.InstructionRunAt(key, arm, i)
			if first == nil {
				first = r
			} else if r.Work != nil && first.Work != nil {
				if d, differ := r.Work.FirstDifference(*first.Work); differ {
					failed(h, key, fmt.Sprintf("the %s arm's counted runs %d and %d simulated other work (%s): counts of different work are not one figure", arm, first.Index, r.Index, d))
					return false
				}
			}
			counts[arm] = append(counts[arm], r.Count)
		}
	}
	res := instrument.DecideInstructions(vg.Version, []string{h.Kind(engine.Baseline).Region().Name, h.Kind(engine.Candidate).Region().Name}, counts[engine.Baseline], counts[engine.Candidate], row.Perf.InstructionsThreshold)
	res.Key = key
	if err := h.Append(engine.Record{Type: engine.RecInstructions, Stage: engine.StageInstructions, Data: engine.MarshalData(res)}); err != nil {
		h.Block(engine.StageInstructions, err.Error())
		return false
	}
	h.Emit(engine.InstructionsDone{Result: &res})
	return false
}

// errCounted is a counted run that gave no count (it failed, or its profile has none): the
// instrument's failure, which changes no verdict.
type errCounted struct{ error }

// countRun runs arm's replay once under callgrind and records its count. err is an errCounted
// when the run gave no count, else the journal's refusal.
func countRun(ctx context.Context, h engine.StageHost, vg instrument.Valgrind, key string, arm engine.Arm, index, cpu int) (cancelled bool, err error) {
	gen := h.Pinned(arm).Gen
	attempt := 1
	for _, r := range h.History().Runs() { // attempts of this counted run (a killed kvparity's too)
		if s := r.Start; s != nil && s.Kind == engine.KindInstructions && s.Arm == arm && s.Index == index && s.Gen == gen {
			attempt = max(attempt, s.Attempt+1)
		}
	}
	id := engine.RunID(fmt.Sprintf("instructions/%s/%s-%02d", key, arm, index))
	if attempt > 1 {
		id += engine.RunID(fmt.Sprintf("-a%d", attempt))
	}
	spec := h.RunSpec(id, arm, engine.KindInstructions, index, attempt, false)
	spec.WithoutProgress() // nothing but the count
	out := filepath.Join(spec.Dir, "callgrind.out")
	region := h.Kind(arm).Region()
	argv := vg.Argv(out, region, spec.Binary, spec.Args)
	spec.Binary, spec.Args = argv[0], argv[1:]
	if len(region.Env) > 0 {
		spec.Env = append(os.Environ(), region.Env...)
	}
	spec.CPUs = []int{cpu}
	if spec.Timeout > 0 {
		spec.Timeout *= 60 // a counted replay runs 30–50× slower
	}
	base := engine.Record{Run: id, Arm: arm, Kind: engine.KindInstructions, Index: index, Attempt: attempt, Gen: gen}
	started := time.Now()
	res, startErr := h.RecordedRun(ctx, spec, base, nil)
	if startErr != nil {
		return false, startErr
	}
	h.Emit(engine.RunFinished{Run: id, Arm: arm, Kind: engine.KindInstructions, ExitCode: res.ExitCode, Signal: res.Signal, Elapsed: res.Elapsed, Err: res.Err})
	if res.Cancelled || ctx.Err() != nil {
		return true, nil
	}
	ir := engine.InstructionRun{Key: key, Arm: arm, Index: index, Tool: vg.Version, Env: region.Env, Command: argv}
	if res.Err != nil {
		ir.Error = res.Err.Error()
	} else if ir.Count, err = instrument.ReadInstructionCount(out); err != nil {
		ir.Error = err.Error()
	} else if ir.Count == 0 {
		ir.Error = fmt.Sprintf("%s: callgrind counted no instruction in %s: the artifact has no such timed region (built without kvparity's timing extension?)", out, region.Name)
	} else {
		timings := spec.Outputs().Timings
		t, terr := instrument.ReadTiming(timings, "replay_execution_ms")
		if terr == nil && t.Work != nil {
			fp, ferr := report.ParseWorkFingerprint(t.Work, timings+": line 1")
			if ferr != nil {
				ir.Error = "malformed timing record " + ferr.Error()
			} else {
				ir.Work = &fp
			}
		}
	}
	end := engine.EndRecord(base, res)
	end.Error = ir.Error
	end.Data = engine.MarshalData(ir)
	if err := h.Append(end); err != nil {
		return false, err
	}
	if ir.Error != "" {
		return false, errCounted{fmt.Errorf("%s (%s): %s", id, arm, ir.Error)}
	}
	h.Emit(engine.LogLine{Run: id, Line: fmt.Sprintf("%s: %d instructions in the timed region (%.1f s under %s)", arm, ir.Count, time.Since(started).Seconds(), vg.Version)})
	return false, nil
}

// AfterDeterminism is the desk loop's instruction count, which the workbench's Controller starts
// after a watched rebuild's determinism stage: once that stage (running now; wait blocks until
// it has ended) has ended with both arms STABLE on the generations it measured, one counted run
// per arm shows the rebuilt candidate's count ratio beside its verdict. Only for rows that
// declare instructions_runs; a newer rebuild (another generation) or the watch's end (ctx)
// makes it moot.
func AfterDeterminism(ctx context.Context, h engine.StageHost, wait func()) {
	if h.Row().Perf.InstructionsRuns == 0 {
		return
	}
	gens := [2]int{h.Pinned(engine.Baseline).Gen, h.Pinned(engine.Candidate).Gen}
	go func() {
		wait()
		if ctx.Err() != nil || gens != [2]int{h.Pinned(engine.Baseline).Gen, h.Pinned(engine.Candidate).Gen} || h.PerfAllowed() != nil {
			return
		}
		if err := Start(h, 1); err != nil && !strings.Contains(err.Error(), "stage is running") {
			h.Warn("watch: instructions: " + err.Error())
		}
	}()
}
