package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"kvparity/engine/profile"
)

// Protocol stage 7's investigation: "attribute the regression to specific code before
// optimizing or requesting a waiver". After equivalent semantic work is confirmed (the caller
// says how: the campaign report's semantic verdict), each arm's replay runs under Linux
// perf's cpu-clock sampler, one at a time on the performance stage's measured CPU, with the
// row's representative configuration and identical settings for both; the two profiles are
// compared (self-time share per function and the delta, the call paths that grew, functions
// sampled only in the candidate), and the two binaries' symbol tables attribute any `.text`
// growth to symbols. Everything is kept under investigation/ and runs/investigate/.
//
// This file is the stage's vocabulary (its stage, run kind, record, document and event), which
// the journal, the report and the workbench read; engine/investigate runs it.

// StageInvestigate is the investigation's stage name (events and journal).
const StageInvestigate Stage = "investigate"

// KindProfile is a profiled replay of the investigation.
const KindProfile RunKind = "profile"

// RecInvestigation records a finished investigation (Data: an InvestigationNote).
const RecInvestigation RecordType = "investigation"

// An InvestigationNote is what the journal keeps of an investigation: its file and the top
// function deltas (the whole Investigation is in the file).
type InvestigationNote struct {
	File string                  `json:"file"`
	Top  []profile.FunctionDelta `json:"top"`
}

func init() { defineRecord[InvestigationNote](RecInvestigation, nil, nil) } // nothing folds it: the report reads the file

// FileInvestigation is the investigation's result, relative to the campaign folder.
const FileInvestigation = "investigation/profile.json"

// An Investigation is stage 7's differential profile of baseline and candidate.
type Investigation struct {
	// Equivalence says how equivalent semantic work was established before profiling.
	Equivalence string `json:"equivalence"`
	Profiler    string `json:"profiler"` // e.g. "perf version 6.1 · cpu-clock at 997 Hz · call graphs (-g)"
	CPU         int    `json:"cpu"`      // the performance stage's measured CPU
	// Rounds is how many times each arm's replay was profiled (baseline and candidate
	// alternating) to reach enough samples; Runs are those replays in the order they ran.
	Rounds       int                  `json:"rounds,omitempty"`
	Runs         []ProfiledRun        `json:"runs"`
	Differential profile.Differential `json:"differential"`
	Text         *profile.TextGrowth  `json:"text_growth,omitempty"` // nil when nm is missing
	Reproduce    []string             `json:"reproduce"`             // the commands, one per arm (each run Rounds times)
	Warnings     []string             `json:"warnings,omitempty"`
	Started      time.Time            `json:"started"`
}

// RoundsPhrase says how the samples were gathered when one run per arm was not enough:
// " in 9 rounds per arm, alternating", or nothing.
func (inv *Investigation) RoundsPhrase() string {
	if inv.Rounds <= 1 {
		return ""
	}
	return fmt.Sprintf(" in %d rounds per arm, alternating", inv.Rounds)
}

// A ProfiledRun is one arm's profiled replay.
type ProfiledRun struct {
	Arm       Arm     `json:"arm"`
	Run       RunID   `json:"run"`
	Data      string  `json:"perf_data"` // relative to the campaign folder
	Samples   int     `json:"samples"`
	ElapsedMs float64 `json:"elapsed_ms"`
}

// InvestigationDone: the investigation finished and is kept in FileInvestigation.
type InvestigationDone struct{ Investigation *Investigation }

func (InvestigationDone) event() {}

// LoadInvestigation reads a campaign's kept investigation (nil, nil when there is none).
func LoadInvestigation(dir string) (*Investigation, error) {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(FileInvestigation)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var inv Investigation
	if err := json.Unmarshal(b, &inv); err != nil {
		return nil, fmt.Errorf("%s: %w", FileInvestigation, err)
	}
	return &inv, nil
}
