package engine

import (
	"testing"

	"kvparity/verdict"
)

// foldRow is a tiny row with two repetitions per arm and four pairs.
func foldRow() *Row {
	row := TinyRow("", "")
	row.Determinism.Repetitions, row.Perf.Pairs = 2, 4
	return row
}

func TestRowFoldFollowsTheJournal(t *testing.T) {
	f := newRowFold(RowStatus{Row: "r"}, foldRow())
	if s := f.status(); s.Stage != RowStageWaiting || s.Progress() != "waiting" {
		t.Fatalf("fresh: %+v", s)
	}
	f.add(Record{Type: RecCampaign})
	f.add(Record{Type: RecPinned, Arm: Baseline})
	if s := f.status(); s.Stage != RowStagePinning {
		t.Fatalf("after campaign: %s", s.Stage)
	}
	f.add(Record{Type: RecRunStart, Run: "det/baseline-1", Arm: Baseline, Kind: KindRepetition, Index: 1, Attempt: 1})
	if s := f.status(); s.Stage != RowStageDeterminism || s.Running != "det/baseline-1" || s.Progress() != "determinism 0/4" {
		t.Fatalf("first repetition running: %+v", s)
	}
	for i, run := range []RunID{"det/baseline-1", "det/baseline-2", "det/candidate-1", "det/candidate-2"} {
		arm := Baseline
		if i >= 2 {
			arm = Candidate
		}
		f.add(Record{Type: RecRunEnd, Run: run, Arm: arm, Kind: KindRepetition, Index: i%2 + 1, Attempt: 1, Digest: "d"})
	}
	// A repeated run_end (a rerun's record) is not counted twice.
	f.add(Record{Type: RecRunEnd, Run: "det/baseline-1", Arm: Baseline, Kind: KindRepetition, Index: 1, Attempt: 1, Digest: "d"})
	s := f.status()
	// The verdicts are derived from the digests: no verdict record was folded.
	if s.Progress() != "determinism 4/4" || s.Digest(Baseline) != "d" || s.Stability[Candidate] != verdict.Stable || s.Parity != verdict.Pass {
		t.Fatalf("after determinism: %+v", s)
	}
	f.add(Record{Type: RecRunStart, Run: "perf/warmup-01-baseline", Kind: KindWarmup})
	if s := f.status(); s.Progress() != "perf 0/4" {
		t.Fatalf("warmups: %s", s.Progress())
	}
	f.add(Record{Type: RecRunEnd, Run: "perf/warmup-01-baseline", Kind: KindWarmup})
	f.add(Record{Type: RecPerfPair, Data: []byte(`{"key":"b1-c1","pair":1,"ratio":1.01}`)})
	f.add(Record{Type: RecPerfPair, Data: []byte(`{"key":"b1-c1","pair":1,"ratio":1.01}`)}) // counted once
	f.add(Record{Type: RecPerfPair, Data: []byte(`{"key":"b1-c1","pair":2,"ratio":0.99}`)})
	f.add(Record{Type: RecPerfResult, Data: []byte(`{"key":"b1-c1","result":{"verdict":"INCONCLUSIVE","reason":"straddle"}}`)})
	s = f.status()
	if s.Progress() != "perf 2/4" || s.Samples != 4 || s.Perf != verdict.Inconclusive || s.VerdictPhrase() != "parity PASS · perf INCONCLUSIVE" {
		t.Fatalf("perf: %+v (%s, %s)", s, s.Progress(), s.VerdictPhrase())
	}
	// The status is a copy: changing it does not change the fold.
	s.Digests[Baseline][0] = "changed"
	if f.status().Digest(Baseline) != "d" {
		t.Fatal("status must be a deep copy")
	}
	f.reset()
	if s := f.status(); s.Records != 0 || s.Stage != RowStageWaiting || s.Parity.Decided() {
		t.Fatalf("reset: %+v", s)
	}
}

func TestRowFoldUnstableAndBlocked(t *testing.T) {
	f := newRowFold(RowStatus{Row: "r"}, foldRow())
	f.add(Record{Type: RecRunEnd, Run: "det/baseline-1", Arm: Baseline, Kind: KindRepetition, Index: 1, Attempt: 1, Digest: "aa"})
	f.add(Record{Type: RecRunEnd, Run: "det/baseline-2", Arm: Baseline, Kind: KindRepetition, Index: 2, Attempt: 1, Digest: "bb"})
	if s := f.status(); s.Digest(Baseline) != "UNSTABLE (2 digests)" || s.Stability[Baseline] != verdict.Unstable {
		t.Fatalf("unstable: %+v", s)
	}
	f.add(Record{Type: RecBlocked, Stage: StagePerf, Reason: "replay_bench is false"})
	s := f.status()
	if s.Stage != RowStageBlocked || s.Blocked != "perf: replay_bench is false" || s.Overall().Verdict != verdict.Blocked {
		t.Fatalf("blocked: %+v", s)
	}
	// A run started after the block retries the row.
	f.add(Record{Type: RecRunStart, Run: "perf/warmup-01-baseline", Kind: KindWarmup})
	if s := f.status(); s.Stage != RowStagePerf || s.Blocked != "" {
		t.Fatalf("retried: %+v", s)
	}
	// A re-pinned arm forgets its digests, and its verdict judges the new generation only.
	f.add(Record{Type: RecPinned, Arm: Baseline, Gen: 2, Artifact: &ArtifactInfo{SHA256: "b2"}})
	f.add(Record{Type: RecStale, Arm: Baseline})
	if s := f.status(); s.Digest(Baseline) != "" || s.Stage != RowStagePinning || s.Stability[Baseline].Decided() {
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
	if s.VerdictPhrase() != "semantic PASS · perf FAIL · overall FAIL" || s.Overall().Verdict != verdict.Fail {
		t.Errorf("decided: %q %+v", s.VerdictPhrase(), s.Overall())
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
