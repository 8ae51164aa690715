package engine

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"kvparity/report"
	"kvparity/verdict"
)

// armEvidence is the lifecycle evidence of an arm's first counted repetition that recorded
// any (nil when none did), read from the campaign directory dir.
func (h *History) armEvidence(dir string, arm Arm) (*report.Evidence, RunID) {
	for _, end := range h.ArmResult(arm).Ends {
		if end.Evidence != "" {
			if ev := LoadEvidence(filepath.Join(dir, end.Evidence)); ev != nil {
				return ev, end.Run
			}
		}
	}
	return nil, ""
}

// coverage applies every stage-3 rule to each arm's lifecycle evidence: PASS when every rule
// holds on both arms, FAIL naming each broken rule (or a STABLE arm without evidence),
// Undecided while no repetition recorded any. A broken rule over a default the row never
// declared (report.Rule.Assumed) is named after the rules the row did declare.
func (h *History) coverage(dir string) verdict.Outcome {
	var bad, assumed []string
	any := false
	for _, arm := range []Arm{Baseline, Candidate} {
		ev, _ := h.armEvidence(dir, arm)
		if ev == nil {
			if h.ArmResult(arm).Verdict == verdict.Stable {
				bad = append(bad, fmt.Sprintf("%s: no lifecycle evidence was recorded", arm))
			}
			continue
		}
		any = true
		for _, r := range ev.Rules {
			switch {
			case r.Passed:
			case r.Assumed:
				assumed = append(assumed, fmt.Sprintf("%s %s: %s", arm, r.Name, r.Why))
			default:
				bad = append(bad, fmt.Sprintf("%s %s: %s", arm, r.Name, r.Why))
			}
		}
	}
	// Stage 6: a forced lifecycle that did not happen on an arm is missing evidence like a
	// broken rule. A refused fixture (a harness without the flag, a lifecycle the harness
	// cannot drive offline) decides nothing: the report states it.
	for _, f := range h.Fixtures() {
		if f.Verdict == verdict.Fail {
			any = true
			bad = append(bad, fmt.Sprintf("%s stage-6 fixture %s: %s", f.Arm, f.Fixture, f.Reason))
		}
	}
	bad = append(bad, assumed...)
	switch {
	case len(bad) > 0:
		return verdict.Of(verdict.Fail, "%s", strings.Join(bad, "; "))
	case !any:
		return verdict.Of(verdict.Undecided, "no repetition recorded lifecycle evidence yet")
	}
	return verdict.Of(verdict.Pass, "every stage-3 rule holds on both arms")
}

// Performance is the paired gate's outcome on the current artifacts, from its result record.
func (h *History) Performance() verdict.Outcome {
	p := h.Perf()
	switch {
	case p.Result != nil:
		return verdict.Outcome{Verdict: p.Result.Verdict, Reason: p.Result.Reason}
	case p.Started:
		// Not "in progress": the fold cannot tell a running stage from a stopped one.
		return verdict.Of(verdict.Undecided, "%d of %d pairs recorded; the series has no result yet", p.pairs, h.row.Perf.Pairs)
	}
	return verdict.Outcome{Verdict: verdict.Undecided}
}

// Footprint is the footprint gate's outcome on the current artifacts.
func (h *History) Footprint() verdict.Outcome {
	if f := h.Perf().Footprint; f != nil {
		return verdict.Outcome{Verdict: f.Verdict, Reason: f.Reason}
	}
	return verdict.Outcome{Verdict: verdict.Undecided}
}

// Inputs is everything stage 8 combines that the journal and the campaign directory dir
// record; the caller adds the exception coverage of a byte mismatch (diffview judges it).
func (h *History) Inputs(dir string) verdict.Inputs {
	return verdict.Inputs{
		Baseline:    h.ArmResult(Baseline).outcome(),
		Candidate:   h.ArmResult(Candidate).outcome(),
		Parity:      h.Parity(),
		Evidence:    h.coverage(dir),
		Performance: h.Performance(),
		Footprint:   h.Footprint(),
		Blocked:     h.blocked,

		SemanticBlock:    h.blockOf(StageDeterminism, StageParity),
		PerformanceBlock: h.blockOf(StagePerf),
	}
}

// blockOf is the reasons of the blocks recorded since the last run started of the stages
// given, "" when none blocked.
func (h *History) blockOf(stages ...Stage) string {
	var why []string
	for _, b := range h.blocks {
		if slices.Contains(stages, b.stage) {
			why = append(why, fmt.Sprintf("the %s stage is blocked: %s", b.stage, b.reason))
		}
	}
	return strings.Join(why, "; ")
}
