package consistency_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"kvparity/e2e"
	"kvparity/e2e/consistency"
	"kvparity/engine"
	"kvparity/exceptions"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// Issue 25, "stage-scoped runs": `kvparity run --stage determinism --json` on a campaign whose
// exception records cover the change, then `kvparity report` of the same campaign. The run's
// document says its scope (semantic) and exits with its own exit_code; report.json says its
// scope (all) and, as semantic_exit_code, the exit status the scoped run had; report.md states
// the same two exit statuses and the same semantic verdict. Nothing in one contradicts the other.
func TestStageScopedRunAgreesWithTheReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real campaign")
	}
	bin := e2e.Binary(t)
	rowFile, _ := filepath.Abs("rows/fifo-preemption.toml")
	dir := e2e.CampaignDir(t, "c")
	// The change unexplained: the semantic verdict FAILs (exit 1), whatever the scope.
	if code, _, errs := e2e.Run(t, bin, 10*time.Minute, "run", rowFile, "--campaign", dir, "--stage", "determinism"); code != verdict.ExitFail {
		t.Fatalf("the fifo change without exception records: exit %d, want 1\n%s", code, e2e.Tail(errs, 20))
	}
	for _, rec := range consistency.FifoRecords() {
		if _, err := exceptions.PutException(dir, rec); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := e2e.Run(t, bin, 10*time.Minute, "run", rowFile, "--campaign", dir, "--stage", "determinism", "--json")
	var run struct {
		verdict.Document
		engine.Summary
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatalf("run --json (exit %d): %v\n%s\n%s", code, err, out, e2e.Tail(errs, 20))
	}
	rv := run.Verdicts
	if rv.Semantic.Verdict != verdict.PassWithSemanticExceptions {
		t.Fatalf("the records cover the change, yet semantic %s (%s)", rv.Semantic.Verdict, rv.Semantic.Reason)
	}
	if rv.Scope != verdict.ScopeSemantic || rv.Overall.Verdict != verdict.PassWithSemanticExceptions ||
		rv.ExitCode != verdict.ExitPass || rv.SemanticExitCode != rv.ExitCode || code != rv.ExitCode {
		t.Errorf("run --stage determinism --json: scope %q overall %s exit_code %d semantic_exit_code %d, exited %d; want semantic, PASS_WITH_SEMANTIC_EXCEPTIONS, 0, 0, 0",
			rv.Scope, rv.Overall.Verdict, rv.ExitCode, rv.SemanticExitCode, code)
	}

	if c, _, errs := e2e.Run(t, bin, 5*time.Minute, "report", dir); c != 0 {
		t.Fatalf("report: exit %d\n%s", c, errs)
	}
	js, err := os.ReadFile(filepath.Join(dir, layout.FileReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	var rep verdict.Document
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatalf("report.json: %v", err)
	}
	pv := rep.Verdicts
	// The report is over every stage (perf has not run: UNDECIDED, exit 2) and says so, and it
	// carries the scoped run's exit status beside its own.
	if pv.Scope != verdict.ScopeAll || pv.ExitCode != verdict.ExitCode(pv.Overall.Verdict) || pv.Overall.Verdict != verdict.Undecided {
		t.Errorf("report.json: scope %q overall %s exit_code %d; want all, UNDECIDED, 2", pv.Scope, pv.Overall.Verdict, pv.ExitCode)
	}
	if pv.SemanticExitCode != code {
		t.Errorf("report.json: semantic_exit_code %d, but run --stage determinism exited %d", pv.SemanticExitCode, code)
	}
	if pv.Semantic != rv.Semantic || pv.Parity.Verdict != rv.Parity.Verdict || pv.Determinism.Baseline.Verdict != rv.Determinism.Baseline.Verdict ||
		pv.Determinism.Candidate.Verdict != rv.Determinism.Candidate.Verdict || pv.Coverage.Verdict != rv.Coverage.Verdict {
		t.Errorf("report.json and run --json disagree on the semantic verdicts:\nreport %+v\nrun    %+v", pv, rv)
	}
	// The scoped run's overall is its semantic verdict: what report.json's semantic says.
	if rv.Overall.Verdict != pv.Semantic.Verdict {
		t.Errorf("run overall %s, report.json semantic %s", rv.Overall.Verdict, pv.Semantic.Verdict)
	}

	md, _ := os.ReadFile(filepath.Join(dir, layout.FileReportMD))
	words := consistency.MarkdownWords(t, string(md))
	if words.Semantic != rv.Semantic.Verdict || words.Overall != pv.Overall.Verdict || words.Exit != pv.ExitCode {
		t.Errorf("report.md says %v; report.json semantic %s overall %s exit %d", words, pv.Semantic.Verdict, pv.Overall.Verdict, pv.ExitCode)
	}
	m := regexp.MustCompile("of `--stage determinism`, which asks for the semantic verdict alone, (\\d+)").FindStringSubmatch(string(md))
	if m == nil {
		t.Fatalf("report.md does not state the exit status of run --stage determinism")
	}
	if n, _ := strconv.Atoi(m[1]); n != code {
		t.Errorf("report.md: --stage determinism exits %d, but it exited %d", n, code)
	}
}
