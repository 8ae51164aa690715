package ui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
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
	artsH, statusH       int
	tiny                 bool // one pane: the window is small, or the focused pane is zoomed
	topH, midH, bottomH  int
	detW, lifeW          int
	pressW, perfW        int
	logW, diffW          int
	bottomLog, bottomDif bool
}

// layout recomputes the plan for the window and focus and sizes every pane.
func (m *Model) layout() {
	w, h := m.width, m.height
	p := plan{artsH: 1, statusH: m.statusRows()}
	if w >= fullWidth && h >= fullHeight || !m.arts.OneLineFits(w) {
		p.artsH = 2 // a variant name is given a second line rather than cut
	}
	if m.zoomed {
		p.artsH = 0 // the zoomed pane has the whole screen but the header, status and footer
	}
	rest := h - 1 - p.artsH - p.statusH - 1 // header, artifacts, status, footer
	p.tiny = m.zoomed || w < tinyWidth || h < tinyHeight || rest < 3*minBandRows
	m.header.SetSize(w, 1)
	m.arts.SetSize(w, p.artsH)
	m.diff.SetZoomed(m.zoomed && m.focus == focusDiff)
	m.logp.SetZoomed(m.zoomed && m.focus == focusLog)
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
		// grows (to 18 of the 29 rows at 110x34: ten list rows) and takes the band's width.
		p.topH = max(minBandRows, rest*22/100)
		p.midH = max(minBandRows, rest*18/100)
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
	rows := []string{m.header.View()}
	if p.artsH > 0 {
		rows = append(rows, m.arts.View())
	}
	rows = append(rows, m.statusLine())
	used := lipgloss.Height(strings.Join(rows, "\n")) // the status line may take two
	switch {
	case m.overlay == overlayHelp:
		rows = append(rows, m.helpOverlay(m.height-used-1))
	case m.overlay == overlayVerdicts:
		rows = append(rows, m.verdictsOverlay(m.height-used-1))
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

// helpOverlay renders the campaign folder, the focused pane's keys, then the workbench's (the
// same in every pane), from the key map, centred in h rows. When that does not fit, it gives
// up the notes, the border, the blank line between the sections, the folder line (the v
// overlay says it too) and then the diff pane's modes' keys (its footer lists them in each
// mode), never a key of the focused pane or the workbench.
func (m Model) helpOverlay(h int) string {
	hm := m.help
	hm.ShowAll = true
	name, paneKeys := m.paneHelp()
	section := func(folder, gap, note bool) string {
		var b strings.Builder
		if folder {
			// Where everything is kept (journal, runs, reports, exception records): whole, wrapped.
			for _, l := range text.Wrap("CAMPAIGN FOLDER "+m.dir, m.width-4, 3, "  ") {
				b.WriteString(l + "\n")
			}
		}
		b.WriteString(strings.ToUpper(name) + " KEYS (it has focus)\n")
		if len(paneKeys) == 0 {
			b.WriteString("  no keys of its own\n")
		} else {
			b.WriteString(helpGrid(hm, paneKeys, m.width-4) + "\n")
		}
		if m.focus == focusDiff && note {
			for _, l := range text.Wrap(m.diff.pane.HelpNote(), m.width-4, 4, "  ") {
				b.WriteString(l + "\n")
			}
			if m.diff.Capturing() {
				b.WriteString("while its field or form takes text, the workbench keys wait (esc leaves it)\n")
			}
		}
		if gap {
			b.WriteString("\n")
		}
		b.WriteString("WORKBENCH KEYS (the same in every pane)\n")
		b.WriteString(helpGrid(hm, m.keys.FullHelp(), m.width-4))
		return b.String()
	}
	notes := "\n\ng runs the determinism stage: repetitions, STABLE and parity; p the performance stage." +
		"\nmouse: the wheel scrolls the pane under the pointer, a click focuses a pane and selects a row." +
		"\nesc closes this help."
	fits := func(box string) bool { return lipgloss.Height(box) <= h && lipgloss.Width(box) <= m.width }
	full := section(true, true, true)
	box := m.styles.Overlay.Render(full + notes)
	for _, try := range []func() string{
		func() string { return m.styles.Overlay.Render(full + "\nesc closes this help.") },
		func() string { return full }, // no room for the border: the keys matter more
		func() string { return section(true, false, true) },
		func() string { return section(false, false, true) },
		// The record list's, diagnosis's and form's keys are in the pane's footer in those modes.
		func() string { return section(false, false, false) },
	} {
		if fits(box) {
			break
		}
		box = try()
	}
	placed := lipgloss.Place(m.width, max(h, 0), lipgloss.Center, lipgloss.Center, block(box))
	return text.Fit(strings.Split(placed, "\n"), m.width, h)
}

// block pads every line to the widest, so lipgloss.Place (which aligns line by line) centres
// the block and keeps it left-aligned inside.
func block(s string) string {
	ls := strings.Split(s, "\n")
	w := 0
	for _, l := range ls {
		w = max(w, text.Width(l))
	}
	for i := range ls {
		ls[i] = text.Pad(ls[i], w)
	}
	return strings.Join(ls, "\n")
}

// helpGrid renders key columns side by side, starting a new row of columns when the next one
// would not fit in w cells.
func helpGrid(hm help.Model, cols [][]key.Binding, w int) string {
	var rows []string
	var cur [][]key.Binding
	for _, c := range cols {
		if len(cur) > 0 && lipgloss.Width(hm.FullHelpView(append(cur, c))) > w {
			rows = append(rows, hm.FullHelpView(cur))
			cur = nil
		}
		cur = append(cur, c)
	}
	if len(cur) > 0 {
		rows = append(rows, hm.FullHelpView(cur))
	}
	return strings.Join(rows, "\n")
}

// paneHelp is the focused pane's name and its key columns.
func (m Model) paneHelp() (string, [][]key.Binding) {
	switch m.focus {
	case focusDeterminism:
		return "determinism", m.det.FullHelp()
	case focusLifecycle:
		return "lifecycle", m.life.FullHelp()
	case focusPressure:
		return "pressure", m.press.FullHelp()
	case focusLog:
		return "log", m.logp.FullHelp()
	case focusDiff:
		return "diff pane", m.diff.pane.FullHelp()
	}
	return "performance", nil
}
