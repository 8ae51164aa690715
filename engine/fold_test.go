package engine

import (
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
		return Record{Type: RecRunStart, Run: repetitionID(arm, rep, gen, attempt), Arm: arm, Kind: KindRepetition, Index: rep, Gen: gen, Attempt: attempt}
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
		{Type: RecAddRep, Arm: Baseline, Index: 3},
		{Type: RecBlocked, Stage: StageDeterminism, Reason: "disk"},
	}
	for i := range recs {
		recs[i].Seq = int64(i + 1)
	}
	return recs
}

func TestFoldJournalCurrentState(t *testing.T) {
	row := TinyRow("", "")
	h := FoldJournal(foldFixture(), row)

	if len(h.Pins) != 3 || h.Gen(Baseline) != 1 || h.Gen(Candidate) != 2 {
		t.Fatalf("pins %d, gens %d/%d; want 3 pins, baseline gen 1, candidate gen 2", len(h.Pins), h.Gen(Baseline), h.Gen(Candidate))
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
	if !slices.Equal(h.Blocked, []string{"determinism: disk"}) {
		t.Errorf("blocked %q: the perf block was retried by a later run, the disk block was not", h.Blocked)
	}
	// Verdicts recorded before the candidate's re-pin do not judge its generation 2.
	if _, ok := h.Verdict(StageDeterminism, Candidate); ok {
		t.Error("the candidate's generation-1 STABLE verdict is reported for generation 2")
	}
	if _, ok := h.Verdict(StageParity, ""); ok {
		t.Error("the parity verdict over candidate generation 1 is reported for generation 2")
	}
	if v, ok := h.Verdict(StageDeterminism, Baseline); !ok || v.Verdict != "STABLE" {
		t.Errorf("baseline verdict %+v: the baseline was not re-pinned, its verdict stands", v)
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
	if b := h.ArmResult(Baseline); b.Verdict != "" {
		t.Errorf("baseline result %+v: its added third repetition has not run, so it is undecided", b)
	}
	if v, _ := h.Parity(); v != "" {
		t.Errorf("parity %q while the baseline is undecided", v)
	}
	if h.PerfKey() != "b1-c2" || h.Perf().Started {
		t.Errorf("perf key %s started %v, want b1-c2 not started", h.PerfKey(), h.Perf().Started)
	}
}

// The exception workflow's verdict upgrades a byte FAIL in the summary, and only on the
// artifacts it was recorded for.
func TestFoldJournalSemanticExceptions(t *testing.T) {
	recs := foldFixture()
	n := int64(len(recs))
	recs = append(recs,
		Record{Seq: n + 1, Type: RecVerdict, Stage: StageParity, Verdict: "FAIL"},
		Record{Seq: n + 2, Type: RecVerdict, Stage: StageParity, Verdict: "PASS_WITH_SEMANTIC_EXCEPTIONS", Reason: "covered"})
	h := FoldJournal(recs, TinyRow("", ""))
	if v, ok := h.Verdict(StageParity, ""); !ok || v.Verdict != "FAIL" {
		t.Errorf("byte parity %+v, want the recorded FAIL (exceptions never change byte parity)", v)
	}
	if x, ok := h.SemanticExceptions(); !ok || x.Reason != "covered" {
		t.Errorf("semantic exceptions %+v, want the recorded record", x)
	}
	recs = append(recs, Record{Seq: n + 3, Type: RecPinned, Arm: Baseline, Gen: 2, Artifact: &ArtifactInfo{SHA256: "b2"}})
	if _, ok := FoldJournal(recs, TinyRow("", "")).SemanticExceptions(); ok {
		t.Error("exceptions recorded over baseline generation 1 still count after it was re-pinned")
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
			id := repetitionID(arm, rep, gen, 1)
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
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		h := FoldJournal(recs, row)
		if r := h.ArmResult(Candidate); r.Verdict == "" {
			b.Fatal("undecided")
		}
		_ = h.Summary(dir, "")
	}
}
