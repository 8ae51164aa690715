package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"kvparity/ui/text"
	"kvparity/verdict"
)

// verdictsMsg carries one assessment of the campaign; n drops an answer older than the newest
// question (assessments run off the update loop and may finish out of order).
type verdictsMsg struct {
	n   int
	v   verdict.Verdicts
	err error
}

// reassess asks for the campaign's verdicts again (after a stage verdict, a stage's end, a
// block, a change of exception records, or the history replayed on open).
func (m *Model) reassess() tea.Cmd {
	if m.assess == nil {
		return nil
	}
	m.assessN++
	if m.header.Verdicts() == nil {
		m.header.SetPending()
	}
	n, dir, assess := m.assessN, m.dir, m.assess
	return func() tea.Msg {
		v, err := assess(dir)
		return verdictsMsg{n: n, v: v, err: err}
	}
}

// verdictsOverlay is the v overlay: every verdict with its reason, as the report words it.
func (m Model) verdictsOverlay(h int) string {
	w := min(m.width-4, 100)
	body := strings.TrimRight(m.header.Reasons(w-4), "\n") + "\n" + m.styles.Faint.Render("campaign folder "+m.dir)
	box := m.styles.Overlay.Width(w).Render(body)
	placed := lipgloss.Place(m.width, max(h, 0), lipgloss.Center, lipgloss.Center, box)
	return text.Fit(strings.Split(placed, "\n"), m.width, h)
}
