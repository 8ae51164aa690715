package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/engine/profile"
	"kvparity/ui/determinism"
	"kvparity/verdict"
)

func TestStartDeterminismKeyCallsControllerAndPanesFill(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m, msgs := updateCmd(t, m, press("S"))
	if !hasCall(f.Calls(), "StartDeterminism") {
		t.Fatalf("S did not start the determinism stage; calls %v", f.Calls())
	}
	m = feed(t, m, msgs)
	m = update(t, m, eventsMsg{events: determinismScript(5000, 14)})

	reps := m.det.Repetitions()
	if len(reps) != 6 {
		t.Fatalf("want 6 lines (4 repetitions, 2 perturbed), got %d", len(reps))
	}
	for _, r := range reps {
		if r.State != determinism.Done || r.Digest != goodDigest {
			t.Errorf("%s: state %v digest %q", r.Run, r.State, r.Digest)
		}
	}
	if v := m.det.Verdict(engine.Baseline).Verdict; v != "STABLE" {
		t.Errorf("baseline verdict %q", v)
	}
	if v := m.det.Parity().Verdict; v != "PASS" {
		t.Errorf("parity verdict %q", v)
	}
	sel, _ := m.det.Selected()
	if sel.Run != "det/candidate-2" {
		t.Errorf("selection should follow the newest run, got %s", sel.Run)
	}
	if e := m.life.Evidence(sel.Run); e == nil || e.Requests != 5000 {
		t.Fatalf("lifecycle evidence for %s missing", sel.Run)
	}
	if n := len(m.press.Records(sel.Run)); n != 14 {
		t.Errorf("want 14 pressure records, got %d", n)
	}
	s := screen(m)
	for _, want := range []string{"base STABLE · cand STABLE · parity PASS", "cand#2", "dd6938", "LIFECYCLE (cand#2)",
		"PRESSURE (cand#2) +8 more (z zooms)", "all 6 validity rules passed"} {
		mustContain(t, s, want)
	}
}

func TestRunningRepetitionShowsProgressAndElapsed(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m = update(t, m, eventsMsg{events: []engine.Event{
		engine.RunStarted{Run: "det/candidate-2", Arm: engine.Candidate, Kind: engine.KindRepetition, Repetition: 2, At: t0},
		engine.RunProgress{Run: "det/candidate-2", VirtualTimeMs: 812_000, Completed: 3100, Total: 5000, Elapsed: time.Second},
	}})
	// fixedClock is t0+90s: the elapsed time is measured against it, not the progress message.
	mustContain(t, screen(m), "cand#2  ⟳  62% vt 812 s 3100/5000 1m30s")
}

func TestSelectionMovesLifecycleAndPressure(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m = update(t, m, eventsMsg{events: determinismScript(5000, 14)})
	m = update(t, m, press("k"))
	m = update(t, m, press("up"))
	sel, _ := m.det.Selected()
	if sel.Run != "det/baseline-2" {
		t.Fatalf("two ups from cand#2 should select base#2, got %s", sel.Run)
	}
	mustContain(t, screen(m), "LIFECYCLE (base#2)")
	mustContain(t, screen(m), "PRESSURE (base#2)")
	// Later runs no longer steal a selection the user made.
	m = update(t, m, eventsMsg{events: []engine.Event{engine.RunStarted{Run: "det/candidate-3", Arm: engine.Candidate,
		Kind: engine.KindRepetition, Repetition: 3, At: t0}}})
	if sel, _ := m.det.Selected(); sel.Run != "det/baseline-2" {
		t.Fatalf("selection moved to %s after a new run", sel.Run)
	}
}

func TestKeysDriveTheController(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m = update(t, m, eventsMsg{events: determinismScript(5000, 14)})
	m = update(t, m, press("k")) // cand#1
	for _, k := range []string{"r", "+", "p", "x", "w"} {
		var msgs []tea.Msg
		m, msgs = updateCmd(t, m, press(k))
		m = feed(t, m, msgs)
	}
	for _, want := range []string{"RerunRepetition det/candidate-1", "AddRepetition candidate", "StartPerf",
		"StopStage", "SetWatch true"} {
		if !hasCall(f.Calls(), want) {
			t.Errorf("missing call %q in %v", want, f.Calls())
		}
	}
	mustContain(t, screen(m), "● watching")
}

func TestSaveReport(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m, _ = updateCmd(t, m, press("s"))
	mustContain(t, screen(m), "report writer not available")

	var got string
	m = New(Options{Controller: f, Clock: fixedClock, SaveReport: func(dir string) error { got = dir; return nil }})
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m, msgs := updateCmd(t, m, press("s"))
	m = feed(t, m, msgs)
	if got != f.Dir() {
		t.Fatalf("writer called with %q, want %q", got, f.Dir())
	}
	mustContain(t, screen(m), "report written: "+f.Dir()+"/report.md · o opens it")
}

func TestHelpOverlayListsEveryBinding(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m = update(t, m, press("?"))
	s := screen(m)
	for _, b := range m.keys.FullHelp() {
		for _, k := range b {
			mustContain(t, s, k.Help().Desc)
		}
	}
	m = update(t, m, press("S")) // swallowed while help is open
	if hasCall(f.Calls(), "StartDeterminism") {
		t.Fatal("keys must not leak through the help overlay")
	}
	m = update(t, m, press("esc"))
	if m.overlay != overlayNone {
		t.Fatal("esc should close help")
	}
}

func TestTabCyclesFocusAndKeysGoToTheFocusedPane(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m = update(t, m, eventsMsg{events: determinismScript(5000, 14)})
	m = update(t, m, press("tab"))
	m = update(t, m, press("tab"))
	if m.focus != focusPressure || !m.press.Focused() || m.det.Focused() {
		t.Fatalf("two tabs should focus the pressure pane, focus %v", m.focus)
	}
	before, _ := m.det.Selected()
	m = update(t, m, press("j"))
	if after, _ := m.det.Selected(); after.Run != before.Run {
		t.Fatal("j in the pressure pane must not move the run selection")
	}
	m = update(t, m, press("shift+tab"))
	if m.focus != focusLifecycle {
		t.Fatalf("shift+tab should go back, focus %v", m.focus)
	}
}

func TestPumpCoalescesWaitingEvents(t *testing.T) {
	ch := make(chan engine.Event, 10)
	for i := 0; i < 5; i++ {
		ch <- engine.LogLine{Run: "det/baseline-1", Line: "x"}
	}
	msg := waitForEvents(ch)().(eventsMsg)
	if len(msg.events) != 5 || msg.closed {
		t.Fatalf("want one batch of 5, got %d (closed %v)", len(msg.events), msg.closed)
	}
	ch <- engine.LogLine{}
	close(ch)
	msg = waitForEvents(ch)().(eventsMsg)
	if len(msg.events) != 1 || !msg.closed {
		t.Fatalf("want the last event and closed, got %d (closed %v)", len(msg.events), msg.closed)
	}
}

func TestEngineClosingStopsThePump(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m, msgs := updateCmd(t, m, eventsMsg{closed: true})
	if !m.engineDone || len(msgs) != 0 {
		t.Fatalf("a closed channel must not be pumped again (msgs %v)", msgs)
	}
}

// P profiles both arms only once equivalent semantic work is established: refused (with the
// protocol's reason) while the semantic verdict is not a pass, started when it is; the finished
// investigation's top delta reaches the status line and the log.
func TestInvestigateKeyNeedsEquivalentWork(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m.header.SetVerdicts(&verdict.Verdicts{Semantic: verdict.Of(verdict.Fail, "canonical reports differ")}, nil)
	m, msgs := updateCmd(t, m, press("P"))
	m = feed(t, m, msgs)
	if hasCall(f.Calls(), "StartInvestigation") || !strings.Contains(screen(m), "not profiled: the semantic verdict is FAIL") {
		t.Fatalf("P with a semantic FAIL: calls %v\n%s", f.Calls(), screen(m))
	}
	m.header.SetVerdicts(&verdict.Verdicts{Semantic: verdict.Of(verdict.Pass, "byte-identical")}, nil)
	m, msgs = updateCmd(t, m, press("P"))
	m = feed(t, m, msgs)
	if !hasCall(f.Calls(), "StartInvestigation") {
		t.Fatalf("P with a semantic PASS did not start the investigation: calls %v", f.Calls())
	}
	inv := &engine.Investigation{Differential: profile.Differential{Functions: []profile.FunctionDelta{
		{Function: "kvparity/mocker.(*sim).slowdown", Candidate: 0.18, Delta: 0.18, OnlyCandidate: true}}}}
	m = update(t, m, eventsMsg{events: []engine.Event{engine.InvestigationDone{Investigation: inv}}})
	mustContain(t, screen(m), "the largest self-time growth is kvparity/mocker.(*sim).slowdown (+18.00%)")
}
