package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
)

func TestQuitAsksBeforeAbandoningRunningWork(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	f.running = true
	m := newTestModel(t, f, 100, 30)
	m, msgs := updateCmd(t, m, press("q"))
	m, msgs = updateCmd(t, m, msgs[0]) // the controller's answer: a stage is running
	if m.overlay != overlayConfirmQuit || len(msgs) != 0 {
		t.Fatalf("q while running should ask, got overlay %v msgs %v", m.overlay, msgs)
	}
	mustContain(t, screen(m), "A stage is running. Quit and stop its replay processes? y quit · n stay")
	m = update(t, m, press("n"))
	if m.overlay != overlayNone || hasCall(f.Calls(), "Close") {
		t.Fatal("n should keep the workbench and its children")
	}
	m, msgs = updateCmd(t, m, press("ctrl+c"))
	m = feed(t, m, msgs)
	m, msgs = updateCmd(t, m, press("y"))
	if !hasCall(f.Calls(), "Close") || len(msgs) != 1 {
		t.Fatalf("y should close the controller, calls %v msgs %v", f.Calls(), msgs)
	}
	if _, ok := msgs[0].(closedMsg); !ok {
		t.Fatalf("want closedMsg, got %T", msgs[0])
	}
	_, cmd := m.Update(msgs[0])
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("the program should quit once the controller closed")
	}
}

func TestQuitWhenIdleClosesAtOnce(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m, msgs := updateCmd(t, m, press("q"))
	if len(msgs) != 1 {
		t.Fatalf("q asks the controller whether a stage runs, got %v", msgs)
	}
	_, msgs = updateCmd(t, m, msgs[0])
	if !hasCall(f.Calls(), "Close") || len(msgs) != 1 {
		t.Fatalf("idle q should close without asking; calls %v", f.Calls())
	}
}

func TestQuitAsksWhileAStageEventSaysItRuns(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStarted{Stage: engine.StagePerf}}})
	m, msgs := updateCmd(t, m, press("q"))
	if m.overlay != overlayConfirmQuit || len(msgs) != 0 || hasCall(f.Calls(), "Close") {
		t.Fatalf("a started stage must make q ask at once (overlay %v, msgs %v)", m.overlay, msgs)
	}
}
