package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"kvparity/engine/instrument"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every record type the engine declares has a definition, so no record is written that the
// fold silently skips: the test reads the declarations from the source, not from a list kept
// by hand.
func TestEveryRecordTypeIsDefined(t *testing.T) {
	fs := token.NewFileSet()
	files, _ := filepath.Glob("*.go")
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fs, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(node ast.Node) bool {
			vs, ok := node.(*ast.ValueSpec)
			if !ok {
				return true
			}
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "RecordType" {
				return true
			}
			for i, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok {
					continue
				}
				typ, _ := strconv.Unquote(lit.Value)
				n++
				if recordKinds[RecordType(typ)] == nil {
					t.Errorf("%s: record type %s (%q) has no defineRecord or definePlainRecord", fs.Position(vs.Pos()), vs.Names[i].Name, typ)
				}
			}
			return true
		})
	}
	if n < 20 {
		t.Fatalf("found only %d record type declarations: the test no longer sees them", n)
	}
}

// A payload is decoded by its definition: a perf pair folds into its series and the progress,
// a payload that does not decode is skipped (as an old reader skips a newer record's), and a
// pair without a key counts as progress but belongs to no series.
func TestPayloadsFoldByTheirDefinition(t *testing.T) {
	h := FoldJournal([]Record{
		{Type: RecPerfPair, Data: MarshalData(PerfPair{Key: "b1-c1", Pair: 1, Ratio: 1.02})},
		{Type: RecPerfPair, Data: []byte(`{"key":"b1-c1","pair":"two"}`)}, // does not decode
		{Type: RecPerfPair, Data: MarshalData(PerfPair{Pair: 3})},
		{Type: RecPerfLoad, Data: MarshalData(instrument.LoadCheck{CPU: 2, Busy: 0.01})},
	}, TinyRow("", ""))
	if s := h.series["b1-c1"]; s == nil || len(s.pairs) != 1 || s.pairs[1].Ratio != 1.02 {
		t.Fatalf("series b1-c1: %+v", h.series["b1-c1"])
	}
	if _, ok := h.series[""]; ok {
		t.Error("a pair without a key made a series")
	}
	if p := h.Progress(); p.Phase != PhasePerf || p.Done != 2 || p.Samples != 4 {
		t.Errorf("progress %+v, want perf with 2 pairs, 4 samples", p)
	}
	if l, ok := h.LoadCheck(); !ok || l.CPU != 2 {
		t.Errorf("load check %+v %v", l, ok)
	}
}

// Runs pairs each run_start with its run_end; a run without an end is open until one is
// recorded, and a rerun of the same id supersedes the open start.
func TestHistoryRuns(t *testing.T) {
	smp := PerfSample{Key: "b1-c1", Run: "perf/pair-01-baseline", Arm: Baseline, Error: "exit 3"}
	h := FoldJournal([]Record{
		{Type: RecRunStart, Run: "det/baseline-1", Arm: Baseline, Kind: KindRepetition, Index: 1, Attempt: 1, PID: 10},
		{Type: RecRunEnd, Run: "det/baseline-1", Arm: Baseline, Kind: KindRepetition, Index: 1, Attempt: 1, Digest: "d"},
		{Type: RecRunStart, Run: "pre/baseline", Arm: Baseline, Kind: KindPreflight, Gen: 1, Attempt: 1, PID: 11},
		{Type: RecRunStart, Run: "pre/baseline", Arm: Baseline, Kind: KindPreflight, Gen: 1, Attempt: 2, PID: 12},
		{Type: RecRunStart, Run: smp.Run, Arm: Baseline, Kind: KindSample, Index: 1, Attempt: 1, Data: MarshalData(PerfRunData{Key: "b1-c1"})},
		{Type: RecRunEnd, Run: smp.Run, Arm: Baseline, Kind: KindSample, Index: 1, Attempt: 1, Data: MarshalData(smp)},
		{Type: RecRunEnd, Run: "det/orphan", Arm: Candidate, Kind: KindRepetition, Index: 1, Attempt: 1, Error: "killed"},
	}, TinyRow("", ""))
	runs := h.Runs()
	if len(runs) != 5 {
		t.Fatalf("%d runs: %+v", len(runs), runs)
	}
	if r := runs[0]; r.Start == nil || r.End == nil || r.End.Digest != "d" || r.Failed() {
		t.Errorf("finished repetition: %+v", r)
	}
	if r := runs[3]; r.Sample == nil || r.Sample.Error != "exit 3" || !r.Failed() {
		t.Errorf("a sample's failure is the run's: %+v", r)
	}
	if r := runs[4]; r.Start != nil || r.End == nil || !r.Failed() {
		t.Errorf("an end without a start: %+v", r)
	}
	if open := h.openRuns(); len(open) != 1 || open[0].PID != 12 {
		t.Errorf("open runs %+v, want the preflight's second start only", open)
	}
	if got := h.nextAttempt(KindPreflight, Baseline, 1); got != 3 {
		t.Errorf("next preflight attempt %d, want 3", got)
	}
	if got := h.nextAttempt(KindPreflight, Baseline, 2); got != 1 {
		t.Errorf("next preflight attempt on generation 2: %d, want 1", got)
	}
	if r, ok := h.StartedRun("det/baseline-1"); !ok || r.Kind != KindRepetition {
		t.Errorf("StartedRun %+v %v", r, ok)
	}
	if _, ok := h.StartedRun("det/orphan"); ok {
		t.Error("a run with only an end was reported started")
	}
	if s := h.Span(); s.Records != 7 {
		t.Errorf("span %+v", s)
	}
}
