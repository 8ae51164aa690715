package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"kvparity/engine"
)

// loaded is a workbench with a whole campaign applied (determinism and 60 pairs).
func loaded(t testing.TB, w, h int, noColor bool) Model {
	t.Helper()
	f := newFake(testInfo(5000, 60))
	m := New(Options{Controller: f, Assess: f.assess, Clock: fixedClock, NoColor: noColor})
	m = update(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	m = update(t, m, eventsMsg{events: determinismScript(5000, 14)})
	return update(t, m, eventsMsg{events: perfScript(60)})
}

func TestEveryLineFitsTheWindow(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {200, 60}, {79, 23}, {60, 16}, {50, 12}, {30, 8}, {10, 3}, {1, 1}} {
		for _, focus := range []paneID{focusDeterminism, focusDiff, focusLog} {
			m := loaded(t, sz[0], sz[1], false)
			m.setFocus(focus)
			m.layout()
			for _, overlay := range []overlay{overlayNone, overlayHelp, overlayConfirmQuit} {
				m.overlay = overlay
				m.render()
				lines := strings.Split(m.frame, "\n")
				if len(lines) != sz[1] {
					t.Errorf("%dx%d focus %d overlay %d: %d lines", sz[0], sz[1], focus, overlay, len(lines))
				}
				for i, l := range lines {
					if w := ansi.StringWidth(l); w > sz[0] {
						t.Errorf("%dx%d overlay %d line %d is %d cells wide: %q", sz[0], sz[1], overlay, i, w, ansi.Strip(l))
					}
				}
			}
		}
	}
}

func TestSmallWindowsCollapsePanes(t *testing.T) {
	m := loaded(t, 80, 24, false)
	s := screen(m)
	if strings.Contains(s, "DIFF") {
		t.Fatal("at 80x24 the diff pane is collapsed until it has focus")
	}
	mustContain(t, s, "LOG")
	m = update(t, m, press("shift+tab")) // the ring wraps from determinism to the diff pane
	s = screen(m)
	mustContain(t, s, "DIFF")
	if strings.Contains(s, " LOG ") {
		t.Fatal("at 80x24 the focused diff pane replaces the log")
	}
	// The full layout shows both side by side.
	s = screen(loaded(t, 100, 30, false))
	mustContain(t, s, "LOG")
	mustContain(t, s, "DIFF")
}

var colourSGR = regexp.MustCompile(`\x1b\[[0-9;]*(3[0-9]|4[0-9]|9[0-7]|10[0-7])(;[0-9;]*)?m`)

func TestNoColorRendersWithoutColours(t *testing.T) {
	m := loaded(t, 100, 30, true)
	m.render()
	if loc := colourSGR.FindStringIndex(m.frame); loc != nil {
		t.Fatalf("NO_COLOR frame has a colour sequence %q", m.frame[loc[0]:loc[1]])
	}
	m = loaded(t, 100, 30, false)
	m.render()
	if colourSGR.FindStringIndex(m.frame) == nil {
		t.Fatal("the coloured frame has no colour at all: the check above proves nothing")
	}
}

func TestBackgroundColourSwitchesStyles(t *testing.T) {
	m := loaded(t, 100, 30, false)
	m = update(t, m, tea.BackgroundColorMsg{Color: ansi.BasicColor(15)}) // white
	if m.styles.IsDark || m.det.Styles.IsDark || m.perf.Styles.IsDark {
		t.Fatal("a light background must give every pane light styles")
	}
	light := m.frame
	m = update(t, m, tea.BackgroundColorMsg{Color: ansi.BasicColor(0)})
	if !m.styles.IsDark || m.frame == light {
		t.Fatal("a dark background must restyle the frame")
	}
}

func TestFramesArePaced(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	before := m.frame
	nm, cmd := m.Update(eventsMsg{events: determinismScript(5000, 14)})
	m = nm.(Model)
	if m.frame != before {
		t.Fatal("events must not render immediately: frames are paced")
	}
	if cmd == nil || !m.pace.pending {
		t.Fatal("a stale frame must schedule a tick")
	}
	m = update(t, m, frameMsg{gen: m.pace.gen - 1})
	if m.frame != before {
		t.Fatal("a superseded tick must not render")
	}
	m = update(t, m, frameMsg{gen: m.pace.gen})
	if m.frame == before || m.pace.dirty {
		t.Fatal("the current tick renders the stale frame")
	}
}

func TestSamplingSlowsFramesDown(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m = update(t, m, eventsMsg{events: []engine.Event{engine.RunStarted{Run: "perf/pair-001-baseline",
		Arm: engine.Baseline, Kind: engine.KindSample, Repetition: 1, At: t0}}})
	if !m.perf.Sampling() {
		t.Fatal("a running sample should be tracked")
	}
	// The pending tick is the sampling one (≤ 4 redraws a second), not the 30 fps one.
	m.pace = pacer{}
	m.invalidate()
	if d := time.Until(m.pace.due); d < samplingFrame-50*time.Millisecond {
		t.Fatalf("while sampling the next frame should be ~%v away, got %v", samplingFrame, d)
	}
	m = update(t, m, eventsMsg{events: []engine.Event{engine.RunFinished{Run: "perf/pair-001-baseline",
		Arm: engine.Baseline, Kind: engine.KindSample}}})
	if m.perf.Sampling() {
		t.Fatal("the sample finished")
	}
}
