package campaignreport_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/diffview"
)

// summaryFiles reads summary.md and every plot of a campaign.
func summaryFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, rel := range files(t, dir) {
		if rel == "summary.md" || strings.HasPrefix(rel, "plots/") {
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			out[rel] = data
		}
	}
	return out
}

// The semantic-change row with its exception records: summary.md is within 20 KB, holds the
// field patterns with the records covering them and the product metrics of both arms, links
// every plot it wrote, and the report gives the same summary and images twice.
func TestE2ESummaryOfTheSemanticRow(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := campaignCopy(t, "e2e-semantic")
	for _, rec := range exceptionRecords(true) {
		if _, err := diffview.PutException(dir, rec); err != nil {
			t.Fatal(err)
		}
	}
	reportTwice(t, dir)
	first := summaryFiles(t, dir)
	reportTwice(t, dir)
	again := summaryFiles(t, dir)
	if len(first) != len(again) {
		t.Fatalf("%d files, then %d", len(first), len(again))
	}
	for n, b := range first {
		if !bytes.Equal(b, again[n]) {
			t.Errorf("%s is not reproducible", n)
		}
	}
	s := first["summary.md"]
	if len(s) == 0 || len(s) > 20_000 {
		t.Fatalf("summary.md: %d bytes", len(s))
	}
	mustContain(t, s, "**PASS_WITH_SEMANTIC_EXCEPTIONS**", "### Field patterns", "`/metadata/engine_config/*/preemption_mode`",
		"| TTFT p50 |", "### Exception records (2)", "decision-flip cascade", "kvparity report .")
	for _, img := range []string{"plots/ratios.svg", "plots/ratios.png", "plots/pressure.svg", "plots/ttft.svg", "plots/e2e.png"} {
		if len(first[img]) == 0 {
			t.Errorf("%s was not written", img)
		}
		if strings.HasSuffix(img, ".svg") && !bytes.Contains(s, []byte("("+img+")")) {
			t.Errorf("summary.md does not link %s", img)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	mustContain(t, md, "](plots/ratios.svg)", "`summary.md` beside this file")
	if bytes.Contains(s, []byte(filepath.Dir(dir))) {
		t.Error("summary.md names a machine-local path")
	}
}

// A campaign recorded before the repetitions kept their metrics still reports: the table says
// "not recorded", no latency plot is drawn, the rest is there.
func TestE2ESummaryOfACampaignWithoutMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := campaignCopy(t, "e2e-pass")
	for _, rel := range files(t, dir) {
		// Such a campaign also deleted every matching report, the baseline's first included
		// (it is kept now, as watch mode's reference).
		if strings.HasSuffix(rel, "/metrics.json") || strings.HasSuffix(rel, "/report.json") && strings.HasPrefix(rel, "runs/") {
			os.Remove(filepath.Join(dir, filepath.FromSlash(rel)))
		}
	}
	reportTwice(t, dir)
	s, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, s, "| TTFT p50 | not recorded | not recorded | — |", "predate `runs/<id>/metrics.json`", "plots/pressure.svg", "| preemptions + retractions |")
	if bytes.Contains(s, []byte("plots/ttft.svg")) {
		t.Error("a latency plot without metrics")
	}
}

// --github appends the job summary to $GITHUB_STEP_SUMMARY after what is there, says so when
// the variable is unset, and names the file when it cannot be written.
func TestE2EReportGitHubStepSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := campaignCopy(t, "e2e-pass")
	step := filepath.Join(t.TempDir(), "step-summary.md")
	if err := os.WriteFile(step, []byte("earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", step)
	out, errs, code := kv(t, "report", "--github", dir)
	if code != 0 || !strings.Contains(out, "summary appended to "+step) {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	got, _ := os.ReadFile(step)
	if !strings.HasPrefix(string(got), "earlier step\n## kvparity: row `e2e-pass`") || !strings.Contains(string(got), "`plots/ratios.svg`") || strings.Contains(string(got), "![") {
		t.Errorf("step summary: want the earlier content, then the summary with the plots named, not shown:\n%s", got)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	if _, errs, code := kv(t, "report", dir, "--github"); code != 0 || !strings.Contains(errs, "GITHUB_STEP_SUMMARY is not set") {
		t.Errorf("unset: exit %d, %q", code, errs)
	}
	bad := filepath.Join(t.TempDir(), "no-such-folder", "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", bad)
	if _, errs, code := kv(t, "report", "--github", dir); code != 3 || !strings.Contains(errs, bad) {
		t.Errorf("unwritable: exit %d, %q; want 3 naming %s", code, errs, bad)
	}
}
