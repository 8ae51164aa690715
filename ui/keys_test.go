package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/diffpane"
	"kvparity/verdict"
)

// The stage keys mean the same thing whatever has focus: S, + and x pressed in the diff pane
// start determinism, add a repetition and stop the stage.
func TestGlobalKeysKeepTheirMeaningInTheDiffPane(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 110, 34)
	m = update(t, m, eventsMsg{events: determinismScript(5000, 14)})
	m.setFocus(focusDiff)
	m.layout()
	for _, k := range []string{"S", "+", "x", "p"} {
		m, _ = updateCmd(t, m, press(k))
		m.overlay = overlayNone
	}
	for _, want := range []string{"StartDeterminism", "AddRepetition candidate", "StopStage", "StartPerf"} {
		if !hasCall(f.Calls(), want) {
			t.Errorf("%s not called from the diff pane; calls %v", want, f.Calls())
		}
	}
	if m.focus != focusDiff {
		t.Fatal("the stage keys do not move focus")
	}
}

func TestAddRepetitionIsRefusedOnAnUnstableArm(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 110, 34)
	evs := determinismScript(5000, 14)
	for i, ev := range evs {
		if v, ok := ev.(engine.StageVerdict); ok && v.Stage == engine.StageDeterminism && v.Arm == engine.Candidate {
			v.Verdict, v.Reason = "UNSTABLE", "2 digests over 2 repetitions"
			evs[i] = v
		}
	}
	m = update(t, m, eventsMsg{events: evs})
	m.setFocus(focusDeterminism)
	m, _ = updateCmd(t, m, press("+"))
	if hasCall(f.Calls(), "AddRepetition candidate") {
		t.Fatal("+ must not add a repetition to an UNSTABLE arm")
	}
	mustContain(t, strings.Join(strings.Fields(screen(m)), " "), "add repetition refused: candidate is UNSTABLE · never add repetitions to average an entropy leak away")
	mustContain(t, m.logText(), "never add repetitions to average an entropy leak away")
	// The stable arm still takes one.
	m = update(t, m, press("home"))
	m, _ = updateCmd(t, m, press("+"))
	if !hasCall(f.Calls(), "AddRepetition baseline") {
		t.Fatalf("the STABLE baseline should take a repetition; calls %v", f.Calls())
	}
}

func TestStatusShowsTheNewestMessageAndEscClearsIt(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 120, 30)
	statusOf := func(m Model) string { return strings.Split(screen(m), "\n")[3] }
	m = update(t, m, eventsMsg{events: []engine.Event{engine.RunFinished{Run: "det/baseline-1", Err: errors.New("boom")}}})
	if !strings.Contains(statusOf(m), "replay error in det/baseline-1: boom") {
		t.Fatalf("status %q", statusOf(m))
	}
	// A newer message replaces an older problem (which stays in the log).
	m = update(t, m, press("x"))
	if s := statusOf(m); !strings.Contains(s, "no stage is running") || strings.Contains(s, "boom") {
		t.Fatalf("the newest message should show: %q", s)
	}
	// A pane's outcome reaches the status line too.
	m = update(t, m, diffpane.StatusMsg{Text: "copied /summary/x to the clipboard (OSC 52)"})
	mustContain(t, statusOf(m), "copied /summary/x")
	// esc clears news as well as problems.
	m = update(t, m, press("esc"))
	if s := strings.TrimSpace(statusOf(m)); s != "" {
		t.Fatalf("esc should clear the status line, got %q", s)
	}
	// In one batch a problem outranks the news that follows it.
	m = update(t, m, eventsMsg{events: []engine.Event{
		engine.StageVerdict{Stage: engine.StageParity, Verdict: "FAIL", Reason: "canonical reports differ"},
		engine.StageStopped{Stage: engine.StageDeterminism},
	}})
	if s := statusOf(m); !strings.Contains(s, "parity: FAIL") {
		t.Fatalf("the verdict should stay over its stage's end: %q", s)
	}
}

func TestAStopByTheUserIsReportedAsSuch(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 120, 30)
	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStarted{Stage: engine.StageDeterminism},
		engine.RunStarted{Run: "det/candidate-2", Arm: engine.Candidate, Kind: engine.KindRepetition, Repetition: 2, At: t0}}})
	m = update(t, m, press("x"))
	m = update(t, m, press("y"))
	m = update(t, m, eventsMsg{events: []engine.Event{
		engine.RunFinished{Run: "det/candidate-2", Arm: engine.Candidate, Kind: engine.KindRepetition, ExitCode: -1,
			Signal: "killed", Err: errors.New("det/candidate-2: cancelled")},
		engine.StageStopped{Stage: engine.StageDeterminism, Cancelled: true},
	}})
	s := screen(m)
	if strings.Contains(s, "replay error") || strings.Contains(s, "cancelled") {
		t.Fatalf("a stop by the user is not a replay error:\n%s", s)
	}
	mustContain(t, s, "determinism stage stopped by you (x)")
	mustContain(t, s, "stopped by you")
	mustContain(t, m.logText(), "det/candidate-2 stopped by you (x)")
}

func TestHelpShowsTheFocusedPaneKeysFirst(t *testing.T) {
	for _, sz := range [][2]int{{110, 34}, {80, 24}} {
		f := newFake(testInfo(5000, 60))
		m := newTestModel(t, f, sz[0], sz[1])
		m.setFocus(focusDiff)
		m.layout()
		m = update(t, m, press("?"))
		s := strings.Join(strings.Fields(helpPages(t, m)), " ")
		pane, global := strings.Index(s, "DIFF PANE KEYS"), strings.Index(s, "WORKBENCH KEYS")
		if pane < 0 || global < pane {
			t.Fatalf("%dx%d: the diff pane's keys come first:\n%s", sz[0], sz[1], s)
		}
		for _, w := range []string{"f by field/request", "c cover pattern", "L records", "y/Y copy pointer/values",
			"S determinism", "x stop stage", "+ add repetition", "z zoom pane"} {
			mustContain(t, s, w)
		}
	}
}

func TestZoomGivesTheFocusedPaneTheScreen(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 110, 34)
	m = update(t, m, eventsMsg{events: determinismScript(5000, 14)})
	m.setFocus(focusDiff)
	m.layout()
	if m.diff.h != 18 {
		t.Fatalf("unzoomed, the focused diff band is %d rows (want 18 at 110x34)", m.diff.h)
	}
	m = update(t, m, press("z"))
	if !m.plan.tiny || m.diff.h != 34-3 || m.diff.w != 110 {
		t.Fatalf("zoomed diff %dx%d", m.diff.w, m.diff.h)
	}
	s := screen(m)
	if strings.Contains(s, "DETERMINISM") || strings.Contains(s, "ARTIFACTS") {
		t.Fatalf("a zoomed pane hides the others:\n%s", s)
	}
	// The log zooms the same way, and tab keeps the zoom on the next pane.
	m = update(t, m, press("shift+tab"))
	if !m.logp.Zoomed() {
		t.Fatal("the log takes the zoom when focused")
	}
	m = update(t, m, press("z"))
	if m.plan.tiny || m.zoomed {
		t.Fatal("z again shows every pane")
	}
}

func TestALongMessageTakesTwoStatusLinesWhole(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := New(Options{Controller: f, Clock: fixedClock, SaveReport: func(string) error { return nil }})
	m = update(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m, msgs := updateCmd(t, m, press("s"))
	m = feed(t, m, msgs)
	m.render()
	lines := strings.Split(screen(m), "\n")
	both := lines[2] + lines[3]
	if !strings.Contains(strings.ReplaceAll(both, " ", ""), strings.ReplaceAll("report written: "+f.Dir()+"/report.md", " ", "")) {
		t.Fatalf("the report's full path should be on the status lines:\n%s\n%s", lines[2], lines[3])
	}
	if m.plan.statusH != 2 || len(lines) != 24 {
		t.Fatalf("status rows %d, %d lines", m.plan.statusH, len(lines))
	}
}

func TestOpenReportUsesThePager(t *testing.T) {
	if got := pagerArgv("less -R"); strings.Join(got, " ") != "less -R" {
		t.Fatalf("argv %v", got)
	}
	if got := pagerArgv(""); strings.Join(got, " ") != "less" {
		t.Fatalf("default %v", got)
	}
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 110, 34)
	m, _ = updateCmd(t, m, press("o"))
	mustContain(t, screen(m), "no report.md in "+f.Dir()+" yet: s writes it")

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "report.md"), []byte("# report\n"), 0o644)
	m.dir = dir
	t.Setenv("PAGER", "cat -n")
	var cmd tea.Cmd
	nm, cmd := m.Update(press("o"))
	m = nm.(Model)
	if cmd == nil {
		t.Fatal("o should hand the terminal to the pager")
	}
	mustContain(t, screen(m), "opening "+filepath.Join(dir, "report.md")+" in cat")
	m = update(t, m, pagerDoneMsg{what: "cat " + dir + "/report.md"})
	mustContain(t, screen(m), "back from cat")
}

func TestMouseWheelScrollsThePaneUnderItAndClickFocuses(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 110, 34)
	m = update(t, m, eventsMsg{events: determinismScript(5000, 14)})
	for i := 0; i < 30; i++ {
		m.logp.Note("note")
	}
	var logBox, detBox box
	for _, b := range m.boxes() {
		switch b.pane {
		case focusLog:
			logBox = b
		case focusDeterminism:
			detBox = b
		}
	}
	m = update(t, m, tea.MouseWheelMsg{X: logBox.x + 2, Y: logBox.y + 2, Button: tea.MouseWheelUp})
	if m.focus != focusDeterminism || !strings.Contains(screen(m), "scrolled back 3") {
		t.Fatalf("the wheel scrolls the log without taking focus (focus %v)", m.focus)
	}
	// A click on the first repetition's line focuses the pane and selects it.
	m = update(t, m, press("tab"))
	m = update(t, m, tea.MouseClickMsg{X: detBox.x + 3, Y: detBox.y + 1, Button: tea.MouseLeft})
	if r, _ := m.det.Selected(); m.focus != focusDeterminism || r.Run != "det/baseline-1" {
		t.Fatalf("click: focus %v selected %s", m.focus, r.Run)
	}
	m = update(t, m, tea.MouseWheelMsg{X: detBox.x + 3, Y: detBox.y + 1, Button: tea.MouseWheelDown})
	if r, _ := m.det.Selected(); r.Run != "det/baseline-2" {
		t.Fatalf("wheel over the determinism pane selects the next repetition, got %s", r.Run)
	}
	if v := m.View(); v.MouseMode != tea.MouseModeCellMotion {
		t.Fatal("the view asks for mouse events")
	}
}

func TestEWithNothingToActOnSaysSo(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 110, 34)
	m, msgs := updateCmd(t, m, press("e"))
	m = feed(t, m, msgs)
	mustContain(t, screen(m), "no diff open: press d on a repetition first")
}

// A reopened campaign knows its arms' verdicts from the assessment before any stage runs.
func TestAddRepetitionIsRefusedOnAnAssessedUnstableArm(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 110, 34)
	v := verdict.Verdicts{Determinism: verdict.Arms{Candidate: verdict.Of(verdict.Unstable, "2 digests")}}
	m.header.SetVerdicts(&v, nil)
	m, _ = updateCmd(t, m, press("+")) // nothing selected: the candidate
	if hasCall(f.Calls(), "AddRepetition candidate") {
		t.Fatal("+ must not add a repetition to an arm the campaign judged UNSTABLE")
	}
	mustContain(t, m.logText(), "add repetition refused: candidate is UNSTABLE")
}
