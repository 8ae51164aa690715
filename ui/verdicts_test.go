package ui

import (
	"testing"

	"kvparity/engine"
	"kvparity/verdict"
)

// The header shows the campaign's verdicts as Assess gives them (the report's words), is
// reassessed when a stage ends, and v opens every verdict's reason.
func TestHeaderShowsTheAssessedVerdictsAndVOpensTheReasons(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 110, 34)
	fail := verdict.Decide(verdict.Inputs{
		Baseline: verdict.Of(verdict.Stable, "one digest"), Candidate: verdict.Of(verdict.Stable, "one digest"),
		Parity: verdict.Of(verdict.Pass, "identical"), Evidence: verdict.Of(verdict.Fail, "candidate pressure band: 23 preemptions, band 10–20"),
		Performance: verdict.Of(verdict.Pass, "upper bound 1.01 ≤ 1.05"), Footprint: verdict.Of(verdict.Pass, "within 5%")})
	// A stage's end asks for a new assessment; its answer reaches the header.
	m, msgs := updateCmd(t, m, eventsMsg{events: []engine.Event{engine.StageStopped{Stage: engine.StageDeterminism}}})
	asked := false
	for _, msg := range msgs {
		if _, ok := msg.(verdictsMsg); ok {
			asked = true
		}
	}
	if !asked {
		t.Fatal("the end of a stage did not reassess the campaign")
	}
	m = update(t, m, verdictsMsg{n: m.assessN, v: fail})
	s := screen(m)
	mustContain(t, s, "semantic FAIL · perf PASS · overall FAIL (v why)")
	// An older assessment arriving late does not overwrite the newer one.
	m = update(t, m, verdictsMsg{n: m.assessN - 1, v: verdict.Verdicts{}})
	mustContain(t, screen(m), "overall FAIL")

	m = update(t, m, press("v"))
	s = screen(m)
	mustContain(t, s, "VERDICTS (the campaign report's words; esc closes)")
	mustContain(t, s, "overall            FAIL")
	mustContain(t, s, "semantic: canonical reports are byte-identical, but missing")
	mustContain(t, s, "exit status 1")
	m = update(t, m, press("esc"))
	if m.overlay != overlayNone {
		t.Fatal("esc did not close the verdicts overlay")
	}
}

// At 80 columns the verdict words are never cut: detail on the left goes first.
func TestHeaderKeepsVerdictWordsWhole(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	for _, w := range []int{80, 60, 40} {
		m := newTestModel(t, f, w, 24)
		v := verdict.Decide(verdict.Inputs{Baseline: verdict.Of(verdict.Stable, ""), Candidate: verdict.Of(verdict.Stable, ""),
			Parity: verdict.Of(verdict.Fail, "differ"), Evidence: verdict.Of(verdict.Pass, ""),
			Exceptions: &verdict.Exceptions{Records: 2, Differing: 40}})
		m = update(t, m, verdictsMsg{n: m.assessN, v: v})
		mustContain(t, screen(m), "overall UNDECIDED")
		if w >= 80 {
			mustContain(t, screen(m), "semantic PASS_WITH_SEMANTIC_EXCEPTIONS")
		}
	}
}
