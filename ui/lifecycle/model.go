// Package lifecycle is the pane with a run's lifecycle evidence (protocol stage 3): per-pool
// routing, admission and pressure counters, handoffs, terminal states, and every validity rule
// shown as passed or failed and why. It imports engine for the selected run, report for its
// lifecycle evidence, and ui/* (pane, keys, text, theme) for its box, keys, text and palette.
package lifecycle

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/report"
	"kvparity/ui/keys"
	"kvparity/ui/pane"
	"kvparity/ui/text"
	"kvparity/ui/theme"
)

// Model is the lifecycle pane. It keeps every run's evidence and shows the selected run's.
type Model struct {
	pane.Base
	keys     keys.KeyMap
	evidence map[engine.RunID]*report.Evidence
	run      engine.RunID
	label    string // how the selected run is named on screen, e.g. "cand#1"
	offset   int    // lines scrolled past, so every rule can be read in a short box
}

// New builds an empty pane.
func New(st theme.Styles, km keys.KeyMap) Model {
	m := Model{keys: km, evidence: map[engine.RunID]*report.Evidence{}}
	m.SetStyles(st)
	return m
}

// SetRun selects the run whose evidence is shown.
func (m *Model) SetRun(run engine.RunID, label string) {
	if run != m.run {
		m.offset = 0
	}
	m.run, m.label = run, label
}

// ScrollBy scrolls the evidence n lines (the mouse wheel over the pane).
func (m *Model) ScrollBy(n int) {
	m.offset = max(0, min(m.offset+n, max(len(m.lines())-(m.Height-1), 0)))
}

// ShortHelp is the pane's own bindings (help.KeyMap), shown while it has focus.
func (m Model) ShortHelp() []key.Binding { return []key.Binding{m.keys.Up, m.keys.Down} }

// FullHelp is the pane's bindings for the ? overlay (help.KeyMap).
func (m Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{m.keys.Up, m.keys.Down, m.keys.Top}}
}

// Evidence returns the evidence of a run, nil when none arrived yet.
func (m Model) Evidence(run engine.RunID) *report.Evidence { return m.evidence[run] }

// Update stores CoverageReady evidence (events are values; the pointer is never mutated) and,
// when focused, scrolls.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch ev := msg.(type) {
	case engine.CoverageReady:
		if ev.Evidence != nil {
			m.evidence[ev.Run] = ev.Evidence
		}
	case tea.KeyPressMsg:
		if !m.Focused() {
			break
		}
		switch {
		case key.Matches(ev, m.keys.Up):
			m.offset = max(m.offset-1, 0)
		case key.Matches(ev, m.keys.Down):
			m.offset = min(m.offset+1, max(len(m.lines())-(m.Height-1), 0))
		case key.Matches(ev, m.keys.Top):
			m.offset = 0
		}
	}
	return m, nil
}

// View renders the title and the selected run's evidence from the scroll offset: summary,
// failed rules with why, pools, handoff, terminal states, then every passed rule with why.
func (m Model) View() string {
	title := "LIFECYCLE"
	if m.label != "" {
		title += " (" + m.label + ")"
	}
	body := m.lines()
	offset := min(m.offset, max(len(body)-1, 0))
	// What is off screen is counted, with the key that shows it.
	note := ""
	how := m.keys.Zoom.Help().Key + " zooms"
	if m.Focused() {
		how = m.keys.Down.Help().Key + ", " + how
	}
	if below := len(body) - offset - (m.Height - 1); below > 0 {
		note = fmt.Sprintf("↓ %d more (%s)", below, how)
	}
	switch {
	case offset > 0 && note == "":
		note = fmt.Sprintf("↑ %d above (%s)", offset, m.keys.Up.Help().Key)
	case offset > 0:
		note = fmt.Sprintf("↑ %d %s", offset, note)
	}
	return text.Fit(append([]string{m.Title(title, note)}, body[offset:]...), m.Width, m.Height)
}

// lines is the pane's body for the selected run.
func (m Model) lines() []string {
	st := m.Styles
	e := m.evidence[m.run]
	if e == nil {
		msg := "  no lifecycle evidence yet"
		if m.run != "" {
			msg += " for " + m.label + " (it arrives when the run's canonical report is digested)"
		}
		return []string{st.Faint.Render(msg)}
	}
	var lines []string
	lines = append(lines, " "+fmt.Sprintf("%s · %s · %d requests · vt %s–%s", e.Topology, e.Engine, e.Requests,
		text.VirtualTime(e.VirtualStartMs), text.VirtualTime(e.VirtualEndMs)))
	var failed, passed []report.Rule
	for _, r := range e.Rules {
		if r.Passed {
			passed = append(passed, r)
		} else {
			failed = append(failed, r)
		}
	}
	for _, r := range failed {
		lines = append(lines, " "+st.Bad.Render("✗ "+r.Name)+": "+r.Why)
	}
	if len(failed) == 0 && len(passed) > 0 {
		lines = append(lines, " "+st.Good.Render(fmt.Sprintf("✓ all %d validity rules passed", len(passed))))
	}
	for _, p := range e.Pools {
		lines = append(lines, m.poolLines(p, e.QueueThresholdSet)...)
	}
	if h := e.Handoffs; h != nil {
		mark := st.Good.Render("✓")
		if h.Complete < h.Requests || h.InOrder < h.Complete {
			mark = st.Bad.Render("✗")
		}
		lines = append(lines, fmt.Sprintf(" handoff %d/%d complete · %d in order · %s %s",
			h.Complete, h.Requests, h.InOrder, h.Order, mark))
	}
	lines = append(lines, " terminal "+counts(e.Terminal, []string{"completed", "rejected", "canceled", "failed", "stranded"}))
	if len(e.KVEvents) > 0 {
		lines = append(lines, " kv events "+counts(e.KVEvents, []string{"stored", "removed", "cleared"}))
	}
	for _, r := range passed {
		lines = append(lines, " "+st.Good.Render("✓ "+r.Name)+" "+st.Faint.Render(r.Why))
	}
	return lines
}

func (m Model) poolLines(p report.PoolEvidence, queueing bool) []string {
	st := m.Styles
	name := fmt.Sprintf(" %-8s", p.Pool)
	route := fmt.Sprintf("routing %d · overlap>0 %d · immediate %d", p.RoutingDecisions, p.OverlapPositive, p.Immediate)
	if queueing {
		route += fmt.Sprintf(" · queued %d (released %d)", p.Queued, p.QueueReleased)
	} else {
		route += fmt.Sprintf(" · queued %d", p.Queued)
	}
	workers := make([]string, 0, len(p.Workers))
	for _, w := range p.Workers {
		workers = append(workers, fmt.Sprint(w))
	}
	second := fmt.Sprintf(" %8s pressure %d (%d readmitted) · admitted %d · readmitted %d · reuse %d · workers %s",
		"", p.PressureEvents, p.PressureReadmitted, p.Admissions, p.Readmissions, p.RequestsWithReuse,
		strings.Join(workers, ","))
	return []string{st.Bold.Render(name) + " " + route, second}
}

// counts renders a counter map with the known keys first, in protocol order, then any others.
func counts(c map[string]int, order []string) string {
	var parts []string
	seen := map[string]bool{}
	for _, k := range order {
		if v, ok := c[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %d", k, v))
			seen[k] = true
		}
	}
	var rest []string
	for k := range c {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		parts = append(parts, fmt.Sprintf("%s %d", k, c[k]))
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(slices.Clip(parts), " · ")
}
