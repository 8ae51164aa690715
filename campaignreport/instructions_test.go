package campaignreport_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/campaignreport"
	"kvparity/engine"
	"kvparity/engine/instrument"
	"kvparity/engine/journal"
	"kvparity/engine/matrix"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// nestInstructions puts a copy of the fixture campaign src into dir/instructions (where
// kvparity matrix on Slurm counts a row's instructions, in a job of their own) and records an
// instruction result for its current artifacts, as `kvparity run --stage instructions` would
// (without valgrind: the counts are made up).
func nestInstructions(t *testing.T, dir, src string) instrument.InstructionResult {
	t.Helper()
	nested := filepath.Join(dir, layout.DirInstructions)
	if err := os.Rename(campaignCopy(t, src), nested); err != nil {
		t.Fatal(err)
	}
	res := instrument.DecideInstructions("valgrind-3.19.0", []string{"embedded", "embedded"}, []uint64{66_880_000, 66_890_000, 66_900_000},
		[]uint64{67_550_000, 67_560_000, 67_570_000}, 0)
	res.Key = "b1-c1" // the engine's key of the first generation of both arms
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	j, err := journal.Open[engine.Record](filepath.Join(nested, layout.FileJournal), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Append(engine.Record{Type: "instructions_result", Stage: engine.StageInstructions, Data: data}); err != nil {
		t.Fatal(err)
	}
	if own, err := campaignreport.Build(nested); err != nil || own.Instructions == nil || own.Instructions.Ratio != res.Ratio {
		t.Fatalf("the nested campaign's own report does not state the recorded counts: %+v %v", own, err)
	}
	return res
}

// Issue 39, item 4: a row's report states the counts of its nested instruction campaign (the
// job of their own a Slurm matrix submits) when that campaign pinned the row's artifacts, says
// so and where, on report.md, summary.md, report.json and the matrix report; a nested campaign
// that counted other artifacts (here: the same kvparity binary running another candidate
// variant) is not stated as the row's, and the report says why.
func TestReportStatesTheNestedInstructionCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	t.Run("same artifacts", func(t *testing.T) {
		dir := campaignCopy(t, "e2e-pass")
		if r, err := campaignreport.Build(dir); err != nil || r.Instructions != nil || r.InstructionsNote != "" {
			t.Fatalf("the fixture counts nothing of its own: %+v %v", r, err)
		}
		res := nestInstructions(t, dir, "e2e-pass")
		md, js := reportTwice(t, dir)
		r := parseReport(t, js)
		if r.Instructions == nil || r.Instructions.Ratio != res.Ratio || r.InstructionsFrom != layout.DirInstructions || r.InstructionsNote != "" {
			t.Fatalf("report.json: instructions %+v from %q note %q", r.Instructions, r.InstructionsFrom, r.InstructionsNote)
		}
		mustContain(t, md, "## Instruction counts (secondary, deterministic; never a verdict)",
			"Counted in a Slurm job of their own, which kvparity matrix submitted beside the row's job (that one ran `--no-instructions`), in the campaign `instructions/` (its report: `instructions/report.md`); it pinned the same artifacts",
			"| baseline | 3 | 66890000 |")
		sum, _ := os.ReadFile(filepath.Join(dir, layout.FileSummaryMD))
		ratio := fmt.Sprintf("%.4f", res.Ratio)
		mustContain(t, sum, "instructions (secondary, deterministic; decides nothing): ratio "+ratio, "(counted in a job of their own: `instructions/`)")
		// The counts decide nothing: the verdicts are the fixture's.
		if v, err := campaignreport.Assess(fixtures["e2e-pass"]); err != nil || r.Verdicts().Overall != v.Overall {
			t.Errorf("the nested counts changed the overall verdict: %+v, the fixture's %+v (%v)", r.Overall, v.Overall, err)
		}

		// The matrix report: the row's ratio, said as counted in the job of its own.
		mdir := filepath.Dir(dir)
		rows := []matrix.RowStatus{{Row: filepath.Base(dir), Dir: dir, Mode: "slurm", JobID: "7", Stage: matrix.RowStageDone,
			InstructionsJob: &matrix.InstructionsJob{Dir: filepath.Join(dir, layout.DirInstructions), JobID: "8", JobState: matrix.JobCompleted, Node: "n2", Attempts: 1}},
			{Row: "uncounted", Dir: filepath.Join(mdir, "uncounted"), Mode: "slurm", JobID: "9", Stage: matrix.RowStageQueued}}
		rep := campaignreport.BuildMatrixReport(mdir, rows, verdict.Of(verdict.Undecided, "x"))
		if got := rep.Rows[0]; got.Instructions == nil || got.Instructions.Ratio != res.Ratio || got.InstructionsFrom != layout.DirInstructions || got.InstructionsJob.JobID != "8" {
			t.Errorf("matrix.json row: %+v", got)
		}
		if rep.Rows[1].Instructions != nil {
			t.Errorf("a row without counts: %+v", rep.Rows[1].Instructions)
		}
		if err := campaignreport.WriteMatrixReport(mdir, rep); err != nil {
			t.Fatal(err)
		}
		mmd := mustRead(t, filepath.Join(mdir, layout.FileMatrixMD))
		mustContain(t, mmd, "| footprint | instructions | overall |", "| "+ratio+" ±0.030% (job of its own) |", "| not counted |",
			"## Instruction counts in jobs of their own", "- e2e-pass: job 8 on n2, COMPLETED, campaign `e2e-pass/instructions/`")
		var raw map[string]any
		if err := json.Unmarshal(mustRead(t, filepath.Join(mdir, layout.FileMatrixJSON)), &raw); err != nil {
			t.Fatal(err)
		}
		row0 := raw["rows"].([]any)[0].(map[string]any)
		if in, ok := row0["instructions"].(map[string]any); !ok || in["ratio"] != res.Ratio || row0["instructions_from"] != layout.DirInstructions {
			t.Errorf("matrix.json row instructions: %v", row0["instructions"])
		}
	})
	t.Run("other artifacts", func(t *testing.T) {
		dir := campaignCopy(t, "e2e-pass")
		nestInstructions(t, dir, "e2e-semantic") // its candidate runs the fifo-preemption variant
		md, js := reportTwice(t, dir)
		r := parseReport(t, js)
		if r.Instructions != nil || r.InstructionsFrom != "" ||
			!strings.Contains(r.InstructionsNote, "the counts of the campaign instructions/ are not used: they counted other artifacts (candidate: ") ||
			!strings.Contains(r.InstructionsNote, "variant fifo-preemption") {
			t.Fatalf("report.json: instructions %+v from %q note %q", r.Instructions, r.InstructionsFrom, r.InstructionsNote)
		}
		mustContain(t, md, "- not counted (`kvparity run --stage instructions`", "- the counts of the campaign instructions/ are not used")
		sum, _ := os.ReadFile(filepath.Join(dir, layout.FileSummaryMD))
		if strings.Contains(string(sum), "instructions (secondary") {
			t.Errorf("summary.md states counts of other artifacts:\n%s", sum)
		}
		rep := campaignreport.BuildMatrixReport(filepath.Dir(dir), []matrix.RowStatus{{Row: filepath.Base(dir), Dir: dir}}, verdict.Of(verdict.Undecided, "x"))
		if rep.Rows[0].Instructions != nil {
			t.Errorf("the matrix report states counts of other artifacts: %+v", rep.Rows[0].Instructions)
		}
	})
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
