package engine

import (
	"fmt"
	"os"
	"path/filepath"

	"kvparity/engine/fixtures"
	"kvparity/engine/instrument"
	"kvparity/report"
	"kvparity/verdict"
)

// A Summary is the campaign's recorded results for the headless run: per-arm digests and
// verdicts, lifecycle evidence, and whatever later stages recorded. It is folded from the
// journal, so it describes a resumed campaign exactly as a fresh one. It carries no combined
// verdict: stage 8's combination needs the exception records (see verdict.Decide and
// campaignreport.Assess), and every surface reads that one.
type Summary struct {
	Row         string              `json:"row"`
	Dir         string              `json:"dir"`
	Trace       string              `json:"trace"`
	TraceSHA256 string              `json:"trace_sha256"`
	Exclusions  []string            `json:"exclusions"`
	Arms        map[Arm]*ArmSummary `json:"arms"`
	// Perf is the performance stage's result for the current artifacts (every sample, ratio,
	// diagnostic with threshold and outcome, bounds, verdict), once it has one.
	Perf *PerfResult `json:"perf_result,omitempty"`
	// Instructions is the instruction-count instrument's result for the current artifacts (a
	// secondary measure that decides nothing), once it has counted them.
	Instructions *instrument.InstructionResult `json:"instructions,omitempty"`
	// Patch is the determinism patch both revisions were built with (protocol stage 1.3).
	Patch *DeterminismPatch `json:"determinism_patch,omitempty"`
	// Fixtures are stage 6's results on the current artifacts (fixture_host.go).
	Fixtures []fixtures.Result `json:"fixtures,omitempty"`
	// DeskBuild says the arms are desk builds, not the release artifact (desk.go).
	DeskBuild string `json:"desk_build,omitempty"`
}

// An ArmSummary is one arm's artifact, repetitions and verdict.
type ArmSummary struct {
	Revision string           `json:"revision"`
	Variant  string           `json:"variant,omitempty"`
	SHA256   string           `json:"sha256"`
	Gen      int              `json:"gen"`
	Stale    bool             `json:"stale,omitempty"`
	Verdict  verdict.Word     `json:"verdict"`
	Reason   string           `json:"reason,omitempty"`
	Runs     []RunSummary     `json:"runs"`
	Evidence *report.Evidence `json:"evidence,omitempty"`
	// Preflight is the arm's single-core probe; Perturbed its perturbed repetitions (the whole
	// set, then each variation tried alone) and Finding what triggers a second digest.
	Preflight *Preflight     `json:"preflight,omitempty"`
	Perturbed []PerturbedRun `json:"perturbed,omitempty"`
	Finding   string         `json:"finding,omitempty"`
	// PerturbedNotRun says why the row's perturbed repetitions did not run (ArmResult.PerturbedNotRun).
	PerturbedNotRun string `json:"perturbed_not_run,omitempty"`
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

// Summary folds the journal into the campaign's current results.
func (c *Campaign) Summary() Summary {
	return c.History().summary(c.dir, c.trace.compared(c.row))
}

// History is the journal folded as it stands (a snapshot: later appends do not change it).
func (c *Campaign) History() *History { return FoldJournal(c.journal.Records(), c.row) }

// summary is the headless run's summary of the folded journal; dir is the campaign directory
// (kept reports and evidence files are read from it), traceSHA the checksum the row's trace
// sha256 is compared with.
func (h *History) summary(dir, traceSHA string) Summary {
	row := h.row
	s := Summary{Row: row.Name, Dir: dir, Exclusions: row.Canonical.Exclusions,
		Trace:       fmt.Sprintf("%s[%d:%d]", row.Trace.Path, row.Trace.Offset, row.Trace.Offset+row.Trace.Count),
		TraceSHA256: traceSHA, Arms: map[Arm]*ArmSummary{}, DeskBuild: row.DeskBuild()}
	for _, arm := range []Arm{Baseline, Candidate} {
		p := h.Current[arm]
		res := h.ArmResult(arm)
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
			as.Runs = append(as.Runs, rs)
		}
		as.Evidence, _ = h.armEvidence(dir, arm)
		if p, ok := h.Preflight(arm); ok {
			as.Preflight = &p
		}
		as.Perturbed, as.Finding = res.Perturbed, res.Finding
		as.PerturbedNotRun = res.PerturbedNotRun(row.Determinism.Perturbations)
		s.Arms[arm] = as
	}
	s.Perf = h.Perf().Result
	s.Instructions = h.Instructions()
	s.Patch = h.Patch
	s.Fixtures = h.Fixtures()
	return s
}
