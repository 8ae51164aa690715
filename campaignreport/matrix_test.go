package campaignreport_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/campaignreport"
	"kvparity/engine"
	"kvparity/engine/matrix"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// The matrix report from the rows' statuses: matrix.json in the shared verdict schema (one
// verdict document of kind "row" per row), matrix.md with the table, the digests and every
// environmental job end, and links to the rows' own reports where they exist.
func TestMatrixReportFromRowStatuses(t *testing.T) {
	dir := t.TempDir()
	for _, row := range []string{"vllm-agg", "sglang-agg"} {
		if err := os.MkdirAll(filepath.Join(dir, row), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "vllm-agg", "report.md"), []byte("# row\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	zero := 0
	passed := verdict.Verdicts{Overall: verdict.Of(verdict.Pass, "ok"), Semantic: verdict.Of(verdict.Pass, "ok"), Blocked: []string{}}
	rows := []matrix.RowStatus{
		{Row: "vllm-agg", RowFile: "/rows/vllm-agg.toml", Dir: filepath.Join(dir, "vllm-agg"), Mode: "local", Node: "n1", CPUs: "0-3",
			NUMASpan: []int{0}, Attempts: 2, Stage: matrix.RowStageDone, Samples: 8, ExitCode: &zero, Verdicts: &passed,
			Digests:       map[engine.Arm][]string{engine.Baseline: {"d-vllm-agg"}, engine.Candidate: {"d-vllm-agg"}},
			Environmental: []string{"local run on n1: CANCELLED: environmental"}},
		{Row: "sglang-agg", RowFile: "/rows/sglang-agg.toml", Dir: filepath.Join(dir, "sglang-agg"), Mode: "slurm", JobID: "102",
			JobState: matrix.JobPending, Stage: matrix.RowStageQueued},
	}
	overall := verdict.Of(verdict.Undecided, "sglang-agg: no report yet")
	if err := campaignreport.WriteMatrixReport(dir, campaignreport.BuildMatrixReport(dir, rows, overall)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, layout.FileMatrixJSON))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["schema_version"] != float64(verdict.SchemaVersion) || doc["kind"] != verdict.KindMatrix || doc["exit_code"] != float64(2) || doc["campaign"] != dir {
		t.Fatalf("matrix.json header: %s", b)
	}
	var rep campaignreport.MatrixReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	a, q := rep.Rows[0], rep.Rows[1]
	if rep.Overall.Verdict != verdict.Undecided || len(rep.Rows) != 2 || a.Kind != verdict.KindRow || a.Overall.Verdict != verdict.Pass ||
		a.BaselineDigest != "d-vllm-agg" || a.ReportMD != "vllm-agg/report.md" || a.ReportJSON != "" || a.Attempts != 2 || *a.RunExitCode != 0 {
		t.Fatalf("matrix.json: %+v", rep)
	}
	if q.Kind != verdict.KindRow || q.Overall.Verdict != verdict.Undecided || q.JobState != matrix.JobPending || q.ExitCode != 2 || q.ReportMD != "" {
		t.Fatalf("a row without verdicts: %+v", q)
	}
	md, _ := os.ReadFile(filepath.Join(dir, layout.FileMatrixMD))
	for _, want := range []string{"# kvparity matrix", "overall **UNDECIDED** (exit 2)", "Why: sglang-agg: no report yet",
		"| vllm-agg | n1 | local (2 attempts) | 0-3 | 0 | done |", "[report.md](vllm-agg/report.md)", "| sglang-agg | — | 102 |",
		"- vllm-agg: baseline `d-vllm-agg`, candidate `d-vllm-agg`", "## Environmental job ends", "- vllm-agg: local run on n1: CANCELLED"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("matrix.md lacks %q:\n%s", want, md)
		}
	}
}

// Every row's evidence reaches the matrix report (stage 4: the rows' overlap-sensitive routing,
// immediate placement, bounded pressure, handoffs and terminal cleanup), read from the row's
// own report.json; a row without a report has none.
func TestMatrixReportCarriesEveryRowsEvidence(t *testing.T) {
	dir := t.TempDir()
	rowDir := filepath.Join(dir, "vllm-disagg")
	os.MkdirAll(rowDir, 0o755)
	os.WriteFile(filepath.Join(rowDir, layout.FileReportJSON), []byte(`{"trace":{"spec":"https://example.org/t.jsonl[0:5000]","window_sha256":"c2157405"},
"arms":[{"arm":"baseline","evidence_run":"det/baseline-1","evidence":{"engine":"vllm","preemptions_total":14,"pressure_band":[10,20],"rules":[
 {"name":"overlap-sensitive routing","passed":true,"why":"4990 of 5000 prefill routing decisions saw KV overlap > 0"},
 {"name":"handoffs complete","passed":true,"why":"5000 of 5000 handoffs complete"}]}},
 {"arm":"candidate","evidence":{"engine":"vllm","preemptions_total":31,"pressure_band":[10,20],"rules":[
 {"name":"overlap-sensitive routing","passed":true,"why":"4991 of 5000"},
 {"name":"pressure band","passed":false,"why":"31 preemptions, band 10–20"}]}}]}`), 0o644)
	rows := []matrix.RowStatus{{Row: "vllm-disagg", Dir: rowDir, Mode: "local"}, {Row: "none", Dir: filepath.Join(dir, "none"), Mode: "local"}}
	rep := campaignreport.BuildMatrixReport(dir, rows, verdict.Of(verdict.Fail, "x"))
	if err := campaignreport.WriteMatrixReport(dir, rep); err != nil {
		t.Fatal(err)
	}
	ev := rep.Rows[0].Evidence
	if ev == nil || ev.Window != "https://example.org/t.jsonl[0:5000] · window SHA-256 c2157405" || len(ev.Arms) != 2 || ev.Arms[0].Pressure != "14 preemptions, band 10–20" || rep.Rows[1].Evidence != nil {
		t.Fatalf("evidence %+v", ev)
	}
	md, _ := os.ReadFile(filepath.Join(dir, layout.FileMatrixMD))
	for _, want := range []string{
		"## Lifecycle evidence",
		"### vllm-disagg\n\nWindow: `https://example.org/t.jsonl[0:5000] · window SHA-256 c2157405`",
		"| overlap-sensitive routing | PASS: 4990 of 5000 prefill routing decisions saw KV overlap > 0 | PASS: 4991 of 5000 |",
		"| handoffs complete | PASS: 5000 of 5000 handoffs complete | — |",
		"| pressure band | — | FAIL: 31 preemptions, band 10–20 |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("matrix.md lacks %q:\n%s", want, md)
		}
	}
}
