// Package logpane is the pane with the runs' stderr lines and the workbench's own notes
// (problems, actions), newest at the bottom, scrollable when focused.
package logpane

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/keys"
	"kvparity/ui/pane"
	"kvparity/ui/text"
	"kvparity/ui/theme"
)

// Capacity is how many lines the pane keeps; older lines are in runs/<id>/stderr.
const Capacity = 2000

type line struct {
	run  engine.RunID
	text string
	note bool // the workbench's own line, not a run's stderr
}

// Model is the log pane: a ring of the last Capacity lines and a scroll offset from the end.
type Model struct {
	pane.Base
	keys  keys.KeyMap
	ring  []line
	next  int // where the next line goes once the ring is full
	back  int // lines scrolled back from the newest; 0 follows the tail
	total int
}

// New builds an empty pane.
func New(st theme.Styles, km keys.KeyMap) Model {
	m := Model{keys: km}
	m.Styles = st
	return m
}

// Note adds a line of the workbench's own (an action's outcome, a problem in words).
func (m *Model) Note(s string) { m.add(line{text: s, note: true}) }

// Len is the number of lines kept.
func (m Model) Len() int { return len(m.ring) }

// Total is the number of lines ever added.
func (m Model) Total() int { return m.total }

func (m *Model) add(l line) {
	m.total++
	if len(m.ring) < Capacity {
		m.ring = append(m.ring, l)
	} else {
		// Overwriting in place is safe for a value model: the copy Update was called on is
		// discarded once the new one is returned.
		m.ring[m.next] = l
		m.next = (m.next + 1) % Capacity
	}
	if m.back > 0 {
		m.back = min(m.back+1, len(m.ring)-1)
	}
}

// at returns the i-th oldest kept line.
func (m Model) at(i int) line { return m.ring[(m.next+i)%len(m.ring)] }

// Update takes LogLine events and, when focused, scrolling keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch ev := msg.(type) {
	case engine.LogLine:
		m.add(line{run: ev.Run, text: ev.Line})
	case tea.KeyPressMsg:
		if !m.Focused() {
			break
		}
		switch {
		case key.Matches(ev, m.keys.Up):
			m.back = min(m.back+1, max(len(m.ring)-1, 0))
		case key.Matches(ev, m.keys.Down):
			m.back = max(m.back-1, 0)
		case key.Matches(ev, m.keys.Top):
			m.back = max(len(m.ring)-1, 0)
		case key.Matches(ev, m.keys.End):
			m.back = 0
		}
	}
	return m, nil
}

// View renders the newest lines that fit (or the scrolled-back window).
func (m Model) View() string {
	st := m.Styles
	note := ""
	if m.back > 0 {
		note = "scrolled back (end returns to the tail)"
	}
	lines := []string{m.Title("LOG", note)}
	body := m.Height - 1
	end := len(m.ring) - m.back
	start := max(end-body, 0)
	if len(m.ring) == 0 {
		lines = append(lines, st.Faint.Render("  run stderr and workbench notes appear here"))
	}
	for i := start; i < end; i++ {
		l := m.at(i)
		if l.note {
			lines = append(lines, " "+st.Bold.Render("» ")+l.text)
			continue
		}
		lines = append(lines, " "+st.Faint.Render(string(l.run)+" ")+l.text)
	}
	return text.Fit(lines, m.Width, m.Height)
}

// ShortHelp is the pane's own bindings (help.KeyMap), shown while it has focus.
func (m Model) ShortHelp() []key.Binding { return []key.Binding{m.keys.Up, m.keys.Down} }

// FullHelp is the pane's bindings for the ? overlay (help.KeyMap).
func (m Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{m.keys.Up, m.keys.Down, m.keys.Top, m.keys.End}}
}
