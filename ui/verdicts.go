package ui

import (
	tea "charm.land/bubbletea/v2"

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
