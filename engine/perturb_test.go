package engine

import (
	"strings"
	"testing"

	"kvparity/verdict"
)

// The fold's perturbed verdicts: pending until the whole set ran, STABLE when it agrees,
// BLOCKED when it failed, UNSTABLE naming the variations that reproduce it alone.
func TestPerturbedVerdicts(t *testing.T) {
	row := TinyRow("", "")
	row.Determinism.Perturbations = []Variation{varyAllCores, varyTZ}
	plain := []Record{
		{Type: RecRunEnd, Run: "det/candidate-1", Arm: Candidate, Kind: KindRepetition, Index: 1, Attempt: 1, Digest: "d"},
		{Type: RecRunEnd, Run: "det/candidate-2", Arm: Candidate, Kind: KindRepetition, Index: 2, Attempt: 1, Digest: "d"},
	}
	pert := func(variation string, try int, digest, err string) []Record {
		id := PerturbedID(Candidate, variation, try, 1, 1)
		base := Record{Run: id, Arm: Candidate, Kind: KindPerturbed, Index: try, Attempt: 1, Variation: variation}
		start, end := base, base
		start.Type, end.Type, end.Digest, end.Error = RecRunStart, RecRunEnd, digest, err
		return []Record{start, end}
	}
	fold := func(extra ...[]Record) ArmResult {
		recs := append([]Record{}, plain...)
		for _, e := range extra {
			recs = append(recs, e...)
		}
		return FoldJournal(recs, row).ArmResult(Candidate)
	}
	if r := fold(); r.Verdict != verdict.Undecided || !strings.Contains(r.Reason, "has not run") {
		t.Errorf("no perturbed run: %s %q", r.Verdict, r.Reason)
	}
	if r := fold(pert("set", 1, "d", "")); r.Verdict != verdict.Stable || !strings.Contains(r.Reason, "perturbed repetition (all-cores, tz)") {
		t.Errorf("agreeing set: %s %q", r.Verdict, r.Reason)
	}
	if r := fold(pert("set", 1, "", "exited with status 3")); r.Verdict != verdict.Blocked {
		t.Errorf("failed set: %s %q", r.Verdict, r.Reason)
	}
	r := fold(pert("set", 1, "x", ""))
	if r.Verdict != verdict.Unstable || !strings.Contains(r.Finding, "being tried alone") {
		t.Errorf("differing set, nothing tried alone: %s %q", r.Verdict, r.Finding)
	}
	r = fold(pert("set", 1, "x", ""), pert("all-cores", 1, "d", ""), pert("all-cores", 2, "x", ""), pert("tz", 1, "d", ""))
	if r.Verdict != verdict.Unstable || r.Finding != "differs only with all-cores: thread-order dependent" {
		t.Errorf("all-cores reproduces: %s %q", r.Verdict, r.Finding)
	}
	r = fold(pert("set", 1, "x", ""), pert("all-cores", 1, "d", ""), pert("all-cores", 2, "d", ""), pert("all-cores", 3, "d", ""), pert("tz", 1, "d", ""))
	if !strings.Contains(r.Finding, "none of all-cores, tz reproduced it alone") {
		t.Errorf("nothing reproduces: %q", r.Finding)
	}
}
