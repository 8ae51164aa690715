package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/determinism"
	"kvparity/ui/diffpane"
)

func TestDiffKeyPicksTheComparison(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m = update(t, m, eventsMsg{events: determinismScript(5000, 14)})
	m = update(t, m, press("d"))
	if m.focus == focusDiff {
		t.Fatal("equal digests need no diff pane")
	}
	// cand#2 matched cand#1, whose report is the one kept: that is what is compared.
	mustContain(t, screen(m), "diff: base#1 and cand#1 have the same digest dd69381f4b0a")

	// A candidate that differs opens the diff pane on baseline vs candidate.
	m = update(t, m, eventsMsg{events: []engine.Event{engine.DigestReady{Run: "det/candidate-2", Arm: engine.Candidate,
		Repetition: 2, Digest: "ffff", ReportPath: "/r/c2.json"}}})
	var msgs []tea.Msg
	m, msgs = updateCmd(t, m, press("d"))
	if m.focus != focusDiff || m.diff.a.Label != "cand#1" || m.diff.b.Label != "cand#2" {
		t.Fatalf("an unstable repetition compares against its arm's first: focus %v, %v vs %v", m.focus, m.diff.a, m.diff.b)
	}
	if len(msgs) != 1 {
		t.Fatalf("d should ask the diff pane to load, got %v", msgs)
	}
	// While the diff pane has focus, the global keys keep their meaning: x is stop stage.
	m, _ = updateCmd(t, m, press("x"))
	if !hasCall(f.Calls(), "StopStage") || m.focus != focusDiff {
		t.Fatalf("x stops the stage whatever has focus; calls %v", f.Calls())
	}
	mustContain(t, screen(m), "no stage is running")
	m = update(t, m, press("tab"))
	if m.focus != focusDeterminism {
		t.Fatal("tab still moves focus out of the diff pane")
	}
}

func TestDiffPair(t *testing.T) {
	rep := func(arm engine.Arm, i int, digest string) determinism.Repetition {
		return determinism.Repetition{Run: engine.RunID(determinism.Label(arm, i)), Arm: arm, Index: i, Digest: digest,
			ReportPath: "/r/" + determinism.Label(arm, i)}
	}
	reps := []determinism.Repetition{rep(engine.Baseline, 1, "aa"), rep(engine.Baseline, 2, "aa"),
		rep(engine.Candidate, 1, "aa"), rep(engine.Candidate, 2, "bb")}
	check := func(sel determinism.Repetition, wantA, wantB string) {
		t.Helper()
		a, b, _, err := diffPair(reps, sel)
		if err != nil {
			t.Fatal(err)
		}
		if a.Label != wantA || b.Label != wantB {
			t.Fatalf("%s: got %s vs %s, want %s vs %s", sel.Run, a.Label, b.Label, wantA, wantB)
		}
	}
	check(reps[3], "cand#1", "cand#2") // unstable: against its own arm's first repetition, first on the left
	check(reps[1], "base#1", "cand#1") // stable: against the other arm (base#2's report matched base#1's and is gone)
	check(reps[0], "base#1", "cand#1")
	check(reps[2], "base#1", "cand#1") // baseline stays on the left
	if _, _, same, _ := diffPair(reps, reps[1]); !same {
		t.Fatal("base#2 and cand#1 share a digest")
	}
	if _, _, _, err := diffPair(reps, rep(engine.Candidate, 3, "")); err == nil {
		t.Fatal("a run without a digest has nothing to diff")
	}
}

func TestDisagreementFocusesTheDiff(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	evs := determinismScript(5000, 14)
	// The candidate's repetitions digest differently from the baseline's: parity FAIL.
	for i, ev := range evs {
		if d, ok := ev.(engine.DigestReady); ok && d.Arm == engine.Candidate {
			d.Digest = "c0ffee"
			evs[i] = d
		}
		if v, ok := ev.(engine.StageVerdict); ok && v.Stage == engine.StageParity {
			v.Verdict, v.Reason = "FAIL", "canonical reports differ"
			evs[i] = v
		}
	}
	m, msgs := updateCmd(t, m, eventsMsg{events: evs})
	if m.focus != focusDiff || m.diff.a.Label != "base#1" || m.diff.b.Label != "cand#1" {
		t.Fatalf("parity FAIL should focus the diff on base#1 vs cand#1: focus %v, %v vs %v", m.focus, m.diff.a, m.diff.b)
	}
	found := false
	for _, msg := range msgs {
		if _, ok := msg.(diffpane.OpenRequestedMsg); ok {
			found = true
		}
	}
	if !found {
		t.Fatalf("the diff pane should be asked to load the reports, got %v", msgs)
	}
	mustContain(t, screen(m), "parity: FAIL (canonical reports differ)")
}

func TestUnstableArmFocusesTheDiffOnItsRepetitions(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m, _ = updateCmd(t, m, eventsMsg{events: unstableScript("det/candidate-2", "2 digests over 2 repetitions")})
	if m.focus != focusDiff || m.diff.a.Label != "cand#1" || m.diff.b.Label != "cand#2" {
		t.Fatalf("an UNSTABLE arm should focus the diff on its repetitions: focus %v, %v vs %v", m.focus, m.diff.a, m.diff.b)
	}
	s := screen(m)
	mustContain(t, s, "determinism candidate: UNSTABLE (2 digests over 2 repetitions)")
	mustContain(t, s, "c0ffee ≠cand#1")
}

// An arm whose plain repetitions agree but whose perturbed repetition gives a second digest is
// UNSTABLE, and the diff opens on its plain report against the perturbed one.
func TestPerturbedUnstableFocusesTheDiffOnThePerturbedRun(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m, _ = updateCmd(t, m, eventsMsg{events: unstableScript("det/candidate-perturbed",
		"the perturbed repetition gave c0ffee: differs only with all-cores: thread-order dependent")})
	if m.focus != focusDiff || m.diff.a.Label != "cand#1" || m.diff.b.Label != "cand~all" {
		t.Fatalf("the diff should open on cand#1 vs cand~all: focus %v, %v vs %v", m.focus, m.diff.a, m.diff.b)
	}
	mustContain(t, screen(m), "thread-order dependent")
}

// unstableScript is the determinism script with run's digest changed to c0ffee and the
// candidate's verdict UNSTABLE for reason.
func unstableScript(run engine.RunID, reason string) []engine.Event {
	evs := determinismScript(5000, 14)
	for i, ev := range evs {
		if d, ok := ev.(engine.DigestReady); ok && d.Run == run {
			d.Digest = "c0ffee"
			evs[i] = d
		}
		if v, ok := ev.(engine.StageVerdict); ok && v.Stage == engine.StageDeterminism && v.Arm == engine.Candidate {
			v.Verdict, v.Reason = "UNSTABLE", reason
			evs[i] = v
		}
	}
	return evs
}
