package engine

import (
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
//
// This file is the instrument's vocabulary (its stage, run kind, records, their fold and its
// event), which the journal, the report and the workbench read; engine/instructions counts.

// StageInstructions is the instrument's stage (events and journal).
const StageInstructions Stage = "instructions"

// KindInstructions is one counted replay.
const KindInstructions RunKind = "instructions"

// RecInstructions records both arms counted (Data: instrument.InstructionResult); a counted run's
// own figure is the Data of its run_end (an InstructionRun). RecInstructionsFailed records why
// the instrument could not give a figure (Data: an InstructionsFailure): a failed counted run, a
// profile without a count, runs of one arm that did other work. It is no block: the instrument
// decides nothing, so its failure changes no verdict either; the report and the perf pane say it.
const (
	RecInstructions       RecordType = "instructions_result"
	RecInstructionsFailed RecordType = "instructions_failed"
)

// An InstructionsFailure is why the instrument gave no figure for the series Key.
type InstructionsFailure struct {
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
	s := kindState[instructionsState](h, RecInstructions)
	if s.runs == nil {
		s.runs, s.results, s.failures = map[string]map[Arm]map[int]*InstructionRun{}, map[string]*instrument.InstructionResult{}, map[string]string{}
	}
	return s
}

func init() {
	defineRecord(RecInstructions, func(h *History, r *Record, d *instrument.InstructionResult) {
		s := instructions(h)
		s.results[d.Key] = d
		delete(s.failures, d.Key)
	}, func(c *Campaign, h *History, r *Record, d *instrument.InstructionResult) {
		c.emit(InstructionsDone{Result: d})
	})
	defineRecord(RecInstructionsFailed, func(h *History, r *Record, d *InstructionsFailure) {
		instructions(h).failures[d.Key] = d.Reason
	}, func(c *Campaign, h *History, r *Record, d *InstructionsFailure) {
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

// InstructionsAt is the instrument's recorded result for the series key (nil before it counted
// them): a series is counted once, never recounted silently.
func (h *History) InstructionsAt(key string) *instrument.InstructionResult {
	return instructions(h).results[key]
}

// InstructionRunAt is the recorded count of arm's counted run index in the series key (nil when
// that run has not given one).
func (h *History) InstructionRunAt(key string, arm Arm, index int) *InstructionRun {
	return instructions(h).runs[key][arm][index]
}
