package ui

import (
	"strings"

	"charm.land/lipgloss/v2"

	"kvparity/ui/text"
)

// Layout sizes. At 100×30 and up the workbench shows every pane (DESIGN sketch): header,
// artifacts, status line, then three bands of two panes side by side, then the footer. Below
// that it collapses: one artifacts line, and the bottom band shows only the log. At any size
// the focused diff pane takes the whole (taller) bottom band. Below 60×16 only the focused
// pane is shown.
const (
	fullWidth   = 100
	fullHeight  = 28
	tinyWidth   = 60
	tinyHeight  = 16
	separator   = "│"
	minBandRows = 3
)

// plan is the current layout: the chrome heights and each band's boxes.
type plan struct {
	artsH                int
	tiny                 bool
	topH, midH, bottomH  int
	detW, lifeW          int
	pressW, perfW        int
	logW, diffW          int
	bottomLog, bottomDif bool
}

// layout recomputes the plan for the window and focus and sizes every pane.
func (m *Model) layout() {
	w, h := m.width, m.height
	p := plan{artsH: 1}
	if w >= fullWidth && h >= fullHeight {
		p.artsH = 2
	}
	rest := h - 1 - p.artsH - 1 - 1 // header, artifacts, status, footer
	p.tiny = w < tinyWidth || h < tinyHeight || rest < 3*minBandRows
	m.header.SetSize(w, 1)
	m.arts.SetSize(w, p.artsH)
	if p.tiny {
		for _, s := range m.sizers() {
			s.SetSize(w, max(rest, 0))
		}
		m.plan = p
		return
	}
	p.topH = rest * 36 / 100
	p.midH = rest * 32 / 100
	if m.focus == focusDiff {
		// The diff pane needs room for its list and values: while it has focus the bottom band
		// grows and it takes the band's whole width.
		p.topH = rest * 28 / 100
		p.midH = rest * 24 / 100
	}
	p.bottomH = rest - p.topH - p.midH
	split := func(total, left int) (int, int) { return left, total - left - 1 }
	p.detW, p.lifeW = split(w, max(w*9/20, min(44, w/2)))
	p.pressW, p.perfW = split(w, p.detW)
	if w >= fullWidth && h >= fullHeight && m.focus != focusDiff {
		p.bottomLog, p.bottomDif = true, true
		p.logW, p.diffW = split(w, w/2)
	} else {
		// Collapsed: the diff pane takes the band only while it has focus.
		p.bottomDif = m.focus == focusDiff
		p.bottomLog = !p.bottomDif
		p.logW, p.diffW = w, w
	}
	m.det.SetSize(p.detW, p.topH)
	m.life.SetSize(p.lifeW, p.topH)
	m.press.SetSize(p.pressW, p.midH)
	m.perf.SetSize(p.perfW, p.midH)
	m.logp.SetSize(p.logW, p.bottomH)
	m.diff.SetSize(p.diffW, p.bottomH)
	m.plan = p
}

type sizer interface{ SetSize(w, h int) }

func (m *Model) sizers() []sizer {
	return []sizer{&m.det, &m.life, &m.press, &m.perf, &m.logp, &m.diff}
}

// compose assembles the frame from the panes' views: only joins, no formatting of data.
func (m Model) compose() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	p := m.plan
	sep := m.styles.Faint.Render(separator)
	rows := []string{m.header.View(), m.arts.View(), m.statusLine()}
	switch {
	case m.overlay == overlayHelp:
		rows = append(rows, m.helpOverlay(m.height-len(rows)-1))
	case m.overlay == overlayVerdicts:
		rows = append(rows, m.verdictsOverlay(m.height-len(rows)-1))
	case p.tiny:
		rows = append(rows, m.focusedView())
	default:
		rows = append(rows,
			text.SideBySide(m.det.View(), m.life.View(), sep),
			text.SideBySide(m.press.View(), m.perf.View(), sep))
		switch {
		case p.bottomLog && p.bottomDif:
			rows = append(rows, text.SideBySide(m.logp.View(), m.diff.View(), sep))
		case p.bottomDif:
			rows = append(rows, m.diff.View())
		default:
			rows = append(rows, m.logp.View())
		}
	}
	rows = append(rows, m.footer())
	frame := strings.Join(rows, "\n")
	// The frame must never exceed the window: a line too many scrolls the alternate screen.
	lines := strings.Split(frame, "\n")
	if len(lines) > m.height {
		lines = lines[:m.height]
	}
	return strings.Join(lines, "\n")
}

// focusedView is the tiny layout's one pane.
func (m Model) focusedView() string {
	switch m.focus {
	case focusLifecycle:
		return m.life.View()
	case focusPressure:
		return m.press.View()
	case focusPerf:
		return m.perf.View()
	case focusLog:
		return m.logp.View()
	case focusDiff:
		return m.diff.View()
	default:
		return m.det.View()
	}
}

// helpOverlay renders every binding (from the key map) centred in h rows.
func (m Model) helpOverlay(h int) string {
	hm := m.help
	hm.ShowAll = true
	body := "KEYS\n\n" + hm.FullHelpView(m.keys.FullHelp()) +
		"\n\ng runs the determinism stage: repetitions, STABLE and parity." +
		"\np runs the performance stage: warmups, paired samples, the gate." +
		"\nesc closes this help."
	box := m.styles.Overlay.Render(body)
	if m.focus == focusDiff {
		// The focused diff pane's own keys, when the window has room for them.
		withDiff := m.styles.Overlay.Render(body + "\n\nDIFF PANE (its keys come first while it has focus)\n\n" +
			hm.FullHelpView(m.diff.pane.FullHelp()))
		if lipgloss.Height(withDiff) <= h && lipgloss.Width(withDiff) <= m.width {
			box = withDiff
		}
	}
	placed := lipgloss.Place(m.width, max(h, 0), lipgloss.Center, lipgloss.Center, box)
	return text.Fit(strings.Split(placed, "\n"), m.width, h)
}
