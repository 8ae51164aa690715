package matrix

import (
	"slices"
	"testing"

	"kvparity/engine"
	"kvparity/verdict"
)

// foldRow is a tiny row with two repetitions per arm and four pairs.
func foldRow() *engine.Row {
	row := engine.TinyRow("", "")
	row.Determinism.Repetitions, row.Perf.Pairs = 2, 4
	row.Determinism.Perturbations = nil // the journal below has plain repetitions only
	return row
}

func TestRowFoldFollowsTheJournal(t *testing.T) {
	f := newRowFold(RowStatus{Row: "r"}, foldRow())
	if s := f.status(); s.Stage != RowStageWaiting || s.Progress() != "waiting" {
		t.Fatalf("fresh: %+v", s)
	}
	f.add(engine.Record{Type: engine.RecCampaign})
	f.add(engine.Record{Type: engine.RecPinned, Arm: engine.Baseline})
	if s := f.status(); s.Stage != RowStagePinning {
		t.Fatalf("after campaign: %s", s.Stage)
	}
	f.add(engine.Record{Type: engine.RecRunStart, Run: "det/baseline-1", Arm: engine.Baseline, Kind: engine.KindRepetition, Index: 1, Attempt: 1})
	if s := f.status(); s.Stage != RowStageDeterminism || s.Running != "det/baseline-1" || s.Progress() != "determinism 0/4" {
		t.Fatalf("first repetition running: %+v", s)
	}
	for i, run := range []engine.RunID{"det/baseline-1", "det/baseline-2", "det/candidate-1", "det/candidate-2"} {
		arm := engine.Baseline
		if i >= 2 {
			arm = engine.Candidate
		}
		f.add(engine.Record{Type: engine.RecRunEnd, Run: run, Arm: arm, Kind: engine.KindRepetition, Index: i%2 + 1, Attempt: 1, Digest: "d"})
	}
	// A repeated run_end (a rerun's record) is not counted twice.
	f.add(engine.Record{Type: engine.RecRunEnd, Run: "det/baseline-1", Arm: engine.Baseline, Kind: engine.KindRepetition, Index: 1, Attempt: 1, Digest: "d"})
	s := f.status()
	// The verdicts are derived from the digests: no verdict record was folded.
	if s.Progress() != "determinism 4/4" || !slices.Equal(s.Digests[engine.Baseline], []string{"d"}) || s.Stability[engine.Candidate] != verdict.Stable || s.Parity != verdict.Pass {
		t.Fatalf("after determinism: %+v", s)
	}
	f.add(engine.Record{Type: engine.RecRunStart, Run: "perf/warmup-01-baseline", Kind: engine.KindWarmup})
	if s := f.status(); s.Progress() != "perf 0/4" {
		t.Fatalf("warmups: %s", s.Progress())
	}
	f.add(engine.Record{Type: engine.RecRunEnd, Run: "perf/warmup-01-baseline", Kind: engine.KindWarmup})
	f.add(engine.Record{Type: engine.RecPerfPair, Data: []byte(`{"key":"b1-c1","pair":1,"ratio":1.01}`)})
	f.add(engine.Record{Type: engine.RecPerfPair, Data: []byte(`{"key":"b1-c1","pair":1,"ratio":1.01}`)}) // counted once
	f.add(engine.Record{Type: engine.RecPerfPair, Data: []byte(`{"key":"b1-c1","pair":2,"ratio":0.99}`)})
	f.add(engine.Record{Type: engine.RecPerfResult, Data: []byte(`{"key":"b1-c1","result":{"verdict":"INCONCLUSIVE","reason":"straddle"}}`)})
	s = f.status()
	if s.Progress() != "perf 2/4" || s.Samples != 4 || s.Perf != verdict.Inconclusive || s.Parity != verdict.Pass {
		t.Fatalf("perf: %+v (%s)", s, s.Progress()) // in words: TestMatrixLineWords in the root package
	}
	// The status is a copy: changing it does not change the fold.
	s.Digests[engine.Baseline][0] = "changed"
	if f.status().Digests[engine.Baseline][0] != "d" {
		t.Fatal("status must be a deep copy")
	}
	f.reset()
	if s := f.status(); s.Records != 0 || s.Stage != RowStageWaiting || s.Parity.Decided() {
		t.Fatalf("reset: %+v", s)
	}
}

func TestRowFoldUnstableAndBlocked(t *testing.T) {
	f := newRowFold(RowStatus{Row: "r"}, foldRow())
	f.add(engine.Record{Type: engine.RecRunEnd, Run: "det/baseline-1", Arm: engine.Baseline, Kind: engine.KindRepetition, Index: 1, Attempt: 1, Digest: "aa"})
	f.add(engine.Record{Type: engine.RecRunEnd, Run: "det/baseline-2", Arm: engine.Baseline, Kind: engine.KindRepetition, Index: 2, Attempt: 1, Digest: "bb"})
	if s := f.status(); len(s.Digests[engine.Baseline]) != 2 || s.Stability[engine.Baseline] != verdict.Unstable {
		t.Fatalf("unstable: %+v", s)
	}
	f.add(engine.Record{Type: engine.RecBlocked, Stage: engine.StagePerf, Reason: "replay_bench is false"})
	s := f.status()
	if s.Stage != RowStageBlocked || s.Blocked != "perf: replay_bench is false" || s.Overall().Verdict != verdict.Blocked {
		t.Fatalf("blocked: %+v", s)
	}
	// A run started after the block retries the row.
	f.add(engine.Record{Type: engine.RecRunStart, Run: "perf/warmup-01-baseline", Kind: engine.KindWarmup})
	if s := f.status(); s.Stage != RowStagePerf || s.Blocked != "" {
		t.Fatalf("retried: %+v", s)
	}
	// A re-pinned arm forgets its digests, and its verdict judges the new generation only.
	f.add(engine.Record{Type: engine.RecPinned, Arm: engine.Baseline, Gen: 2, Artifact: &engine.ArtifactInfo{SHA256: "b2"}})
	f.add(engine.Record{Type: engine.RecStale, Arm: engine.Baseline})
	if s := f.status(); len(s.Digests[engine.Baseline]) != 0 || s.Stage != RowStagePinning || s.Stability[engine.Baseline].Decided() {
		t.Fatalf("stale: %+v", s)
	}
}

func TestRowStatusWords(t *testing.T) {
	s := RowStatus{Row: "r", Stage: RowStageDone, Done: 4, Total: 4}
	if s.Progress() != "done" {
		t.Errorf("a finished row shows its stage only: %q", s.Progress())
	}
	if o := s.Overall(); o.Verdict != verdict.Undecided {
		t.Errorf("a row without its report's verdicts is undecided: %+v", o)
	}
	v := verdict.Decide(verdict.Inputs{Baseline: verdict.Of(verdict.Stable, ""), Candidate: verdict.Of(verdict.Stable, ""),
		Parity: verdict.Of(verdict.Pass, ""), Evidence: verdict.Of(verdict.Pass, ""), Performance: verdict.Of(verdict.Fail, "slow"),
		Footprint: verdict.Of(verdict.Pass, "")})
	s.Verdicts = &v
	if s.Overall().Verdict != verdict.Fail {
		t.Errorf("decided: %+v", s.Overall())
	}
	if q := (RowStatus{Stage: RowStageQueued, JobNote: "ReqNodeNotAvail"}); q.Progress() != "queued (ReqNodeNotAvail)" {
		t.Errorf("a pending job says why: %q", q.Progress())
	}
}

func TestMatrixOverall(t *testing.T) {
	decided := func(w verdict.Word) RowStatus {
		return RowStatus{Row: string(w), Stage: RowStageDone, Verdicts: &verdict.Verdicts{Overall: verdict.Of(w, "x")}}
	}
	interrupted := RowStatus{Row: "i", Stage: RowStageInterrupted}
	for _, c := range []struct {
		rows []RowStatus
		want int
	}{
		{[]RowStatus{decided(verdict.Pass), decided(verdict.PassWithSemanticExceptions)}, 0},
		{[]RowStatus{decided(verdict.Pass), decided(verdict.Inconclusive)}, 2},
		{[]RowStatus{decided(verdict.Inconclusive), decided(verdict.Fail)}, 1},
		{[]RowStatus{decided(verdict.Pass), interrupted}, 2},
	} {
		if got := verdict.ExitCode(matrixOverall(c.rows).Verdict); got != c.want {
			t.Errorf("rows %+v: exit %d, want %d", c.rows, got, c.want)
		}
	}
}

// A run whose perf stage blocked (a loaded node) still ends with a report: the matrix reads
// that report's verdicts, so a semantic FAIL is FAIL in matrix.json as in report.json, not a
// BLOCKED row with every verdict undecided.
func TestBlockedRowReadsItsReport(t *testing.T) {
	f := newRowFold(RowStatus{Row: "r"}, foldRow())
	f.add(engine.Record{Type: engine.RecBlocked, Stage: engine.StagePerf, Reason: "pair 3 was invalidated 5 times in a row"})
	report := verdict.Decide(verdict.Inputs{Baseline: verdict.Of(verdict.Stable, ""), Candidate: verdict.Of(verdict.Stable, ""),
		Parity: verdict.Of(verdict.Fail, "differ"), Evidence: verdict.Of(verdict.Pass, ""),
		Performance: verdict.Of(verdict.Blocked, "pair 3"), Footprint: verdict.Of(verdict.Pass, "")})
	assessed := 0
	r := &matrixRow{fold: f, assess: func(string) (verdict.Verdicts, error) { assessed++; return report, nil }}
	two := verdict.ExitInconclusive
	r.jobs = []JobRecord{{Mode: "local", State: JobFailed, ExitCode: &two}}
	s := r.status()
	if s.Stage != RowStageBlocked || s.Verdicts == nil || s.Overall() != report.Overall || assessed != 1 {
		t.Fatalf("blocked row with a report: stage %s verdicts %+v overall %+v (assessed %d)", s.Stage, s.Verdicts, s.Overall(), assessed)
	}
	// Killed while blocked (no exit status): no report to read, the row stays BLOCKED.
	r = &matrixRow{fold: f, assess: func(string) (verdict.Verdicts, error) { t.Fatal("assessed a killed run"); return report, nil }}
	r.jobs = []JobRecord{{Mode: "local", State: JobFailed}}
	if s := r.status(); s.Verdicts != nil || s.Overall().Verdict != verdict.Blocked {
		t.Fatalf("killed while blocked: %+v", s.Overall())
	}
}
