package ui

import (
	"time"

	"kvparity/ui/pane"

	tea "charm.land/bubbletea/v2"
)

// Frame pacing. Bubble Tea calls View after every message, so the root renders into a cached
// frame only on a paced tick and View returns the cache: at most 30 frames a second, at most 4
// while a measured sample runs (the workbench must stay off the measured CPU), and a slow
// refresh while runs are live so elapsed times move without events.
const (
	frameInterval = time.Second / 30
	samplingFrame = time.Second / 4
	liveRefresh   = time.Second / 4
)

// frameMsg is a paced frame tick; gen drops ticks superseded by a sooner one.
type frameMsg struct{ gen int }

// pacer is the frame tick state: at most one tick is pending at a time.
type pacer struct {
	dirty   bool
	pending bool
	due     time.Time
	gen     int
}

// request asks for a tick within d; a pending tick that is due sooner already covers it.
func (p *pacer) request(d time.Duration) tea.Cmd {
	due := time.Now().Add(d)
	if p.pending && !p.due.After(due) {
		return nil
	}
	p.gen++
	p.pending, p.due = true, due
	gen := p.gen
	return tea.Tick(d, func(time.Time) tea.Msg { return frameMsg{gen: gen} })
}

// invalidate marks the frame stale and returns the tick that will redraw it.
func (m *Model) invalidate() tea.Cmd {
	m.pace.dirty = true
	d := frameInterval
	if m.perf.Sampling() {
		d = samplingFrame
	}
	return m.pace.request(d)
}

// onFrame redraws when the frame is stale or runs are live, and keeps ticking while live.
func (m *Model) onFrame(msg frameMsg) tea.Cmd {
	if msg.gen != m.pace.gen {
		return nil // superseded by a sooner tick
	}
	m.pace.pending = false
	live := m.live()
	if m.pace.dirty || live {
		m.render()
	}
	if live {
		return m.pace.request(liveRefresh)
	}
	return nil
}

// live reports whether anything on screen moves with time.
func (m *Model) live() bool {
	for _, p := range m.panes() {
		if c, ok := pane.As[pane.Clocked](p); ok && c.Live() {
			return true
		}
	}
	return false
}

// render composes the frame from the panes. It is the only place the panes' views are built.
func (m *Model) render() {
	if m.plan.statusH != m.statusRows() {
		m.layout() // a message needs a second status line (or no longer does)
	}
	now := m.clock()
	for _, p := range m.panes() {
		if c, ok := pane.As[pane.Clocked](p); ok {
			c.SetNow(now)
		}
	}
	m.frame = m.compose()
	m.pace.dirty = false
	m.renders++
}
