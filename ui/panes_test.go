package ui

import (
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/keys"
	"kvparity/ui/pane"
	"kvparity/ui/text"
	"kvparity/ui/theme"
)

// The shipped panes the tests name, found as the root finds its own (registered).
var (
	focusLifecycle = registered("lifecycle")
	focusPressure  = registered("pressure")
	focusPerf      = registered("performance")
	focusLog       = registered("log")
)

// The names the root and the tests find panes by are the registry's, one slot each, and every
// slot is in a band of the layout.
func TestRegistryMatchesThePaneConstants(t *testing.T) {
	for id, want := range map[paneID]string{focusDeterminism: "determinism", focusLifecycle: "lifecycle",
		focusPressure: "pressure", focusPerf: "performance", focusLog: "log", focusDiff: "diff pane"} {
		if got := registry[id].name; got != want {
			t.Errorf("registry[%d] is %q, want %q", id, got, want)
		}
	}
	seen := map[string]int{}
	for i, s := range registry {
		if s.band < 0 || s.band >= len(bands) {
			t.Errorf("registry[%d] (%s) is in band %d of %d", i, s.name, s.band, len(bands))
		}
		if j, dup := seen[s.name]; dup {
			t.Errorf("registry[%d] and registry[%d] are both called %q", j, i, s.name)
		}
		seen[s.name] = i
		if (s.of == nil) == (s.build == nil) {
			t.Errorf("registry[%d] (%s) must have exactly one of of and build", i, s.name)
		}
	}
}

// probePane is a pane a test adds: what it was sent, and a command for the one message it
// answers.
type probePane struct {
	pane.Base
	events int
}

type probeAsked struct{}
type probeAnswer struct{}

var probeKey = key.NewBinding(key.WithKeys("!"), key.WithHelp("!", "probe"))

func (p probePane) Update(msg tea.Msg) (probePane, tea.Cmd) {
	switch msg.(type) {
	case engine.Event:
		p.events++
		return p, func() tea.Msg { return probeAnswer{} }
	case probeAsked:
		return p, func() tea.Msg { return probeAnswer{} }
	}
	return p, nil
}

func (p probePane) View() string {
	return text.Fit([]string{p.Title("PROBE", ""), "  probed"}, p.Width, p.Height)
}
func (p probePane) ShortHelp() []key.Binding  { return []key.Binding{probeKey} }
func (p probePane) FullHelp() [][]key.Binding { return [][]key.Binding{{probeKey}} }

// A new pane is one registry entry: it is laid out in its band, tab reaches it, the ? overlay
// lists its keys, every engine event reaches it and its commands are never dropped.
func TestANewPaneIsOneRegistryEntry(t *testing.T) {
	var probe *probePane
	reg := append(slices.Clip(registry), // the one line a new pane adds:
		slot{build: func(theme.Styles, keys.KeyMap) pane.Pane { probe = &probePane{}; return pane.Of(probe) }, name: "probe", title: "the probe pane", band: 1})

	f := newFake(testInfo(5000, 60))
	m := newModel(Options{Controller: f, Assess: f.assess, Clock: fixedClock}, reg)
	m = update(t, m, tea.WindowSizeMsg{Width: 120, Height: 34})
	if s := screen(m); !strings.Contains(s, "PROBE") || !strings.Contains(s, "probed") {
		t.Fatalf("the new pane is not on screen:\n%s", s)
	}
	if probe.Width == 0 || probe.Height == 0 {
		t.Fatalf("the new pane was not sized: %dx%d", probe.Width, probe.Height)
	}
	for range len(registry) {
		m = update(t, m, press("tab"))
	}
	if !probe.Focused() || m.focus != paneID(len(registry)) {
		t.Fatalf("tab does not reach the new pane: focus %v", m.focus)
	}
	m = update(t, m, press("?"))
	mustContain(t, screen(m), "PROBE KEYS (it has focus)")
	m = update(t, m, press("esc"))
	m, msgs := updateCmd(t, m, eventsMsg{events: []engine.Event{engine.LogLine{Run: "det/baseline-1", Line: "x"}}})
	if probe.events != 1 || !hasMsg[probeAnswer](msgs) {
		t.Fatalf("the event reached the new pane %d times; its command answered: %v", probe.events, hasMsg[probeAnswer](msgs))
	}
	if _, msgs = updateCmd(t, m, probeAsked{}); !hasMsg[probeAnswer](msgs) {
		t.Fatal("a message the root does not know reaches the new pane, and its command is run")
	}
}
