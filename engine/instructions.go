package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kvparity/engine/instrument"
	"kvparity/report"
)

// The instruction-count instrument, a secondary and deterministic measure beside stage 7's
// wall-clock gate (which stays the authority): each arm's timed region is counted by callgrind
// in a predeclared number of separate processes ([perf] instructions_runs, alternating arms),
// with the row's seeded, fingerprinted configuration, on the measured CPU. Counting happens in
// software, so a busy machine cannot disturb it; it is 30–50× slower than a replay, so it runs
// as a stage of its own, never beside a perf stage collecting samples (the protocol forbids
// concurrent profilers): `--stage all` runs it after the performance stage. Its result never
// changes a verdict; a ratio above [perf] instructions_threshold is flagged for explanation.

// StageInstructions is the instrument's stage (events and journal).
const StageInstructions Stage = "instructions"

// KindInstructions is one counted replay.
const KindInstructions RunKind = "instructions"

// recInstructions records both arms counted (Data: instrument.InstructionResult); a counted run's
// own figure is the Data of its run_end (an InstructionRun). recInstructionsFailed records why
// the instrument could not give a figure (Data: instructionsFailure): a failed counted run, a
// profile without a count, runs of one arm that did other work. It is no block: the instrument
// decides nothing, so its failure changes no verdict either; the report and the perf pane say it.
const (
	recInstructions       RecordType = "instructions_result"
	recInstructionsFailed RecordType = "instructions_failed"
)

type instructionsFailure struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

// DefaultInstructionsRuns is the number of counted runs per arm when a stage is started on a
// row that declares none.
const DefaultInstructionsRuns = 3

// An InstructionRun is one counted replay: its count of the timed region, the command that
// counted it, and the work it did.
type InstructionRun struct {
	Key     string                  `json:"key"`
	Arm     Arm                     `json:"arm"`
	Index   int                     `json:"index"`
	Count   uint64                  `json:"count"`
	Tool    string                  `json:"tool"`
	Env     []string                `json:"env,omitempty"` // added to kvparity's environment
	Command []string                `json:"command"`
	Work    *report.WorkFingerprint `json:"work,omitempty"`
	Error   string                  `json:"error,omitempty"`
}

// InstructionsDone: the instrument counted both arms (Result), or says why it could not
// (Unavailable: valgrind is not installed; Failed: a counted run failed). Neither changes a
// verdict.
type InstructionsDone struct {
	Result      *instrument.InstructionResult
	Unavailable string
	Failed      string
}

func (InstructionsDone) event() {}

// instructionsState is the journal's view of the instrument: counted runs and results by key.
type instructionsState struct {
	runs     map[string]map[Arm]map[int]*InstructionRun
	results  map[string]*instrument.InstructionResult
	failures map[string]string // the latest failure per key, cleared by a result
}

func instructions(h *History) *instructionsState {
	s := kindState[instructionsState](h, recInstructions)
	if s.runs == nil {
		s.runs, s.results, s.failures = map[string]map[Arm]map[int]*InstructionRun{}, map[string]*instrument.InstructionResult{}, map[string]string{}
	}
	return s
}

func init() {
	defineRecord(recInstructions, func(h *History, r *Record, d *instrument.InstructionResult) {
		s := instructions(h)
		s.results[d.Key] = d
		delete(s.failures, d.Key)
	}, func(c *Campaign, h *History, r *Record, d *instrument.InstructionResult) {
		c.emit(InstructionsDone{Result: d})
	})
	defineRecord(recInstructionsFailed, func(h *History, r *Record, d *instructionsFailure) {
		instructions(h).failures[d.Key] = d.Reason
	}, func(c *Campaign, h *History, r *Record, d *instructionsFailure) {
		if h.perfKey() == d.Key && h.Instructions() == nil {
			c.emit(InstructionsDone{Failed: d.Reason})
		}
	})
	defineRunData(RecRunEnd, []RunKind{KindInstructions}, func(h *History, r *Record, d *InstructionRun) {
		if d.Error != "" || d.Count == 0 {
			return
		}
		s := instructions(h)
		if s.runs[d.Key] == nil {
			s.runs[d.Key] = map[Arm]map[int]*InstructionRun{Baseline: {}, Candidate: {}}
		}
		s.runs[d.Key][d.Arm][d.Index] = d
	})
}

// Instructions is the instrument's result for the current artifacts (nil before it counted
// them).
func (h *History) Instructions() *instrument.InstructionResult {
	return instructions(h).results[h.perfKey()]
}

// InstructionsFailure is why the instrument gave no figure for the current artifacts ("" when
// it gave one, or never failed).
func (h *History) InstructionsFailure() string {
	if h.Instructions() != nil {
		return ""
	}
	return instructions(h).failures[h.perfKey()]
}

// instructionsFailed records and says why the instrument gives no figure; a journal that
// refuses the record (a full disk) blocks, as for any stage.
func (c *Campaign) instructionsFailed(key, reason string) {
	if _, err := c.journal.Append(Record{Type: recInstructionsFailed, Stage: StageInstructions, Data: MarshalData(instructionsFailure{Key: key, Reason: reason})}); err != nil {
		c.block(StageInstructions, err.Error())
		return
	}
	c.emit(LogLine{Run: "instructions", Line: "instructions: not counted: " + reason})
	c.emit(InstructionsDone{Failed: reason})
}

// StartInstructions counts both arms' timed regions (or publishes the result already counted
// for these artifacts). runs is the number of counted runs per arm (0: the row's
// instructions_runs, or DefaultInstructionsRuns).
func (c *Campaign) StartInstructions(runs int) error {
	if err := c.refusal(); err != nil {
		return err
	}
	return c.startStage(StageInstructions, func(ctx context.Context) bool {
		if err := c.prepareArms(); err != nil {
			c.block(StageInstructions, err.Error())
			return false
		}
		return c.countInstructions(ctx, runs)
	})
}

// instructionsRuns is the number of counted runs per arm a stage started with runs asks for.
func (c *Campaign) instructionsRuns(runs int) int {
	switch {
	case runs > 0:
		return runs
	case c.row.Perf.InstructionsRuns > 0:
		return c.row.Perf.InstructionsRuns
	}
	return DefaultInstructionsRuns
}

// countInstructions runs the missing counted runs, alternating arms, then records the result.
// It returns whether the stage was cancelled.
func (c *Campaign) countInstructions(ctx context.Context, runs int) bool {
	key := perfKey(c.Pinned(Baseline).Gen, c.Pinned(Candidate).Gen)
	st := instructions(c.history())
	if r := st.results[key]; r != nil {
		c.emit(InstructionsDone{Result: r}) // counted for these artifacts already: never recounted silently
		return false
	}
	vg, err := instrument.FindValgrind(ctx)
	if err != nil {
		c.emit(LogLine{Run: "instructions", Line: "instructions: " + err.Error()})
		c.emit(InstructionsDone{Unavailable: err.Error()})
		return false
	}
	n := c.instructionsRuns(runs)
	cpus := c.CPUs()
	cpu := cpus[len(cpus)-1]
	done := st.runs[key]
	for i := 1; i <= n; i++ {
		for _, arm := range []Arm{Baseline, Candidate} {
			if done != nil && done[arm][i] != nil {
				continue
			}
			cancelled, err := c.countRun(ctx, vg, key, arm, i, cpu)
			if cancelled {
				return true
			}
			var failed errCounted
			if errors.As(err, &failed) {
				c.instructionsFailed(key, err.Error())
				return false
			}
			if err != nil { // the journal refused a record
				c.block(StageInstructions, err.Error())
				return false
			}
		}
	}
	st = instructions(c.history())
	counts := map[Arm][]uint64{}
	for _, arm := range []Arm{Baseline, Candidate} {
		var first *InstructionRun
		for i := 1; i <= n; i++ {
			r := st.runs[key][arm][i]
			if first == nil {
				first = r
			} else if r.Work != nil && first.Work != nil {
				if d, differ := r.Work.FirstDifference(*first.Work); differ {
					c.instructionsFailed(key, fmt.Sprintf("the %s arm's counted runs %d and %d simulated other work (%s): counts of different work are not one figure", arm, first.Index, r.Index, d))
					return false
				}
			}
			counts[arm] = append(counts[arm], r.Count)
		}
	}
	res := instrument.DecideInstructions(vg.Version, []string{c.region(Baseline).Name, c.region(Candidate).Name}, counts[Baseline], counts[Candidate], c.row.Perf.InstructionsThreshold)
	res.Key = key
	if _, err := c.journal.Append(Record{Type: recInstructions, Stage: StageInstructions, Data: MarshalData(res)}); err != nil {
		c.block(StageInstructions, err.Error())
		return false
	}
	c.emit(InstructionsDone{Result: &res})
	return false
}

// region is the timed region callgrind counts in arm's artifact.
func (c *Campaign) region(arm Arm) instrument.Region {
	return c.kind(arm).Region()
}

// errCounted is a counted run that gave no count (it failed, or its profile has none): the
// instrument's failure, which changes no verdict.
type errCounted struct{ error }

// countRun runs arm's replay once under callgrind and records its count. err is an errCounted
// when the run gave no count, else the journal's refusal.
func (c *Campaign) countRun(ctx context.Context, vg instrument.Valgrind, key string, arm Arm, index, cpu int) (cancelled bool, err error) {
	attempt := 1
	for _, r := range c.history().runs { // attempts of this counted run (a killed kvparity's too)
		if s := r.Start; s != nil && s.Kind == KindInstructions && s.Arm == arm && s.Index == index && s.Gen == c.Pinned(arm).Gen {
			attempt = max(attempt, s.Attempt+1)
		}
	}
	id := RunID(fmt.Sprintf("instructions/%s/%s-%02d", key, arm, index))
	if attempt > 1 {
		id += RunID(fmt.Sprintf("-a%d", attempt))
	}
	spec := campaignHost{c}.RunSpec(id, arm, KindInstructions, index, attempt, false)
	spec.WithoutProgress() // nothing but the count
	out := filepath.Join(spec.Dir, "callgrind.out")
	region := c.region(arm)
	argv := vg.Argv(out, region, spec.Binary, spec.Args)
	spec.Binary, spec.Args = argv[0], argv[1:]
	if len(region.Env) > 0 {
		spec.Env = append(os.Environ(), region.Env...)
	}
	spec.CPUs = []int{cpu}
	if spec.Timeout > 0 {
		spec.Timeout *= 60 // a counted replay runs 30–50× slower
	}
	base := Record{Run: id, Arm: arm, Kind: KindInstructions, Index: index, Attempt: attempt, Gen: c.Pinned(arm).Gen}
	started := time.Now()
	res, startErr := c.recordedRun(ctx, spec, base, nil)
	if startErr != nil {
		return false, startErr
	}
	c.emit(RunFinished{Run: id, Arm: arm, Kind: KindInstructions, ExitCode: res.ExitCode, Signal: res.Signal, Elapsed: res.Elapsed, Err: res.Err})
	if res.Cancelled || ctx.Err() != nil {
		return true, nil
	}
	ir := InstructionRun{Key: key, Arm: arm, Index: index, Tool: vg.Version, Env: region.Env, Command: argv}
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
	end := EndRecord(base, res)
	end.Error = ir.Error
	end.Data = MarshalData(ir)
	if _, err := c.journal.Append(end); err != nil {
		return false, err
	}
	if ir.Error != "" {
		return false, errCounted{fmt.Errorf("%s (%s): %s", id, arm, ir.Error)}
	}
	c.emit(LogLine{Run: id, Line: fmt.Sprintf("%s: %d instructions in the timed region (%.1f s under %s)", arm, ir.Count, time.Since(started).Seconds(), vg.Version)})
	return false, nil
}

// countAfterDeterminism is the desk loop's instruction count: once the determinism stage a
// rebuild started has ended with both arms STABLE on the generations it measured, one counted
// run per arm shows the rebuilt candidate's count ratio beside its verdict. Only for rows that
// declare instructions_runs; a newer rebuild (another generation) makes it moot.
func (c *Campaign) countAfterDeterminism(ctx context.Context) {
	if c.row.Perf.InstructionsRuns == 0 {
		return
	}
	gens := [2]int{c.Pinned(Baseline).Gen, c.Pinned(Candidate).Gen}
	go func() {
		c.waitStage()
		if ctx.Err() != nil || gens != [2]int{c.Pinned(Baseline).Gen, c.Pinned(Candidate).Gen} || c.perfAllowed() != nil {
			return
		}
		if err := c.StartInstructions(1); err != nil && !strings.Contains(err.Error(), "stage is running") {
			c.warn("watch: instructions: " + err.Error())
		}
	}()
}
