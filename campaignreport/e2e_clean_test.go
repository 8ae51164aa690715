package campaignreport_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kvparity/campaignreport"
	"kvparity/engine"
	"kvparity/exceptions"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// retainedDeterminism is what stage 9 keeps of a resolved campaign whose determinism stage
// ran: the evidence files, the repetitions' lifecycle evidence and product metrics, and the
// report, its summary and plots.
func retainedDeterminism(extra ...string) []string {
	keep := []string{"artifacts.json", "host.json", "journal.jsonl",
		"report.json", "report.md", "row.toml", "runs/det/baseline-1/evidence.json", "runs/det/baseline-2/evidence.json",
		"runs/det/candidate-1/evidence.json", "runs/det/candidate-2/evidence.json", "trace/checksums.json", layout.FileLock,
		"runs/det/baseline-1/metrics.json", "runs/det/baseline-2/metrics.json", "runs/det/candidate-1/metrics.json", "runs/det/candidate-2/metrics.json",
		"summary.md", "plots/pressure.svg", "plots/pressure.png", "plots/ttft.svg", "plots/ttft.png", "plots/e2e.svg", "plots/e2e.png"}
	keep = append(keep, extra...)
	slices.Sort(keep)
	return keep
}

// retained adds what the perf stage leaves to it: its exports, its schedule and the ratio plot.
func retained(extra ...string) []string {
	return retainedDeterminism(append([]string{"perf/result.json", "perf/samples.json", "perf/samples.txt", "schedule.json",
		"plots/ratios.svg", "plots/ratios.png"}, extra...)...)
}

// Cleaning a PASS row: refused before the report exists, nothing moves in a dry run, then
// exactly the retained evidence is left, nothing outside the campaign is touched (not even
// through a symbolic link), and the rewritten report is reproducible and says what went. The
// campaign ran the determinism stage only: what cleaning keeps must not hang on a perf verdict
// (a perf FAIL keeps samples and binaries; TestE2ECleanSemanticRow covers both outcomes).
func TestE2ECleanPassRow(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := determinismCopy(t)
	if _, errs, code := kv(t, "clean", dir); code != 3 || !strings.Contains(errs, "kvparity report") {
		t.Fatalf("clean before the report: exit %d, %q; want 3 asking for the report first", code, errs)
	}
	reportTwice(t, dir)
	before := files(t, dir)
	out, _, code := kv(t, "clean", "--dry-run", dir)
	if code != 0 || !strings.Contains(out, "would remove — copied binary") || !slices.Equal(files(t, dir), before) {
		t.Fatalf("dry run: exit %d, changed files: %v\n%s", code, !slices.Equal(files(t, dir), before), out)
	}

	outside := filepath.Join(filepath.Dir(dir), "outside.txt")
	writeFile(t, filepath.Dir(dir), "outside.txt", "not the campaign's")
	if err := os.Symlink(outside, filepath.Join(dir, "link-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(dir), filepath.Join(dir, "runs", "det", "parent-link")); err != nil {
		t.Fatal(err)
	}
	// A write kvparity was killed in leaves its temporary file: clean knows it as its own.
	writeFile(t, dir, ".report.md-123456.tmp", "half a report")
	out, _, code = kv(t, "clean", dir)
	if code != 0 {
		t.Fatalf("clean exited %d\n%s", code, out)
	}
	got := files(t, dir)
	if want := retainedDeterminism("link-out", "runs/det/parent-link"); !slices.Equal(got, want) {
		t.Errorf("after clean:\n got %v\nwant %v", got, want)
	}
	if data, err := os.ReadFile(outside); err != nil || string(data) != "not the campaign's" {
		t.Errorf("a file outside the campaign was touched: %v %q", err, data)
	}
	for _, want := range []string{"removed — copied binary", "runs/det/baseline-1/", "kept — lifecycle evidence", "symbolic link: left alone", "report.md and report.json written again"} {
		if !strings.Contains(out, want) {
			t.Errorf("clean output does not say %q:\n%s", want, out)
		}
	}
	cleaned, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md, js := reportTwice(t, dir)
	if !bytes.Equal(md, cleaned) {
		t.Error("kvparity report after clean differs from the report clean wrote")
	}
	r := parseReport(t, js)
	matchJournal(t, dir, r)
	if r.Semantic.Verdict != "PASS" || !strings.Contains(r.Artifacts[0].Copy, "removed at cleanup") || !strings.Contains(r.Trace.WindowFile, "removed at cleanup") {
		t.Errorf("after clean: semantic %s, artifact copy %q, window %q", r.Semantic.Verdict, r.Artifacts[0].Copy, r.Trace.WindowFile)
	}
	for _, ri := range r.Arms[0].Runs {
		if !strings.Contains(ri.FullReport, "deleted") {
			t.Errorf("%s full report: %q", ri.Run, ri.FullReport)
		}
	}
}

// The UNSTABLE arm is an unresolved mismatch: every output of its repetitions stays, and so do
// the binaries and the trace window (the campaign must stay resumable for the fix).
func TestE2ECleanUnstableRowKeepsTheMismatch(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := campaignCopy(t, "e2e-unstable")
	reportTwice(t, dir)
	plan, err := campaignreport.Clean(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	got := files(t, dir)
	for _, want := range []string{"runs/det/candidate-1/report.json", "runs/det/candidate-2/report.json", "runs/det/candidate-1/stderr",
		"artifacts/baseline-g1-kvparity", "artifacts/candidate-g1-kvparity", "trace/window.jsonl", "diffs/unstable-candidate.json"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s was removed; an unresolved mismatch keeps it", want)
		}
	}
	for _, gone := range []string{"runs/det/baseline-1/report.json", "runs/det/baseline-1/stderr"} {
		if slices.Contains(got, gone) {
			t.Errorf("%s is still there: the baseline is resolved and its digest recorded", gone)
		}
	}
	if len(plan.Unresolved) == 0 || !strings.Contains(plan.Unresolved[0], "UNSTABLE") {
		t.Errorf("unresolved: %v", plan.Unresolved)
	}
	if _, err := campaignreport.Build(dir); err != nil {
		t.Fatal(err)
	}
}

// A mismatch fully covered by exception records is resolved: the full reports go, the focused
// diff stays, and the report written after cleanup still decides PASS_WITH_SEMANTIC_EXCEPTIONS
// from it. Without the records both full reports are kept.
func TestE2ECleanSemanticRow(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	uncovered := perfCopy(t, "e2e-semantic")
	reportTwice(t, uncovered)
	if _, err := campaignreport.Clean(uncovered, false); err != nil {
		t.Fatal(err)
	}
	got := files(t, uncovered)
	for _, want := range []string{"runs/det/baseline-1/report.json", "runs/det/candidate-1/report.json", "artifacts/candidate-g1-kvparity", "diffs/parity.json"} {
		if !slices.Contains(got, want) {
			t.Errorf("uncovered mismatch: %s was removed", want)
		}
	}

	dir := campaignCopy(t, "e2e-semantic")
	for _, rec := range exceptionRecords(true) {
		if _, err := exceptions.PutException(dir, rec); err != nil {
			t.Fatal(err)
		}
	}
	_, before := reportTwice(t, dir)
	if _, err := campaignreport.Clean(dir, false); err != nil {
		t.Fatal(err)
	}
	if pb := parseReport(t, before); pb.Performance.Verdict == verdict.Fail {
		// A busy machine can make the short perf series FAIL: the policy then keeps the samples
		// and the pinned binaries for the investigation (stage 7), which is what to check.
		got := files(t, dir)
		for _, want := range []string{"runs/perf/pair-001-baseline/stdout", "artifacts/candidate-g1-kvparity", "diffs/parity.json"} {
			if !slices.Contains(got, want) {
				t.Errorf("perf FAIL: %s was removed, the investigation needs it", want)
			}
		}
	} else if want := retained("diffs/parity.json", layout.FileExceptions, layout.FileExceptionsLock); !slices.Equal(files(t, dir), want) {
		t.Errorf("after clean:\n got %v\nwant %v", files(t, dir), want)
	}
	_, after := reportTwice(t, dir)
	rb, ra := parseReport(t, before), parseReport(t, after)
	if ra.Semantic.Verdict != "PASS_WITH_SEMANTIC_EXCEPTIONS" || ra.Semantic.Diff.Count != rb.Semantic.Diff.Count || !slices.Equal(ra.Semantic.Diff.Groups, rb.Semantic.Diff.Groups) {
		t.Errorf("after clean: %s over %d pointers (before: %d)", ra.Semantic.Verdict, ra.Semantic.Diff.Count, rb.Semantic.Diff.Count)
	}
	// An exception record edited after the report: clean refuses until the report is written again.
	writeFile(t, dir, layout.FileExceptions, "")
	if _, err := campaignreport.Clean(dir, true); err == nil || !strings.Contains(err.Error(), "out of date") {
		t.Errorf("clean with a stale report: %v", err)
	}
}

// The same campaign through the workbench in tmux (scripts/e2e-report.sh): the save key's
// report is reproduced by `kvparity report`, and clean leaves the retained evidence.
func TestE2ETmuxScript(t *testing.T) {
	if testing.Short() {
		t.Skip("runs scripts/e2e-report.sh: the workbench under tmux on the built kvparity binary (not under -short)")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	cmd := exec.Command("bash", "../scripts/e2e-report.sh")
	cmd.Env = append(os.Environ(), "KVPARITY_BIN="+kvparity, "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/e2e-report.sh: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "e2e-report: PASS") {
		t.Fatalf("scripts/e2e-report.sh did not pass:\n%s", out)
	}
}

// After cleanup the campaign still opens, read-only: `kvparity run` on it prints its recorded
// summary, starts nothing, writes nothing and exits 3 with the reason; the report reproduces.
// The campaign ran the determinism stage only, so it is cleaned whatever a perf stage would
// have decided on this machine.
func TestE2ECleanedCampaignOpensReadOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := determinismCopy(t)
	md, _ := reportTwice(t, dir)
	if _, errs, code := kv(t, "clean", dir); code != 0 {
		t.Fatalf("clean exited %d: %s", code, errs)
	}
	cleanedMD, _ := reportTwice(t, dir)
	journal, err := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out, errs, code := kv(t, "run", filepath.Join(dir, "row.toml"), "--campaign", dir, "--stage", "all", "--json")
	if code != 3 || !strings.Contains(errs, "campaign was cleaned: binaries and trace window removed; start a new campaign from row.toml") {
		t.Fatalf("run on a cleaned campaign: exit %d, stderr:\n%s", code, errs)
	}
	if strings.Contains(errs, " started  pid") {
		t.Errorf("a run started on a cleaned campaign:\n%s", errs)
	}
	var s struct {
		verdict.Document
		engine.Summary
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.Parity.Verdict != verdict.Pass || s.Arms[engine.Candidate].Verdict != verdict.Stable {
		t.Errorf("the recorded summary (%v):\n%s", err, out)
	}
	if s.ExitCode != 3 { // issue 25: the printed exit status is the real one
		t.Errorf("run --json on a cleaned campaign says exit_code %d and exits %d", s.ExitCode, code)
	}
	if txt, _, _ := kv(t, "run", filepath.Join(dir, "row.toml"), "--campaign", dir, "--stage", "all"); !strings.Contains(txt, "exit status 3") {
		t.Errorf("run on a cleaned campaign does not print its real exit status:\n%s", txt)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "journal.jsonl")); !bytes.Equal(after, journal) {
		t.Error("running on a cleaned campaign wrote its journal")
	}
	if again, _ := reportTwice(t, dir); !bytes.Equal(again, cleanedMD) || bytes.Equal(md, cleanedMD) {
		t.Error("the report of the cleaned campaign changed after the refused run")
	}
}
