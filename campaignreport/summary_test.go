package campaignreport

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"kvparity/diffview"
	"kvparity/diffview/diagnose"
	"kvparity/engine"
	"kvparity/exceptions"
	"kvparity/report"
	"kvparity/stats"
	"kvparity/verdict"
)

// bigReport is a report at the edge of every cap: a 5,000-request mismatch over many field
// patterns, forty exception records with long texts (one BROAD), a loaded host, 200 pairs with
// invalidations, both arms' metrics and evidence.
func bigReport() *Report {
	long := strings.Repeat("a long explanation with numbers 12345 and pointers /per_request/17/ttft_ms ", 30)
	r := &Report{Row: "big", Overall: verdict.Outcome{Verdict: verdict.Inconclusive, Reason: long}}
	r.Semantic.Outcome = verdict.Outcome{Verdict: verdict.PassWithSemanticExceptions, Reason: long}
	r.Performance.Outcome = verdict.Outcome{Verdict: verdict.Inconclusive, Reason: "the battery breached"}
	r.Revisions = []revision{{Arm: engine.Baseline, Revision: "v1.5.1"}, {Arm: engine.Candidate, Revision: "v1.6.1"}}
	var ptrs []string
	for i := range 5000 {
		ptrs = append(ptrs, fmt.Sprintf("/per_request/%d/ttft_ms", i), fmt.Sprintf("/per_request/%d/field_%d", i, i%60))
	}
	r.Semantic.Diff = &DiffSummary{File: "diffs/parity.json", Count: len(ptrs), Pointers: ptrs,
		First:     &diffview.JSONFirst{Pointer: "/per_request/0/ttft_ms", Text: "at 12 ms request 0: ttft_ms " + long},
		Diagnosis: []diagnose.Signature{{Code: "id-drift", Label: "random UUIDv4 pattern in request ids", Evidence: []string{long, long}, Explains: 10, Of: 10000}}}
	for i := range 40 {
		e := exceptions.ExceptionRecord{ID: fmt.Sprintf("record-%02d", i), Pointers: []string{fmt.Sprintf("/per_request/*/field_%d", i)},
			Differs: long, Baseline: long, Candidate: long, Cause: long, RegressionTest: long, Impact: long, Disposition: long}
		cov := recordCoverage{ID: e.ID, Covers: 5000 / 60}
		if i == 0 {
			e.Pointers = []string{"/**"}
			cov.Broad, cov.Covers = "names a root pattern (/**)", len(ptrs)
		}
		r.Semantic.Exceptions = append(r.Semantic.Exceptions, e)
		r.Semantic.Coverage = append(r.Semantic.Coverage, cov)
	}
	res := &engine.PerfResult{TimingField: "replay_execution_ms", Threshold: 1.05,
		Caveats: []string{"load preflight: CPU 1 was 100% busy with other work over 2 s before the first warmup", "telemetry unavailable"}}
	for i := 1; i <= 200; i++ {
		order := stats.BaselineFirst
		if i%2 == 0 {
			order = stats.CandidateFirst
		}
		res.Pairs = append(res.Pairs, engine.PerfPair{Pair: i, Order: order, BaselineMs: 100, CandidateMs: 100 + float64(i%7), Ratio: 1 + float64(i%7)/100})
		res.Invalidations = append(res.Invalidations, engine.PerfInvalidation{Pair: i, Attempt: 1, Reason: "competing load on CPU 1: " + long})
	}
	res.Analysis = &stats.Analysis{Bounds: stats.Bounds{Lower: 1.01, Upper: 1.04, Median: 1.03}}
	r.Performance.Result = res
	for _, arm := range arms {
		ev := &report.Evidence{VirtualEndMs: 100_000, PreemptionsTotal: 3, Pools: []report.PoolEvidence{{Pool: "prefill", RoutingDecisions: 500, OverlapPositive: 200}}}
		for k := range 3 {
			ev.Pressure = append(ev.Pressure, report.PressureRecord{AtMs: float64(20_000 * (k + 1))})
		}
		a := armReport{Arm: arm, Revision: "v", Evidence: ev, Digests: []string{"d"}}
		for k := range 60 {
			a.Runs = append(a.Runs, RunInfo{Run: engine.RunID(fmt.Sprintf("det/%s-%d", arm, k)), Status: statusCounted, Digest: "abcdef0123456789"})
		}
		r.Arms = append(r.Arms, a)
		m := &report.Metrics{Summary: map[string]float64{"median_ttft_ms": 100, "p99_ttft_ms": 900, "median_itl_ms": 3, "p99_itl_ms": 9,
			"median_e2e_latency_ms": 1000, "p99_e2e_latency_ms": 5000, "request_throughput_rps": 10, "output_throughput_tok_s": 500}}
		for q := range report.QuantileCount {
			m.TTFTms = append(m.TTFTms, float64(q*10))
			m.E2Ems = append(m.E2Ems, float64(q*50))
		}
		if arm == engine.Candidate {
			m.Summary["p99_ttft_ms"] = 990
		}
		r.Metrics = append(r.Metrics, armMetrics{Arm: arm, Run: a.Runs[0].Run, Recorded: 60, Counted: 60, Agree: true, Metrics: m})
	}
	r.Artifacts = []ArtifactInfo{{Arm: engine.Baseline, Current: true, Size: 100 << 20, TextSize: 40 << 20, Path: "artifacts/baseline-g1-x", Source: "/root/.cache/kvparity/builds/abc/bin/x"},
		{Arm: engine.Candidate, Current: true, Size: 101 << 20, TextSize: 40 << 20, Path: "artifacts/candidate-g1-x", Source: "/root/.cache/kvparity/builds/def/bin/x"}}
	r.Plots = plotNames(r)
	return r
}

// The summary holds each section with its caveats inline, stays within the bound at the edge
// of every cap, names no machine-local path, and is the same bytes twice.
func TestSummarySectionsAndBound(t *testing.T) {
	r := bigReport()
	s := summary(r, "")
	if len(s) > summaryLimit {
		t.Fatalf("summary.md is %d bytes, over %d", len(s), summaryLimit)
	}
	t.Logf("summary.md at the edge of every cap: %d bytes", len(s))
	out := string(s)
	for _, want := range []string{
		"## kvparity: row `big` — **INCONCLUSIVE**",
		"### Verdicts", "### What changed (baseline → candidate)", "### Plots", "### Diagnosis", "### Field patterns",
		"### Exception records (40)", "### Reproduce",
		"| TTFT p99 | 900.0 ms | 990.0 ms | +90.0 ms (+10.00%) |",
		"| binary size | 100.00 MiB | 101.00 MiB | +1048576 B (+1.00%) |", "| end-to-end p50 |",
		"| routing decisions with overlap > 0 | 40.0% (200 of 500) | 40.0% (200 of 500) | no change |",
		"random UUIDv4 pattern in request ids",
		"`/per_request/*/ttft_ms`",
		"```mermaid\n", "xychart-beta", "`plots/ratios.svg` and `plots/ratios.png`",
		"… 30 more record(s) in report.md.",
		"kvparity run row.toml --campaign . --stage all",
		"<details>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	// The caveats are tagged on the verdict's own line, and said in full in its evidence row.
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "- **performance: "):
			for _, w := range []string{"⚠ loaded host", "⚠ 200 pair attempt(s) invalidated"} {
				if !strings.Contains(line, w) {
					t.Errorf("performance line lacks %q: %s", w, line)
				}
			}
		case strings.HasPrefix(line, "| **performance** "):
			for _, w := range []string{"⚠ loaded host — load preflight", "⚠ 200 pair attempt(s) invalidated"} {
				if !strings.Contains(line, w) {
					t.Errorf("performance evidence row lacks %q: %s", w, line)
				}
			}
		case strings.HasPrefix(line, "- **semantic: "):
			if !strings.Contains(line, "⚠ 1 BROAD exception record(s)") {
				t.Errorf("semantic line does not tag the BROAD record: %s", line)
			}
		case strings.HasPrefix(line, "| **semantic** "):
			if !strings.Contains(line, "⚠ BROAD exception record `record-00`") {
				t.Errorf("semantic evidence row does not name the BROAD record: %s", line)
			}
		}
	}
	if regexp.MustCompile(`/root/|\.cache/kvparity`).MatchString(out) {
		t.Error("summary names a machine-local path")
	}
	if !bytes.Equal(s, summary(bigReport(), "")) {
		t.Error("the same report gave two summaries")
	}
}

// Over the bound the <details> blocks go, largest first, each said in one line; what is above
// the fold stays.
func TestFitLeavesOutTheLargestDetailsFirst(t *testing.T) {
	parts := []part{{text: "head\n"}, {text: strings.Repeat("x", 600), bulk: "big"}, {text: strings.Repeat("y", 300), bulk: "small"}, {text: "tail\n"}}
	got := fit(parts, 500)
	if len(got) > 500 || !strings.Contains(got, "head") || !strings.Contains(got, "tail") || !strings.Contains(got, "(big: left out") || !strings.Contains(got, strings.Repeat("y", 300)) {
		t.Errorf("fit: %d bytes\n%s", len(got), got)
	}
}

// Without metrics (a campaign recorded before runs/<id>/metrics.json) the table says "not
// recorded" and says why, and no latency plot is drawn.
func TestSummaryWithoutRecordedMetrics(t *testing.T) {
	r := bigReport()
	for i := range r.Metrics {
		r.Metrics[i].Metrics, r.Metrics[i].Recorded, r.Metrics[i].Run = nil, 0, ""
	}
	r.Plots = plotNames(r)
	out := string(summary(r, ""))
	for _, want := range []string{"| TTFT p50 | not recorded | not recorded | — |", "not recorded (its 60 counted repetition(s) predate `runs/<id>/metrics.json`"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if strings.Contains(out, "plots/ttft.svg") || !strings.Contains(out, "plots/pressure.svg") {
		t.Errorf("plots: %v", r.Plots)
	}
}

// The plots are drawn the same twice (no timestamp, no random id), as SVG and PNG.
func TestPlotsAreReproducible(t *testing.T) {
	r := bigReport()
	a, err := renderPlots(r)
	if err != nil {
		t.Fatal(err)
	}
	b, err := renderPlots(bigReport())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"plots/e2e.png", "plots/e2e.svg", "plots/pressure.png", "plots/pressure.svg", "plots/ratios.png", "plots/ratios.svg", "plots/ttft.png", "plots/ttft.svg"}
	if len(a) != len(want) {
		t.Fatalf("drew %d files, want %v", len(a), want)
	}
	for _, n := range want {
		if len(a[n]) == 0 || !bytes.Equal(a[n], b[n]) {
			t.Errorf("%s: %d bytes, reproducible %v", n, len(a[n]), bytes.Equal(a[n], b[n]))
		}
	}
	if !bytes.HasPrefix(a["plots/ratios.png"], []byte("\x89PNG")) || !bytes.Contains(a["plots/ratios.svg"], []byte("threshold 1.050")) ||
		!bytes.Contains(a["plots/ratios.svg"], []byte("order-statistic bounds")) || !bytes.Contains(a["plots/ratios.svg"], []byte("[1.010, 1.040]")) {
		t.Error("the ratio plot lacks its PNG signature, its gate or its bounds")
	}
}
