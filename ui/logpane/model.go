// Package logpane is the pane with the runs' stderr lines and the workbench's own notes
// (problems, actions), newest at the bottom, scrollable when focused. Lines are wrapped, never
// cut, so every message can be read in full (z gives the log the whole screen). It imports
// engine for the runs' log lines and ui/* (pane, keys, text, theme) for its box, keys, text and
// palette.
package logpane

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/keys"
	"kvparity/ui/pane"
	"kvparity/ui/text"
	"kvparity/ui/theme"
)

// capacity is how many lines the pane keeps; older lines are in runs/<id>/stderr.
const capacity = 2000

type line struct {
	run  engine.RunID
	text string
	note bool // the workbench's own line, not a run's stderr
}

// Model is the log pane: a ring of the last capacity lines and a scroll offset from the end.
type Model struct {
	pane.Base
	keys   keys.KeyMap
	ring   []line
	next   int // where the next line goes once the ring is full
	back   int // lines scrolled back from the newest; 0 follows the tail
	total  int // lines ever added
	zoomed bool
}

// SetZoomed tells the pane it has the whole screen (its title says so).
func (m *Model) SetZoomed(z bool) { m.zoomed = z }

// ScrollBy scrolls n lines towards the newest (n > 0) or back (the mouse wheel over the pane).
func (m *Model) ScrollBy(n int) { m.back = max(0, min(m.back-n, max(len(m.ring)-1, 0))) }

// New builds an empty pane.
func New(st theme.Styles, km keys.KeyMap) Model {
	m := Model{keys: km}
	m.SetStyles(st)
	return m
}

// Note adds a line of the workbench's own (an action's outcome, a problem in words).
func (m *Model) Note(s string) { m.add(line{text: s, note: true}) }

// LineText is the text of the i-th oldest kept line.
func (m Model) LineText(i int) string { return m.at(i).text }

// Zoomed reports whether the pane has the whole screen.
func (m Model) Zoomed() bool { return m.zoomed }

// Len is the number of lines kept.
func (m Model) Len() int { return len(m.ring) }

func (m *Model) add(l line) {
	m.total++
	if len(m.ring) < capacity {
		m.ring = append(m.ring, l)
	} else {
		// Overwriting in place is safe for a value model: the copy Update was called on is
		// discarded once the new one is returned.
		m.ring[m.next] = l
		m.next = (m.next + 1) % capacity
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
			m.ScrollBy(-1)
		case key.Matches(ev, m.keys.Down):
			m.ScrollBy(1)
		case key.Matches(ev, m.keys.PageUp):
			m.ScrollBy(-max(1, m.Height-2))
		case key.Matches(ev, m.keys.PageDown):
			m.ScrollBy(max(1, m.Height-2))
		case key.Matches(ev, m.keys.Top):
			m.back = max(len(m.ring)-1, 0)
		case key.Matches(ev, m.keys.End):
			m.back = 0
		}
	}
	return m, nil
}

// View renders the newest lines that fit (or the scrolled-back window), each wrapped to the
// pane's width with its continuation indented.
func (m Model) View() string {
	st := m.Styles
	var notes []string
	if m.zoomed {
		notes = append(notes, "zoomed ("+keys.Name(m.keys.Zoom)+")")
	}
	if m.back > 0 {
		notes = append(notes, fmt.Sprintf("scrolled back %d (%s returns to the tail)", m.back, keys.Name(m.keys.End)))
	}
	lines := []string{m.Title("LOG", strings.Join(notes, " · "))}
	body := m.Height - 1
	if len(m.ring) == 0 || body <= 0 || m.Width <= 0 {
		if len(m.ring) == 0 {
			lines = append(lines, st.Faint.Render("  run stderr and workbench notes appear here"))
		}
		return text.Fit(lines, m.Width, m.Height)
	}
	// From the newest shown line upwards, as many wrapped lines as fit.
	var rows []string
	oldest := len(m.ring) - m.back // the oldest line shown
	for i := len(m.ring) - 1 - m.back; i >= 0 && len(rows) < body; i-- {
		w := m.wrapped(m.at(i))
		if len(rows) > 0 && len(rows)+len(w) > body {
			break // whole lines only: a cut-off tail of an older line reads as noise
		}
		rows = append(w, rows...)
		oldest = i
	}
	if len(rows) > body {
		rows = rows[len(rows)-body:]
	}
	for len(rows) < body && len(m.ring) > body {
		rows = append([]string{""}, rows...) // the newest line stays at the bottom
	}
	// The older lines off the top are counted in the title, with the keys that show them.
	if older := oldest; older > 0 {
		more := st.Faint.Render(fmt.Sprintf("↑ %d older (%s scrolls, %s zooms)", older, m.keys.Up.Help().Key, m.keys.Zoom.Help().Key))
		if len(notes) > 0 {
			more = strings.Join(notes, " · ") + " · " + more
		}
		lines[0] = m.Title("LOG", more)
	}
	return text.Fit(append(lines, rows...), m.Width, m.Height)
}

// wrapped renders one line in as many rows as its text needs.
func (m Model) wrapped(l line) []string {
	st := m.Styles
	head := " " + string(l.run) + " "
	if l.note {
		head = " » "
	}
	pieces := text.Wrap(head+l.text, m.Width, 1<<20, "     ")
	if rest, ok := strings.CutPrefix(pieces[0], head); ok {
		styled := " " + st.Faint.Render(string(l.run)) + " "
		if l.note {
			styled = " " + st.Bold.Render("»") + " "
		}
		pieces[0] = styled + rest
	}
	return pieces
}

// ShortHelp is the pane's own bindings (help.KeyMap), shown while it has focus.
func (m Model) ShortHelp() []key.Binding {
	return []key.Binding{m.keys.Up, m.keys.Down, m.keys.PageUp, m.keys.PageDown, m.keys.End}
}

// FooterKeys leads the footer while the pane has focus: zoom and paging, then every workbench
// key (the log's lines are long: z and the pages are what reading it needs).
func (m Model) FooterKeys() ([]key.Binding, bool) {
	return []key.Binding{m.keys.Zoom, m.keys.PageUp, m.keys.PageDown}, false
}

// FullHelp is the pane's bindings for the ? overlay (help.KeyMap).
func (m Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{m.keys.Up, m.keys.Down, m.keys.PageUp, m.keys.PageDown, m.keys.Top, m.keys.End}}
}
