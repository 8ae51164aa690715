package ui

import tea "charm.land/bubbletea/v2"

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
	top := 1 + p.artsH + p.statusH
	if p.tiny {
		return []box{{m.focus, 0, top, m.width, max(m.height-top-1, 0)}}
	}
	bs := []box{
		{focusDeterminism, 0, top, p.detW, p.topH}, {focusLifecycle, p.detW + 1, top, p.lifeW, p.topH},
		{focusPressure, 0, top + p.topH, p.pressW, p.midH}, {focusPerf, p.pressW + 1, top + p.topH, p.perfW, p.midH},
	}
	y := top + p.topH + p.midH
	switch {
	case p.bottomLog && p.bottomDif:
		bs = append(bs, box{focusLog, 0, y, p.logW, p.bottomH}, box{focusDiff, p.logW + 1, y, p.diffW, p.bottomH})
	case p.bottomDif:
		bs = append(bs, box{focusDiff, 0, y, p.diffW, p.bottomH})
	default:
		bs = append(bs, box{focusLog, 0, y, p.logW, p.bottomH})
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
	switch b.pane {
	case focusDeterminism:
		m.det.ScrollBy(n)
		m.syncSelection()
	case focusLifecycle:
		m.life.ScrollBy(3 * n)
	case focusPressure:
		m.press.ScrollBy(n)
	case focusLog:
		m.logp.ScrollBy(3 * n)
	case focusDiff:
		m.diff.ScrollBy(3 * n)
	}
}

func (m *Model) onClick(ev tea.Mouse) tea.Cmd {
	if ev.Button != tea.MouseLeft || (m.focus == focusDiff && m.diff.Capturing()) {
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
	y := ev.Y - b.y
	switch b.pane {
	case focusDeterminism:
		m.det.ClickAt(y)
		m.syncSelection()
	case focusPressure:
		m.press.ClickAt(y)
	case focusDiff:
		m.diff.ClickAt(y)
	}
	return nil
}
