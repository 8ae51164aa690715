package ui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"kvparity/ui/pane"
	"kvparity/ui/text"
)

// Layout sizes. At 100×30 and up the workbench shows every pane (the design's sketch): header,
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

// band is one row of the full layout, top to bottom: the panes of ring whose band it is, side
// by side in ring order.
type band struct {
	share    int // percent of the rows for the panes (the last band takes the rest)
	squeezed int // the share while a tall pane of another band has focus (at least minBandRows)
	// left is the first pane's width when two share the band (the second takes the rest
	// less the separator; more than two share it evenly).
	left func(w int) int
	// collapses: below the full size the band shows one pane, the focused one or else its
	// first (the log, not the diff pane, when neither has focus).
	collapses bool
}

// bands is the full layout as data: determinism | lifecycle, pressure | performance, log |
// diff. A focused tall pane (the diff pane, which needs room for its list and values) has its
// band alone and the others give it rows: 18 of the 29 at 110x34, ten list rows.
var bands = []band{
	{share: 36, squeezed: 22, left: leftColumn},
	{share: 32, squeezed: 18, left: leftColumn},
	{left: func(w int) int { return w / 2 }, collapses: true},
}

// leftColumn is the determinism and pressure panes' width: their lines need 44 cells.
func leftColumn(w int) int { return max(w*9/20, min(44, w/2)) }

// plan is the current layout: the chrome heights and each band's shown boxes.
type plan struct {
	artsH, statusH int
	tiny           bool    // one pane: the window is small, or the focused pane is zoomed
	rows           [][]box // per band, the panes shown, left to right
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
	for i, q := range m.panes() {
		if z, ok := pane.As[pane.Zoomer](q); ok {
			z.SetZoomed(m.zoomed && m.focus == paneID(i))
		}
	}
	if p.tiny {
		for _, q := range m.panes() {
			q.SetSize(w, max(rest, 0))
		}
		m.plan = p
		return
	}
	tall := m.ring[m.focus].tall
	full := w >= fullWidth && h >= fullHeight
	y := 1 + p.artsH + p.statusH
	for i, b := range bands {
		bh := rest - (y - (1 + p.artsH + p.statusH)) // the last band: the rest
		switch {
		case i == len(bands)-1:
		case tall && m.ring[m.focus].band != i:
			bh = max(minBandRows, rest*b.squeezed/100)
		default:
			bh = rest * b.share / 100
		}
		var members []paneID
		for id, s := range m.ring {
			if s.band == i {
				members = append(members, paneID(id))
			}
		}
		shown := members
		switch {
		case len(members) == 0:
		case tall && m.ring[m.focus].band == i:
			shown = []paneID{m.focus}
		case b.collapses && !full:
			shown = members[:1]
			if m.ring[m.focus].band == i {
				shown = []paneID{m.focus}
			}
		}
		for _, id := range members {
			m.at(id).SetSize(w, bh) // a hidden pane keeps the band's box
		}
		var row []box
		x := 0
		for j, bw := range columns(w, len(shown), b.left) {
			m.at(shown[j]).SetSize(bw, bh)
			row = append(row, box{shown[j], x, y, bw, bh})
			x += bw + 1
		}
		p.rows = append(p.rows, row)
		y += bh
	}
	m.plan = p
}

// columns splits w cells among n panes with a one-cell separator between them.
func columns(w, n int, left func(int) int) []int {
	switch n {
	case 0:
		return nil
	case 1:
		return []int{w}
	case 2:
		l := left(w)
		return []int{l, w - l - 1}
	}
	ws := make([]int, n)
	each := (w - (n - 1)) / n
	for i := range ws {
		ws[i] = each
	}
	ws[n-1] = w - (n-1)*(each+1)
	return ws
}

// compose assembles the frame from the panes' views: only joins, no formatting of data.
func (m *Model) compose() string {
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
		rows = append(rows, m.focused().View())
	default:
		for _, r := range p.rows {
			if len(r) == 0 {
				continue
			}
			v := m.at(r[0].pane).View()
			for _, b := range r[1:] {
				v = text.SideBySide(v, m.at(b.pane).View(), sep)
			}
			rows = append(rows, v)
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
func (m *Model) paneHelp() (string, [][]key.Binding) {
	return m.ring[m.focus].name, m.focused().FullHelp()
}
