package engine

import (
	"testing"
)

func TestRowFoldFollowsTheJournal(t *testing.T) {
	f := newRowFold(RowStatus{Row: "r"}, 2, 4)
	if s := f.status(); s.Stage != RowStageWaiting || s.Progress() != "waiting" {
		t.Fatalf("fresh: %+v", s)
	}
	f.add(Record{Type: RecCampaign})
	f.add(Record{Type: RecPinned, Arm: Baseline})
	if s := f.status(); s.Stage != RowStagePinning {
		t.Fatalf("after campaign: %s", s.Stage)
	}
	f.add(Record{Type: RecRunStart, Run: "det/baseline-1", Arm: Baseline, Kind: KindRepetition})
	if s := f.status(); s.Stage != RowStageDeterminism || s.Running != "det/baseline-1" || s.Progress() != "determinism 0/4" {
		t.Fatalf("first repetition running: %+v", s)
	}
	for i, run := range []RunID{"det/baseline-1", "det/baseline-2", "det/candidate-1", "det/candidate-2"} {
		arm := Baseline
		if i >= 2 {
			arm = Candidate
		}
		f.add(Record{Type: RecRunEnd, Run: run, Arm: arm, Kind: KindRepetition, Digest: "d" + string(arm)})
	}
	// A repeated run_end (a rerun's record) is not counted twice.
	f.add(Record{Type: RecRunEnd, Run: "det/baseline-1", Arm: Baseline, Kind: KindRepetition, Digest: "dbaseline"})
	f.add(Record{Type: RecRunEnd, Run: "det/candidate-3", Arm: Candidate, Kind: KindRepetition, Error: "exit 1"})
	f.add(Record{Type: RecVerdict, Stage: StageDeterminism, Arm: Baseline, Verdict: "STABLE"})
	f.add(Record{Type: RecVerdict, Stage: StageDeterminism, Arm: Candidate, Verdict: "STABLE"})
	f.add(Record{Type: RecVerdict, Stage: StageParity, Verdict: "PASS"})
	s := f.status()
	if s.Progress() != "determinism 4/4" || s.Digest(Baseline) != "dbaseline" || s.Digest(Candidate) != "dcandidate" || s.Semantic != "PASS" {
		t.Fatalf("after determinism: %+v", s)
	}
	f.add(Record{Type: RecRunStart, Run: "perf/warmup-01-baseline", Kind: KindWarmup})
	if s := f.status(); s.Progress() != "perf 0/4" {
		t.Fatalf("warmups: %s", s.Progress())
	}
	f.add(Record{Type: RecRunEnd, Run: "perf/warmup-01-baseline", Kind: KindWarmup})
	f.add(Record{Type: RecRunEnd, Run: "perf/pair-001-baseline", Kind: KindSample})
	f.add(Record{Type: RecRunEnd, Run: "perf/pair-001-candidate", Kind: KindSample})
	f.add(Record{Type: RecPerfPair, Data: []byte(`{"key":"b1-c1","pair":1,"ratio":1.01}`)})
	f.add(Record{Type: RecPerfPair, Data: []byte(`{"key":"b1-c1","pair":1,"ratio":1.01}`)}) // counted once
	f.add(Record{Type: RecPerfPair, Data: []byte(`{"key":"b1-c1","pair":2,"ratio":0.99}`)})
	f.add(Record{Type: RecVerdict, Stage: StagePerf, Verdict: "INCONCLUSIVE"})
	s = f.status()
	if s.Progress() != "perf 2/4" || s.Samples != 4 || s.Perf != "INCONCLUSIVE" || s.Verdicts() != "semantic PASS · perf INCONCLUSIVE" {
		t.Fatalf("perf: %+v (%s, %s)", s, s.Progress(), s.Verdicts())
	}
	// The status is a copy: changing it does not change the fold.
	s.Digests[Baseline][0] = "changed"
	if f.status().Digest(Baseline) != "dbaseline" {
		t.Fatal("status must be a deep copy")
	}
	f.reset()
	if s := f.status(); s.Records != 0 || s.Stage != RowStageWaiting || s.Semantic != "" {
		t.Fatalf("reset: %+v", s)
	}
}

func TestRowFoldUnstableAndBlocked(t *testing.T) {
	f := newRowFold(RowStatus{Row: "r"}, 2, 2)
	f.add(Record{Type: RecRunEnd, Run: "det/baseline-1", Arm: Baseline, Kind: KindRepetition, Digest: "aa"})
	f.add(Record{Type: RecRunEnd, Run: "det/baseline-2", Arm: Baseline, Kind: KindRepetition, Digest: "bb"})
	if d := f.status().Digest(Baseline); d != "UNSTABLE (2 digests)" {
		t.Fatalf("digest: %s", d)
	}
	f.add(Record{Type: RecBlocked, Stage: StagePerf, Reason: "replay_bench is false"})
	s := f.status()
	if s.Stage != RowStageBlocked || s.Blocked != "perf: replay_bench is false" || s.Verdicts() != "BLOCKED" {
		t.Fatalf("blocked: %+v", s)
	}
	// A run started after the block retries the row.
	f.add(Record{Type: RecRunStart, Run: "perf/warmup-01-baseline", Kind: KindWarmup})
	if s := f.status(); s.Stage != RowStagePerf || s.Blocked != "" {
		t.Fatalf("retried: %+v", s)
	}
	// A re-pinned arm forgets its digests and the cross-arm verdicts on the old artifact.
	f.add(Record{Type: RecVerdict, Stage: StageParity, Verdict: "PASS"})
	f.add(Record{Type: RecVerdict, Stage: StagePerf, Verdict: "PASS"})
	f.add(Record{Type: RecStale, Arm: Baseline})
	if s := f.status(); s.Digest(Baseline) != "" || s.Stage != RowStagePinning {
		t.Fatalf("stale: %+v", s)
	}
	if s := f.status(); s.Semantic != "" || s.Perf != "" || s.Verdicts() != "" {
		t.Fatalf("stale verdicts kept: %+v", s)
	}
}

func TestRowStatusWords(t *testing.T) {
	one := 1
	s := RowStatus{Stage: RowStageDone, Done: 4, Total: 4, Semantic: "PASS", ExitCode: &one}
	if s.Progress() != "done" {
		t.Errorf("a finished row shows its stage only: %q", s.Progress())
	}
	if s.Verdicts() != "semantic PASS · run FAIL (see the row's report)" {
		t.Errorf("exit 1 without a FAIL verdict must say so: %q", s.Verdicts())
	}
	if q := (RowStatus{Stage: RowStageQueued, JobNote: "ReqNodeNotAvail"}); q.Progress() != "queued (ReqNodeNotAvail)" {
		t.Errorf("a pending job says why: %q", q.Progress())
	}
	s.Semantic = "FAIL"
	if s.Verdicts() != "semantic FAIL" {
		t.Errorf("a named FAIL needs no extra words: %q", s.Verdicts())
	}
}

func TestMatrixExitCode(t *testing.T) {
	zero, one, two := 0, 1, 2
	pass := RowStatus{Stage: RowStageDone, ExitCode: &zero, Semantic: "PASS", Perf: "PASS"}
	inconclusive := RowStatus{Stage: RowStageDone, ExitCode: &two, Semantic: "PASS", Perf: "INCONCLUSIVE"}
	failed := RowStatus{Stage: RowStageDone, ExitCode: &one, Semantic: "FAIL"}
	interrupted := RowStatus{Stage: RowStageInterrupted}
	unstable := RowStatus{Stage: RowStageDeterminism, Stability: map[Arm]string{Candidate: "UNSTABLE"}}
	for _, c := range []struct {
		rows []RowStatus
		want int
	}{
		{[]RowStatus{pass, pass}, 0},
		{[]RowStatus{pass, inconclusive}, 2},
		{[]RowStatus{inconclusive, failed}, 1},
		{[]RowStatus{pass, interrupted}, 2},
		{[]RowStatus{unstable, pass}, 1},
	} {
		if got := matrixExitCode(c.rows); got != c.want {
			t.Errorf("rows %+v: exit %d, want %d", c.rows, got, c.want)
		}
	}
}
