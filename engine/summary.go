package engine

import (
	"fmt"
	"os"
	"path/filepath"

	"kvparity/report"
)

// A Summary is what the headless run prints (JSON with --json): per-arm digests and verdicts,
// parity, lifecycle evidence, and whatever later stages recorded. It is folded from the
// journal, so it describes a resumed campaign exactly as a fresh one.
type Summary struct {
	Row         string                 `json:"row"`
	Dir         string                 `json:"dir"`
	Trace       string                 `json:"trace"`
	TraceSHA256 string                 `json:"trace_sha256"`
	Exclusions  []string               `json:"exclusions"`
	Arms        map[Arm]*ArmSummary    `json:"arms"`
	Stages      map[Stage]StageOutcome `json:"stages"` // the latest cross-arm verdict per stage (parity, perf, footprint)
	Blocked     []string               `json:"blocked,omitempty"`
	Coverage    StageOutcome           `json:"coverage"` // stage-3 rules over every evidence record
	// Perf is the performance stage's result for the current artifacts (every sample, ratio,
	// diagnostic with threshold and outcome, bounds, verdict), once it has one.
	Perf *PerfResult `json:"perf,omitempty"`
	// Patch is the determinism patch both revisions were built with (protocol stage 1.3).
	Patch *DeterminismPatch `json:"determinism_patch,omitempty"`
}

// An ArmSummary is one arm's artifact, repetitions and verdict.
type ArmSummary struct {
	Revision string           `json:"revision"`
	Variant  string           `json:"variant,omitempty"`
	SHA256   string           `json:"sha256"`
	Gen      int              `json:"gen"`
	Stale    bool             `json:"stale,omitempty"`
	Verdict  string           `json:"verdict"`
	Reason   string           `json:"reason,omitempty"`
	Runs     []RunSummary     `json:"runs"`
	Evidence *report.Evidence `json:"evidence,omitempty"`
}

// A RunSummary is one repetition's latest attempt.
type RunSummary struct {
	Run        RunID   `json:"run"`
	Attempt    int     `json:"attempt"`
	Digest     string  `json:"digest,omitempty"`
	FixedPoint string  `json:"fixed_point,omitempty"`
	Error      string  `json:"error,omitempty"`
	ElapsedMs  float64 `json:"elapsed_ms"`
	CPUs       []int   `json:"cpus,omitempty"`
	Report     string  `json:"report,omitempty"` // kept full canonical report, when not deleted
}

// A StageOutcome is a verdict with its reason.
type StageOutcome struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
}

// Summary folds the journal into the campaign's current results.
func (c *Campaign) Summary() Summary {
	return FoldJournal(c.journal.Records(), c.row).Summary(c.dir, c.traceChecksum())
}

// Summary is the headless run's summary of the folded journal; dir is the campaign directory
// (kept reports and evidence files are read from it), traceSHA the checksum the row's trace
// sha256 is compared with.
func (h *History) Summary(dir, traceSHA string) Summary {
	row := h.Row
	s := Summary{Row: row.Name, Dir: dir, Exclusions: row.Canonical.Exclusions,
		Trace:       fmt.Sprintf("%s[%d:%d]", row.Trace.Path, row.Trace.Offset, row.Trace.Offset+row.Trace.Count),
		TraceSHA256: traceSHA, Arms: map[Arm]*ArmSummary{}, Stages: map[Stage]StageOutcome{}}
	coverage := StageOutcome{}
	results := map[Arm]ArmResult{}
	for _, arm := range []Arm{Baseline, Candidate} {
		p := h.Current[arm]
		res := h.ArmResult(arm)
		results[arm] = res
		as := &ArmSummary{Revision: p.Revision, Variant: p.Variant, SHA256: p.SHA256, Gen: p.Gen, Stale: p.Stale,
			Verdict: res.Verdict, Reason: res.Reason, Runs: []RunSummary{}}
		for _, end := range res.Ends {
			rs := RunSummary{Run: end.Run, Attempt: end.Attempt, Digest: end.Digest, FixedPoint: end.FixedPoint,
				Error: end.Error, ElapsedMs: end.ElapsedMs, CPUs: end.CPUs}
			if end.ReportPath != "" {
				if _, err := os.Stat(filepath.Join(dir, end.ReportPath)); err == nil {
					rs.Report = filepath.Join(dir, end.ReportPath)
				}
			}
			if as.Evidence == nil && end.Evidence != "" {
				as.Evidence = loadEvidence(filepath.Join(dir, end.Evidence))
			}
			as.Runs = append(as.Runs, rs)
		}
		if as.Evidence != nil {
			if coverage.Verdict == "" {
				coverage.Verdict = "PASS"
			}
			for _, r := range as.Evidence.Rules {
				if !r.Passed {
					coverage.Verdict = "FAIL"
					coverage.Reason += fmt.Sprintf("%s %s: %s; ", arm, r.Name, r.Why)
				}
			}
		}
		s.Arms[arm] = as
	}
	s.Coverage = coverage
	s.Perf = h.Perf().Result
	for k, r := range h.verdicts {
		if k.arm == "" && k.stage != StageParity {
			s.Stages[k.stage] = StageOutcome{Verdict: r.Verdict, Reason: r.Reason}
		}
	}
	if v, why := parityResult(results[Baseline], results[Candidate]); v != "" {
		s.Stages[StageParity] = StageOutcome{Verdict: v, Reason: why}
	}
	if x, ok := h.SemanticExceptions(); ok && s.Stages[StageParity].Verdict == "FAIL" {
		s.Stages[StageParity] = StageOutcome{Verdict: x.Verdict, Reason: x.Reason}
	}
	s.Blocked = h.Blocked
	s.Patch = h.Patch
	return s
}

// ExitCode maps the summary to DESIGN's exit status for the stages asked for: 1 when anything
// FAILs (an UNSTABLE revision, a parity mismatch, missing lifecycle evidence, a perf or footprint
// FAIL), 2 when something is blocked, inconclusive or missing, 0 when every verdict passes.
func (s Summary) ExitCode(stages ...Stage) int {
	fail, inconclusive := false, false
	for _, a := range s.Arms {
		switch a.Verdict {
		case "STABLE":
		case "UNSTABLE":
			fail = true
		default:
			inconclusive = true
		}
	}
	if s.Coverage.Verdict == "FAIL" {
		fail = true
	}
	for _, st := range append([]Stage{StageParity}, stages...) {
		switch s.Stages[st].Verdict {
		case "PASS", "PASS_WITH_SEMANTIC_EXCEPTIONS":
		case "FAIL":
			fail = true
		default:
			inconclusive = true
		}
	}
	switch {
	case fail:
		return 1
	case inconclusive || len(s.Blocked) > 0:
		return 2
	}
	return 0
}
