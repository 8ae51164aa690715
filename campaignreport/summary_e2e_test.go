package campaignreport_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kvparity/exceptions"
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
// (It names the plots' files instead of linking them: TestE2ESummaryChartsAndVerdictLines.)
func TestE2ESummaryOfTheSemanticRow(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := perfCopy(t, "e2e-semantic")
	for _, rec := range exceptionRecords(true) {
		if _, err := exceptions.PutException(dir, rec); err != nil {
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
	mustContain(t, s, "**semantic: PASS_WITH_SEMANTIC_EXCEPTIONS**", "### Field patterns", "`/metadata/engine_config/*/preemption_mode`",
		"| TTFT p50 |", "### Exception records (2)", "decision-flip cascade", "kvparity report .")
	for _, img := range []string{"plots/ratios.svg", "plots/ratios.png", "plots/pressure.svg", "plots/ttft.svg", "plots/e2e.png"} {
		if len(first[img]) == 0 {
			t.Errorf("%s was not written", img)
		}
		if !bytes.Contains(s, []byte("`"+img+"`")) {
			t.Errorf("summary.md does not name %s", img)
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

// summary.md pasted into a PR comment: its charts are Mermaid and text (the ratios in pair
// order with the threshold), it links no relative image, and under --image-base-url it shows
// the PNGs by absolute URL. Each verdict is one line: the verdict, the figure that decided it
// (the performance gate in benchstat's words) and one sentence; the exit status is said as
// the whole campaign's.
func TestE2ESummaryChartsAndVerdictLines(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := perfCopy(t, "e2e-semantic")
	reportTwice(t, dir)
	s, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		ExitCode    int `json:"exit_code"`
		Performance struct {
			Result struct {
				Pairs []struct {
					Ratio float64 `json:"ratio"`
				} `json:"pairs"`
			} `json:"result"`
		} `json:"performance"`
	}
	js, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`!\[[^\]]*\]\((?:[^h)]|h[^t])`).Find(s); m != nil || bytes.Contains(s, []byte("](plots/")) {
		t.Errorf("summary.md links a relative image (%q): it breaks once pasted", m)
	}
	// The Mermaid chart holds every pair's ratio in pair order, then the threshold's line.
	var ratios []string
	for _, p := range rep.Performance.Result.Pairs {
		ratios = append(ratios, fmt.Sprintf("%.3f", p.Ratio))
	}
	if len(ratios) == 0 {
		t.Fatal("the fixture has no pair")
	}
	mustContain(t, s, "```mermaid\n", "xychart-beta", "    line ["+strings.Join(ratios, ", ")+"]\n", "    line [1.050, 1.050", "red: the threshold 1.050")

	lines := map[string][]string{}
	for _, l := range strings.Split(string(s), "\n") {
		for _, v := range []string{"semantic", "performance", "footprint", "overall"} {
			if strings.HasPrefix(l, "- **"+v+": ") {
				lines[v] = append(lines[v], l)
			}
		}
	}
	for _, v := range []string{"semantic", "performance", "footprint", "overall"} {
		if len(lines[v]) != 1 {
			t.Fatalf("%d %s verdict line(s), want one:\n%s", len(lines[v]), v, s)
		}
		if l := lines[v][0]; len(l) > 480 || strings.Contains(l, "/proc/stat") || strings.Contains(l, "busy with other work") {
			t.Errorf("the %s line holds evidence (%d bytes): %s", v, len(l), l)
		}
	}
	perf := regexp.MustCompile(`^- \*\*performance: (PASS|FAIL|INCONCLUSIVE)\*\* · median ratio \d+\.\d{3}, one-sided 95% (order-statistic|block-median) bounds \[\d+\.\d{3}, \d+\.\d{3}\], threshold 1\.050: (PASS|FAIL|INCONCLUSIVE) · [A-Z][^·]*\.`)
	if m := perf.FindStringSubmatch(lines["performance"][0]); m == nil || m[1] != m[3] {
		t.Errorf("performance line not in benchstat's words: %s", lines["performance"][0])
	}
	if !strings.Contains(lines["overall"][0], fmt.Sprintf("exit status of `kvparity run --stage all` (the whole campaign): %d", rep.ExitCode)) || rep.ExitCode != runCodes["e2e-semantic"] {
		t.Errorf("overall line does not say the whole campaign's exit status %d (run exited %d): %s", rep.ExitCode, runCodes["e2e-semantic"], lines["overall"][0])
	}
	mustContain(t, s, "<details><summary>Why: each verdict's reason and caveats")

	// Hosted plots: absolute links under the base URL, PNG shown, SVG beside it; nothing relative.
	if out, errs, code := kv(t, "report", "--image-base-url", "https://ci.example.org/run/7/", dir); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	hosted, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	for _, stem := range []string{"ratios", "pressure", "ttft", "e2e"} {
		want := fmt.Sprintf("](https://ci.example.org/run/7/plots/%s.png) ([SVG](https://ci.example.org/run/7/plots/%s.svg))", stem, stem)
		if !bytes.Contains(hosted, []byte(want)) {
			t.Errorf("hosted summary lacks %q", want)
		}
	}
	if bytes.Contains(hosted, []byte("](plots/")) {
		t.Error("hosted summary still links a relative image")
	}
	for _, bad := range []string{"ftp://x.example/p", "plots", "https://x.example/a b", "https://x.example/a)b", "https://x.example/?q=1"} {
		if _, errs, code := kv(t, "report", "--image-base-url", bad, dir); code != 3 || !strings.Contains(errs, "image base URL") {
			t.Errorf("--image-base-url %q: exit %d, %q; want 3 naming the URL", bad, code, errs)
		}
	}
}
