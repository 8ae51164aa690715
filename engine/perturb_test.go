package engine

import (
	"strings"
	"testing"

	"path/filepath"

	"kvparity/engine/run"
	"kvparity/verdict"
)

// A leak that only one variation reveals is found by the perturbed repetition and named by
// trying each variation alone: the candidate is UNSTABLE with a finding naming exactly that
// variation, the baseline STABLE, and every variation is applied for real (each fake leak reads
// the process's own environment, umask, working directory, CPU set or personality).
func TestPerturbedRepetitionsNameTheVariation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs eight campaigns of fake replays")
	}
	cases := []struct{ variant, want string }{
		{"leak-tz", "differs only with tz: depends on the time zone"},
		{"leak-umask", "differs only with umask: depends on the umask"},
		{"leak-cwd", "differs only with cwd: depends on the working directory"},
		{"leak-locale", "differs only with locale: depends on the locale"},
		{"leak-env-order", "differs only with env-order: depends on the environment's order"},
		{"leak-threads", "differs only with threads: thread-order dependent"},
		{"leak-all-cores", "differs only with all-cores: thread-order dependent"},
	}
	if aslrOn() {
		cases = append(cases, struct{ variant, want string }{"leak-aslr", "differs only with aslr: depends on the address-space layout"})
	}
	for _, tc := range cases {
		t.Run(tc.variant, func(t *testing.T) {
			s, evs := runDeterminism(t, tinyTestRow("", tc.variant), filepath.Join(t.TempDir(), "c"))
			b, c := s.Arms[Baseline], s.Arms[Candidate]
			if b.Verdict != verdict.Stable || c.Verdict != verdict.Unstable {
				t.Fatalf("baseline %s (%s), candidate %s (%s); want STABLE and UNSTABLE", b.Verdict, b.Reason, c.Verdict, c.Reason)
			}
			if !strings.HasPrefix(c.Finding, tc.want) || !strings.Contains(c.Reason, tc.want) {
				t.Fatalf("finding %q (reason %q), want %q", c.Finding, c.Reason, tc.want)
			}
			if len(c.Perturbed) < 2 || c.Perturbed[0].Variation != SetVariation || !c.Perturbed[0].Differs {
				t.Fatalf("perturbed runs %+v: the whole set must come first and differ", c.Perturbed)
			}
			// The plain repetitions kept one digest: only the variation found the leak.
			if d := c.Runs; d[0].Digest != d[1].Digest {
				t.Fatalf("plain repetitions differ: %+v", d)
			}
			for _, st := range eventsOf[RunStarted](evs) {
				if st.Kind == KindPerturbed && st.Variation == "" {
					t.Fatalf("%s started without its variation", st.Run)
				}
			}
			if b.Preflight == nil || !b.Preflight.SingleCore || c.Preflight == nil {
				t.Fatalf("preflight %+v / %+v, want both recorded, the fake single-core", b.Preflight, c.Preflight)
			}
		})
	}
}

// A replay that keeps several threads busy is measured as multi-core by the preflight, and
// both arms' plain repetitions then get CPU sets of the measured size, identically.
func TestPreflightGivesMultiCoreReplaysTheirCPUs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a campaign of fake replays")
	}
	if len(run.AllowedCPUs()) < 2 {
		t.Skip("needs two CPUs")
	}
	s, _ := runDeterminism(t, tinyTestRow("multi-thread", "multi-thread"), filepath.Join(t.TempDir(), "c"))
	for _, arm := range []Arm{Baseline, Candidate} {
		a := s.Arms[arm]
		if a.Preflight == nil || a.Preflight.SingleCore || a.Preflight.CPUsPerRun < 2 || a.Preflight.BusyThreads < 2 {
			t.Fatalf("%s preflight %+v, want multi-core with at least 2 CPUs per run", arm, a.Preflight)
		}
		// In words ("uses more than one core"): campaignreport's TestPreflightText.
		for _, r := range a.Runs {
			if len(r.CPUs) != a.Preflight.CPUsPerRun {
				t.Errorf("%s ran on %v, want %d CPUs", r.Run, r.CPUs, a.Preflight.CPUsPerRun)
			}
		}
		if a.Verdict != verdict.Stable {
			t.Errorf("%s %s: %s", arm, a.Verdict, a.Reason)
		}
	}
}

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
