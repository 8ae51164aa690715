package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
)

// Issue 40, item 5: 80×24 and habits.

// g, gg and G move; they never start a stage, in any pane (vim's and lazygit's habits).
func TestNavigationKeysNeverStartAStage(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 80, 24)
	m = update(t, m, eventsMsg{events: determinismScript(5000, 14)})
	for id := range m.ring {
		m.setFocus(paneID(id))
		m.layout()
		for _, k := range []string{"g", "g", "G", "g"} {
			m, _ = updateCmd(t, m, press(k))
		}
	}
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, "Start") || strings.HasPrefix(c, "Rerun") || strings.HasPrefix(c, "AddRepetition") {
			t.Fatalf("a navigation key called %s (calls %v)", c, f.Calls())
		}
	}
	m.setFocus(focusDeterminism)
	m = update(t, m, press("g"))
	if sel, _ := m.det.Selected(); sel.Run != "det/baseline-1" {
		t.Fatalf("g goes to the first repetition, selected %s", sel.Run)
	}
	m = update(t, m, press("G"))
	if sel, _ := m.det.Selected(); sel.Run == "det/baseline-1" {
		t.Fatal("G goes to the last repetition")
	}
	m, _ = updateCmd(t, m, press("S"))
	if !hasCall(f.Calls(), "StartDeterminism") {
		t.Fatalf("S starts the determinism stage (calls %v)", f.Calls())
	}
}

// x on a running stage asks; n keeps it running, y stops it. With none running it stops
// nothing it knows of and says so.
func TestStopStageAsksFirst(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 80, 24)
	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStarted{Stage: engine.StageDeterminism}}})
	m, _ = updateCmd(t, m, press("x"))
	if hasCall(f.Calls(), "StopStage") || m.overlay != overlayConfirmStop {
		t.Fatalf("x must ask before stopping (overlay %v, calls %v)", m.overlay, f.Calls())
	}
	mustContain(t, screen(m), "stop the determinism stage? y/n")
	m, _ = updateCmd(t, m, press("n"))
	if hasCall(f.Calls(), "StopStage") || m.overlay != overlayNone {
		t.Fatal("n keeps the stage running")
	}
	mustContain(t, screen(m), "determinism stage keeps running")
	m, _ = updateCmd(t, m, press("x"))
	m, _ = updateCmd(t, m, press("y"))
	if !hasCall(f.Calls(), "StopStage") || !m.stopping {
		t.Fatalf("y stops the stage (calls %v)", f.Calls())
	}
	// The stage ends while the question is open: the question goes.
	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStarted{Stage: engine.StagePerf}}})
	m = update(t, m, press("x"))
	mustContain(t, screen(m), "stop the performance stage? y/n")
	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStopped{Stage: engine.StagePerf}}})
	if m.overlay != overlayNone {
		t.Fatal("a stage that ended leaves nothing to confirm")
	}
}

// The ? and v overlays scroll at 80×24: the last line of the help is reached with the keys,
// and "esc closes" is on screen whatever the scroll.
func TestOverlaysScrollAt80x24(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 80, 24)
	m = update(t, m, eventsMsg{events: determinismScript(5000, 14)})
	m.setFocus(focusDiff)
	m.layout()
	m = update(t, m, press("?"))
	s := screen(m)
	mustContain(t, s, "esc closes this help")
	mustContain(t, s, "lines 1–")
	if strings.Contains(s, "mouse: the wheel") {
		t.Fatalf("the help's end should not fit at 80×24 with the diff pane focused:\n%s", s)
	}
	for range 3 {
		m = update(t, m, press("down"))
	}
	mustContain(t, screen(m), "lines 4–")
	m = update(t, m, press("G"))
	s = screen(m)
	for _, want := range []string{"mouse: the wheel", "(end)", "esc closes this help", "v verdicts & reasons"} {
		mustContain(t, s, want)
	}
	m = update(t, m, press("g"))
	mustContain(t, screen(m), "lines 1–")
	if hasCall(f.Calls(), "StartDeterminism") {
		t.Fatal("keys must not leak through the help overlay")
	}
	m = update(t, m, press("esc"))
	if m.overlay != overlayNone {
		t.Fatal("esc closes the help")
	}
	m = update(t, m, press("v"))
	mustContain(t, screen(m), "esc closes")
	m = update(t, m, press("G"))
	mustContain(t, screen(m), "campaign folder "+f.Dir())
	m = update(t, m, press("esc"))
	if m.overlay != overlayNone {
		t.Fatal("esc closes the verdicts")
	}
}

// After a stage ends the footer says what comes next, until a key is pressed.
func TestFooterSaysWhatIsNextAfterAStage(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 80, 24)
	m = update(t, m, eventsMsg{events: determinismScript(5000, 14)})
	mustContain(t, screen(m), "determinism done: p runs the performance stage, d shows the diff")
	m = update(t, m, press("tab"))
	if strings.Contains(screen(m), "determinism done") {
		t.Fatal("the hint goes once a key is pressed")
	}
	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStarted{Stage: engine.StageDeterminism}}})
	m = update(t, m, press("x"))
	m, _ = updateCmd(t, m, press("y"))
	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStopped{Stage: engine.StageDeterminism, Cancelled: true}}})
	mustContain(t, screen(m), "determinism stage stopped: S resumes it")
}

// The first screen says what kvparity does and where the campaign folder is.
func TestFirstScreenSaysWhatAndWhere(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := New(Options{Controller: f, Clock: fixedClock, Intro: []string{"kvparity checks a change", "campaign folder " + f.Dir()}})
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	s := screen(m)
	for _, want := range []string{"kvparity checks a change", "campaign folder " + f.Dir(), "press S to start the determinism stage"} {
		mustContain(t, s, want)
	}
}
