package campaignreport_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/campaignreport"
	"kvparity/diffview/diagnose"
	"kvparity/exceptions"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

func mustContain(t *testing.T, md []byte, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(string(md), w) {
			t.Errorf("report.md does not say %q", w)
		}
	}
}

// The report of a PASS row: both arms STABLE, byte parity, every number from the journal, the
// plots, the verdicts stated independently, and the same exit status as the headless run.
func TestE2EPassRowReport(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := campaignCopy(t, "e2e-pass")
	md, js := reportTwice(t, dir)
	r := parseReport(t, js)
	matchJournal(t, dir, r)
	if r.Semantic.Verdict != "PASS" || r.Parity.Verdict != "PASS" || r.Coverage.Verdict != "PASS" {
		t.Fatalf("semantic %s, parity %s, coverage %s; want PASS for identical builds", r.Semantic.Verdict, r.Parity.Verdict, r.Coverage.Verdict)
	}
	for _, a := range r.Arms {
		if a.Verdict != "STABLE" || len(a.Digests) != 1 || a.Evidence == nil {
			t.Errorf("%s: %s with digests %v, evidence %v", a.Arm, a.Verdict, a.Digests, a.Evidence != nil)
		}
	}
	if r.Arms[0].Digests[0] != r.Arms[1].Digests[0] {
		t.Errorf("PASS with different digests %s / %s", r.Arms[0].Digests[0], r.Arms[1].Digests[0])
	}
	perfText := "Every attempted sample ("
	if r.Performance.Status == "decided" {
		if n := len(r.Performance.Result.Pairs); n != 8 && r.Performance.Verdict != "FAIL" && r.Performance.Verdict != "BLOCKED" {
			t.Errorf("perf %s with %d pairs, want 8", r.Performance.Verdict, n)
		}
		perfText = fmt.Sprintf("Every attempted sample (%d)", len(r.Performance.Result.Samples))
		mustContain(t, md, fmt.Sprintf("%d measured pairs, not the protocol's 60", len(r.Performance.Result.Pairs)), "Ratios in pair order")
	} else {
		// A node too busy to measure blocks the series (pairs invalidated again and again);
		// the report must then say the series has no result rather than invent one.
		t.Logf("perf %s: %s", r.Performance.Status, r.Performance.Reason)
		perfText = "the series has no result yet"
	}
	// host.json records each NUMA node's CPUs, so the placement names the node of every CPU set.
	if len(r.Host.NUMA) > 0 {
		if len(r.Placement.CPUNodes) == 0 || !strings.Contains(r.Placement.NUMA, "baseline repetitions on CPUs ") {
			t.Errorf("placement %+v does not state the NUMA node of each CPU set", r.Placement)
		}
		mustContain(t, md, "- NUMA: baseline repetitions on CPUs ")
	}
	for _, rv := range r.Revisions {
		if rv.DeterminismPatch != "none declared" || r.Config.DeterminismPatch != nil {
			t.Errorf("no determinism patch was declared, the report says %q", rv.DeterminismPatch)
		}
	}
	if r.ExitCode != runCodes["e2e-pass"] {
		t.Errorf("report exit status %d (overall %s), `kvparity run` exited %d", r.ExitCode, r.Overall, runCodes["e2e-pass"])
	}
	mustContain(t, md,
		"## Semantic verdict: PASS", "## Performance verdict: "+r.Performance.Verdict.String(),
		"Pressure events over virtual time", perfText,
		"exactly the protocol's closed list", "`/summary/wall_time_ms`",
		"replay_bench: true in 2 canonical report(s) and ",
		"TensorRT-LLM was not run", "router queueing was not enabled", "production-routing timing",
		"not the protocol's 5000-request long corpus",
		"The semantic and performance verdicts are independent")
}

// The UNSTABLE row fails semantically whatever else holds, says so, keeps the instability
// diff with its diagnosis, and has no performance result (perf is refused).
func TestE2EUnstableRowReport(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := campaignCopy(t, "e2e-unstable")
	md, js := reportTwice(t, dir)
	r := parseReport(t, js)
	matchJournal(t, dir, r)
	cand := r.Arms[1]
	if cand.Verdict != "UNSTABLE" || len(cand.Digests) != 2 {
		t.Fatalf("candidate %s with %d digests, want UNSTABLE with 2", cand.Verdict, len(cand.Digests))
	}
	if r.Semantic.Verdict != "FAIL" || !strings.Contains(r.Semantic.Reason, "UNSTABLE") {
		t.Errorf("semantic %s (%s), want FAIL naming the unstable revision", r.Semantic.Verdict, r.Semantic.Reason)
	}
	if cand.Instability == nil || cand.Instability.Count == 0 || len(cand.Instability.Diagnosis) == 0 {
		t.Fatalf("no instability diff with a diagnosis: %+v", cand.Instability)
	}
	if r.Performance.Verdict != verdict.Undecided || !strings.Contains(r.Performance.Reason, "UNSTABLE") {
		t.Errorf("performance %s (%s), want UNDECIDED because candidate is UNSTABLE", r.Performance.Verdict, r.Performance.Reason)
	}
	if r.Overall.Verdict != verdict.Fail || r.ExitCode != runCodes["e2e-unstable"] {
		t.Errorf("overall %s exit %d, `kvparity run` exited %d", r.Overall, r.ExitCode, runCodes["e2e-unstable"])
	}
	// The row declares the default perturbations: the unstable arm says why they did not run,
	// the stable one ran them and says nothing of the kind.
	if !strings.HasPrefix(cand.PerturbedNotRun, "not run: the plain repetitions already disagree") || len(cand.Perturbed) != 0 {
		t.Errorf("candidate perturbed repetitions %+v, not run %q", cand.Perturbed, cand.PerturbedNotRun)
	}
	if base := r.Arms[0]; base.PerturbedNotRun != "" || len(base.Perturbed) == 0 {
		t.Errorf("baseline perturbed repetitions %+v, not run %q", base.Perturbed, base.PerturbedNotRun)
	}
	mustContain(t, md, "### candidate — UNSTABLE", "## Semantic verdict: FAIL", "## Performance verdict: UNDECIDED",
		"diffs/unstable-candidate.json", "Two canonical reports of the same artifact (repetitions, or a repetition and a perturbed one) disagree",
		"Perturbed repetitions: not run: the plain repetitions already disagree")
}

// exceptionRecords are the reviewed records of the fifo-preemption change: the configuration
// field, and the decision cascade it causes.
func exceptionRecords(full bool) []exceptions.ExceptionRecord {
	recs := []exceptions.ExceptionRecord{{
		Differs:        "the decode and prefill preemption_mode recorded in metadata: lifo → fifo",
		Pointers:       []string{"/metadata/engine_config/*/preemption_mode"},
		Baseline:       "preempts the newest running request (LIFO), which the modelled vLLM scheduler does not do",
		Candidate:      "preempts the oldest running request, as the engine's scheduler documents",
		Cause:          "the intended change of preemption order; both revisions are STABLE, so no entropy leaked",
		RegressionTest: "mocker/variants_test.go TestFIFOPreemptionVictim fails on LIFO and passes on FIFO",
		Impact:         "metadata consumers see the new mode string; no API change",
		Disposition:    "accepted by review",
	}}
	if full {
		recs = append(recs, exceptions.ExceptionRecord{
			Differs:        "every summary statistic, the KV-ingest and pressure coverage, and the per-request timings after the first pressure event",
			Pointers:       []string{"/summary/**", "/coverage/**", "/per_request/**"},
			Baseline:       "the LIFO victim choice delays the newest request",
			Candidate:      "the FIFO victim choice delays the oldest; later decisions follow from it (decision-flip cascade from pressure event #0)",
			Cause:          "the diagnosis shows one cascade starting at the first preemption; nothing differs before it except the mode",
			RegressionTest: "mocker/variants_test.go TestFIFOPreemptionVictim",
			Impact:         "latency statistics shift; report schema unchanged",
			Disposition:    "accepted by review",
		})
	}
	return recs
}

// The semantic-change row: FAIL while differences are uncovered, PASS_WITH_SEMANTIC_EXCEPTIONS
// once exception records (written with diffview's API) cover every differing pointer.
func TestE2ESemanticRowWithExceptions(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := perfCopy(t, "e2e-semantic")
	_, js := reportTwice(t, dir)
	r := parseReport(t, js)
	matchJournal(t, dir, r)
	if r.Parity.Verdict != "FAIL" || r.Semantic.Verdict != "FAIL" || r.Semantic.Diff == nil {
		t.Fatalf("before any exception record: parity %s, semantic %s, diff %v", r.Parity.Verdict, r.Semantic.Verdict, r.Semantic.Diff != nil)
	}
	if r.Semantic.UncoveredN != r.Semantic.Diff.Count || len(r.Semantic.Uncovered) != min(200, r.Semantic.Diff.Count) {
		t.Errorf("uncovered %d of %d (%d listed)", r.Semantic.UncoveredN, r.Semantic.Diff.Count, len(r.Semantic.Uncovered))
	}
	var full diagnose.JSONReport
	if data, err := os.ReadFile(filepath.Join(dir, r.Semantic.Diff.File)); err != nil || json.Unmarshal(data, &full) != nil {
		t.Fatalf("the focused diff %s: %v", r.Semantic.Diff.File, err)
	}
	if len(full.Pointers) != r.Semantic.Diff.Count || full.A != "runs/det/baseline-1/report.json" || full.B != "runs/det/candidate-1/report.json" {
		t.Errorf("focused diff: %d pointers of %s vs %s, report says %d", len(full.Pointers), full.A, full.B, r.Semantic.Diff.Count)
	}

	// One record covers only the configuration field: still FAIL, naming what is uncovered.
	for _, rec := range exceptionRecords(false) {
		if _, err := exceptions.PutException(dir, rec); err != nil {
			t.Fatal(err)
		}
	}
	_, js = reportTwice(t, dir)
	r = parseReport(t, js)
	if r.Semantic.Verdict != "FAIL" || r.Semantic.UncoveredN != r.Semantic.Diff.Count-2 {
		t.Fatalf("partial records: %s with %d of %d uncovered, want FAIL with all but 2", r.Semantic.Verdict, r.Semantic.UncoveredN, r.Semantic.Diff.Count)
	}

	if _, err := exceptions.PutException(dir, exceptionRecords(true)[1]); err != nil {
		t.Fatal(err)
	}
	md, js := reportTwice(t, dir)
	r = parseReport(t, js)
	matchJournal(t, dir, r)
	if r.Semantic.Verdict != "PASS_WITH_SEMANTIC_EXCEPTIONS" || r.Semantic.UncoveredN != 0 {
		t.Fatalf("semantic %s with %d uncovered (%s), want PASS_WITH_SEMANTIC_EXCEPTIONS", r.Semantic.Verdict, r.Semantic.UncoveredN, r.Semantic.Reason)
	}
	covered := 0
	for _, c := range r.Semantic.Coverage {
		covered += c.Covers
	}
	if len(r.Semantic.Exceptions) != 2 || covered != r.Semantic.Diff.Count {
		t.Errorf("%d records covering %d of %d pointers", len(r.Semantic.Exceptions), covered, r.Semantic.Diff.Count)
	}
	// The performance verdict is reported on its own, never waived by the exceptions.
	if !r.Performance.Verdict.Decided() {
		t.Errorf("performance %q: the semantic-change row is measured independently", r.Performance.Verdict)
	}
	mustContain(t, md, "## Semantic verdict: PASS_WITH_SEMANTIC_EXCEPTIONS", "#### "+r.Semantic.Exceptions[0].ID,
		"**regression test**: mocker/variants_test.go TestFIFOPreemptionVictim", "decision-flip cascade", "diffs/parity.json",
		"## Performance verdict: "+r.Performance.Verdict.String())
}

// Input errors name the file.
func TestWriteErrorsNameTheFile(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	if err := campaignreport.Write(t.TempDir()); err == nil || !strings.Contains(err.Error(), "journal.jsonl") {
		t.Errorf("an empty folder: %v, want an error naming journal.jsonl", err)
	}
	dir := campaignCopy(t, "e2e-pass")
	writeFile(t, dir, layout.FileExceptions, `{"id":"x","differs":"d"}`+"\n")
	if err := campaignreport.Write(dir); err == nil || !strings.Contains(err.Error(), "exceptions.jsonl:1") {
		t.Errorf("a bad exception record: %v, want an error naming exceptions.jsonl:1", err)
	}
	dir = campaignCopy(t, "e2e-pass")
	writeFile(t, dir, "host.json", `{"cores": "two"}`)
	if err := campaignreport.Write(dir); err == nil || !strings.Contains(err.Error(), "host.json") || !strings.Contains(err.Error(), "cores") {
		t.Errorf("a bad host.json: %v, want an error naming host.json and the field", err)
	}
	dir = campaignCopy(t, "e2e-pass")
	writeFile(t, dir, "artifacts.json", `{"artifacts":[]}`)
	if err := campaignreport.Write(dir); err == nil || !strings.Contains(err.Error(), "artifacts.json") {
		t.Errorf("artifacts.json disagreeing with the journal: %v", err)
	}
}

// BenchmarkBuildSemanticRow builds the report of the 200-request semantic-change campaign
// (a 595-pointer diff): the cost of the save key and of `kvparity report`, without the writes.
func BenchmarkBuildSemanticRow(b *testing.B) {
	if testing.Short() {
		b.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := fixtures["e2e-semantic"]
	for b.Loop() {
		if _, err := campaignreport.Build(dir); err != nil {
			b.Fatal(err)
		}
	}
}
