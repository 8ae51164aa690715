package engine

import (
	"kvparity/verdict"
	"slices"
	"testing"
)

// foldFixture is a journal with a re-pin, a stale mark, an added repetition, a retried
// repetition, an interrupted one, deleted reports, a block that a later run retried, and
// verdicts before and after the candidate's re-pin.
func foldFixture() []Record {
	pin := func(arm Arm, gen int, sha string) Record {
		return Record{Type: RecPinned, Arm: arm, Gen: gen, Artifact: &ArtifactInfo{Arm: arm, SHA256: sha, Revision: "r-" + sha, Path: "artifacts/" + sha}}
	}
	start := func(arm Arm, rep, gen, attempt int) Record {
		return Record{Type: RecRunStart, Run: RepetitionID(arm, rep, gen, attempt), Arm: arm, Kind: KindRepetition, Index: rep, Gen: gen, Attempt: attempt}
	}
	end := func(arm Arm, rep, gen, attempt int, digest string) Record {
		r := start(arm, rep, gen, attempt)
		r.Type, r.Digest = RecRunEnd, digest
		return r
	}
	recs := []Record{
		{Type: RecCampaign}, pin(Baseline, 1, "b1"), pin(Candidate, 1, "c1"),
		start(Baseline, 1, 1, 1), end(Baseline, 1, 1, 1, "d"),
		start(Baseline, 2, 1, 1), end(Baseline, 2, 1, 1, "d"),
		start(Candidate, 1, 1, 1), end(Candidate, 1, 1, 1, "d"),
		start(Candidate, 2, 1, 1), end(Candidate, 2, 1, 1, "d"),
		{Type: RecVerdict, Stage: StageDeterminism, Arm: Baseline, Verdict: "STABLE"},
		{Type: RecVerdict, Stage: StageDeterminism, Arm: Candidate, Verdict: "STABLE"},
		{Type: RecVerdict, Stage: StageParity, Verdict: "PASS"},
		{Type: RecReportsGone, Runs: []RunID{"det/baseline-1", "det/baseline-2"}},
		{Type: RecStale, Arm: Candidate, Gen: 1},
		pin(Candidate, 2, "c2"),
		start(Candidate, 1, 2, 1),                               // interrupted, then retried
		start(Candidate, 1, 2, 2), end(Candidate, 1, 2, 2, "e"), // the counted attempt
		{Type: RecBlocked, Stage: StagePerf, Reason: "noisy"},
		start(Candidate, 2, 2, 1), end(Candidate, 2, 2, 1, "e"),
		{Type: recAddRep, Arm: Baseline, Index: 3},
		{Type: RecBlocked, Stage: StageDeterminism, Reason: "disk"},
	}
	for i := range recs {
		recs[i].Seq = int64(i + 1)
	}
	return recs
}

func TestFoldJournalCurrentState(t *testing.T) {
	row := TinyRow("", "")
	row.Determinism.Perturbations = nil // the fixture has no perturbed repetitions (TestPerturbedVerdicts)
	h := FoldJournal(foldFixture(), row)

	if len(h.pins) != 3 || h.Gen(Baseline) != 1 || h.Gen(Candidate) != 2 {
		t.Fatalf("pins %d, gens %d/%d; want 3 pins, baseline gen 1, candidate gen 2", len(h.pins), h.Gen(Baseline), h.Gen(Candidate))
	}
	if h.Current[Candidate].Stale || h.Current[Candidate].SHA256 != "c2" {
		t.Errorf("candidate %+v: the re-pin must clear the stale mark of generation 1", h.Current[Candidate])
	}
	if h.Repetitions(Baseline) != 3 || h.Repetitions(Candidate) != 2 {
		t.Errorf("repetitions %d/%d, want 3 (one added) and 2", h.Repetitions(Baseline), h.Repetitions(Candidate))
	}
	if _, ok := h.Gone["det/baseline-2"]; !ok {
		t.Errorf("deleted reports %v miss det/baseline-2", h.Gone)
	}
	if !slices.Equal(h.blocked, []string{"determinism: disk"}) {
		t.Errorf("blocked %q: the perf block was retried by a later run, the disk block was not", h.blocked)
	}

	all, older := h.Attempts(Candidate)
	if older != 2 || len(all) != 3 {
		t.Fatalf("candidate attempts: %d on generation 2, %d older; want 3 and 2", len(all), older)
	}
	if all[0].Latest || all[0].End != nil || !all[1].Latest || all[1].End.Digest != "e" || !all[2].Latest {
		t.Errorf("attempt 1 of repetition 1 was interrupted and superseded by attempt 2: %+v", all)
	}
	res := h.ArmResult(Candidate)
	if res.Verdict != "STABLE" || !slices.Equal(res.Digests, []string{"e", "e"}) {
		t.Errorf("candidate result %+v, want STABLE over digests e, e", res)
	}
	if b := h.ArmResult(Baseline); b.Verdict.Decided() {
		t.Errorf("baseline result %+v: its added third repetition has not run, so it is undecided", b)
	}
	if v := h.Parity(); v.Verdict.Decided() {
		t.Errorf("parity %+v while the baseline is undecided", v)
	}
	if h.perfKey() != "b1-c2" || h.Perf().Started {
		t.Errorf("perf key %s started %v, want b1-c2 not started", h.perfKey(), h.Perf().Started)
	}
}

// Verdicts are derived from results, never read from verdict records: a perf result whose
// announcement was lost to a kill is decided all the same, and a stray verdict record judges
// nothing.
func TestFoldDerivesVerdictsFromResults(t *testing.T) {
	recs := foldFixture()
	n := int64(len(recs))
	res := &PerfResult{Key: "b1-c2", Verdict: verdict.Fail, Reason: "lower bound X(6) = 1.08 > 1.05"}
	recs = append(recs,
		Record{Seq: n + 1, Type: RecVerdict, Stage: StageParity, Verdict: verdict.PassWithSemanticExceptions, Reason: "stray"},
		Record{Seq: n + 2, Type: RecPerfResult, Data: MarshalData(PerfResultData{Key: "b1-c2", Result: res})})
	h := FoldJournal(recs, TinyRow("", ""))
	if p := h.Parity(); p.Verdict.Decided() {
		t.Errorf("parity %+v: the baseline is unfinished, a verdict record cannot decide it", p)
	}
	if p := h.Performance(); p.Verdict != verdict.Fail || p.Reason != res.Reason {
		t.Errorf("performance %+v, want the result record's FAIL without any verdict record", p)
	}
	// Incremental and whole folds agree record by record.
	inc := NewHistory(TinyRow("", ""))
	for _, r := range recs {
		inc.Add(r)
	}
	if inc.Performance() != h.Performance() || inc.Parity() != h.Parity() || inc.ArmResult(Candidate).Verdict != h.ArmResult(Candidate).Verdict {
		t.Error("the incremental fold disagrees with FoldJournal")
	}
}

// BenchmarkFoldJournal folds a long campaign's journal: 500 repetitions per arm (each with a
// start and an end) and a verdict after each, the shape AddRepetition-heavy sessions leave.
func BenchmarkFoldJournal(b *testing.B) {
	recs := foldFixture()
	for rep := 3; rep <= 500; rep++ {
		for _, arm := range []Arm{Baseline, Candidate} {
			gen := 1
			if arm == Candidate {
				gen = 2
			}
			id := RepetitionID(arm, rep, gen, 1)
			recs = append(recs,
				Record{Type: RecRunStart, Run: id, Arm: arm, Kind: KindRepetition, Index: rep, Gen: gen, Attempt: 1},
				Record{Type: RecRunEnd, Run: id, Arm: arm, Kind: KindRepetition, Index: rep, Gen: gen, Attempt: 1, Digest: "e"},
				Record{Type: RecVerdict, Stage: StageDeterminism, Arm: arm, Verdict: "STABLE"})
		}
	}
	for i := range recs {
		recs[i].Seq = int64(i + 1)
	}
	row := TinyRow("", "")
	row.Determinism.Repetitions = 500
	row.Determinism.Perturbations = nil // the journal has plain repetitions only
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		h := FoldJournal(recs, row)
		if r := h.ArmResult(Candidate); !r.Verdict.Decided() {
			b.Fatal("undecided")
		}
		_ = h.summary(dir, "")
	}
}
