package ui

import (
	tea "charm.land/bubbletea/v2"

	"kvparity/ui/pane"
)

// The mouse: the wheel scrolls the pane under the pointer (without taking focus), a click
// focuses the pane under it and selects the row it was on. The geometry is the layout's.

// box is a pane's place on screen.
type box struct {
	pane       paneID
	x, y, w, h int
}

// boxes lists where each shown pane is, from the plan compose draws.
func (m Model) boxes() []box {
	p := m.plan
	if p.tiny {
		top := 1 + p.artsH + p.statusH
		return []box{{m.focus, 0, top, m.width, max(m.height-top-1, 0)}}
	}
	var bs []box
	for _, r := range p.rows {
		bs = append(bs, r...)
	}
	return bs
}

// paneAt finds the pane drawn at a cell.
func (m Model) paneAt(x, y int) (box, bool) {
	if m.overlay != overlayNone {
		return box{}, false
	}
	for _, b := range m.boxes() {
		if x >= b.x && x < b.x+b.w && y >= b.y && y < b.y+b.h {
			return b, true
		}
	}
	return box{}, false
}

// onWheel scrolls the pane under the pointer by its registry's rows per notch.
func (m *Model) onWheel(ev tea.Mouse) {
	b, ok := m.paneAt(ev.X, ev.Y)
	if !ok {
		return
	}
	n := 0
	switch ev.Button {
	case tea.MouseWheelUp:
		n = -1
	case tea.MouseWheelDown:
		n = 1
	default:
		return
	}
	if s, ok := pane.As[pane.Scroller](m.at(b.pane)); ok && m.ring[b.pane].wheel > 0 {
		s.ScrollBy(m.ring[b.pane].wheel * n)
		m.syncSelection()
	}
}

func (m *Model) onClick(ev tea.Mouse) tea.Cmd {
	if c, ok := pane.As[pane.Capturer](m.focused()); ev.Button != tea.MouseLeft || ok && c.Capturing() {
		return nil // a form being typed keeps its focus
	}
	b, ok := m.paneAt(ev.X, ev.Y)
	if !ok {
		return nil
	}
	if b.pane != m.focus {
		m.setFocus(b.pane)
		m.layout()
		// The focused diff pane takes a taller band: the click selected the pane, not a row.
		if nb, ok := m.paneAt(ev.X, ev.Y); !ok || nb.pane != b.pane || nb.y != b.y {
			return nil
		}
	}
	if c, ok := pane.As[pane.Clicker](m.at(b.pane)); ok {
		c.ClickAt(ev.Y - b.y)
		m.syncSelection()
	}
	return nil
}
