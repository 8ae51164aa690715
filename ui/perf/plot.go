package perf

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// minPlotRows is the fewest lines a plot is drawn in: a strip of ratios and the x axis.
const minPlotRows = 2

// plot draws the pair ratios in pair order as a scatter in h lines: h-1 rows of ratios, one
// column per pair (pairs share a column when the box is narrower than the series), a dotted
// guide at the threshold and a faint one at 1.0, the y value of each guide and of the edges at
// the left, and under them the x axis, named: "ratio└1───candidate/baseline by pair───60". The
// y range is robust: it spans the central 90% of the ratios, and the few beyond it are drawn as
// ↑ or ↓ on the edge rows, so one outlier cannot flatten the rest into a single row.
func (m Model) plot(w, h int) []string {
	st := m.Styles
	const axis = 6 // "1.050┤"
	cols := w - axis
	if cols < 4 || h < minPlotRows || len(m.ratios) == 0 {
		return nil
	}
	xAxis := m.xAxis(min(cols, len(m.ratios)))
	if h == 2 {
		return m.strip(cols)
	}
	h-- // the x axis
	// The y range fits the ratios and 1.0; the threshold joins it only when it is near, so a
	// tight series around 1.0 is not squashed into one row by a far-away gate.
	lo, hi := robustRange(m.ratios)
	lo, hi = math.Min(lo, 1.0), math.Max(hi, 1.0)
	span := math.Max(hi-lo, 0.01)
	showGate := m.threshold <= hi+span && m.threshold >= lo-span
	if showGate {
		lo, hi = math.Min(lo, m.threshold), math.Max(hi, m.threshold)
	}
	pad := math.Max((hi-lo)*0.1, 0.005)
	lo, hi = lo-pad, hi+pad
	row := func(v float64) int { // row 0 is the top; values off the range land on the edges
		return min(max(int(math.Round((hi-v)/(hi-lo)*float64(h-1))), 0), h-1)
	}
	n := len(m.ratios)
	used := min(cols, n)
	grid := make([][]rune, h)
	for i := range grid {
		grid[i] = []rune(strings.Repeat(" ", used))
	}
	tRow, oneRow := row(m.threshold), row(1.0)
	if !showGate {
		tRow = -1
	}
	for c := 0; c < used; c++ {
		grid[oneRow][c] = '·'
		if tRow >= 0 {
			grid[tRow][c] = '┄'
		}
	}
	for i, r := range m.ratios {
		if math.IsNaN(r) {
			continue
		}
		c := i * used / n
		switch {
		case r > hi:
			grid[0][c] = '↑'
		case r < lo:
			grid[h-1][c] = '↓'
		default:
			grid[row(r)][c] = '•'
		}
	}
	out := make([]string, h)
	for i := range grid {
		label := "     │"
		switch i {
		case tRow:
			label = fmt.Sprintf("%5.3f┤", m.threshold)
		case oneRow:
			label = fmt.Sprintf("%5.3f┤", 1.0)
		case 0:
			label = fmt.Sprintf("%5.3f┤", hi)
		case h - 1:
			label = fmt.Sprintf("%5.3f┤", lo)
		}
		out[i] = st.Faint.Render(label) + m.colour(string(grid[i]))
	}
	// Say where the gate is when it is off the plot, if the line has room for it.
	note := fmt.Sprintf(" gate %.3f below ↓", m.threshold)
	at := h - 1
	if m.threshold > hi {
		note, at = fmt.Sprintf(" gate %.3f above ↑", m.threshold), 0
	}
	if !showGate && axis+used+len([]rune(note)) <= w {
		out[at] += st.Faint.Render(note)
	}
	return append(out, st.Faint.Render(xAxis))
}

// strip is the plot in two lines: one row of ratios whose block height is the ratio between
// the lowest and the highest (robust range, like the scatter), and the x axis, with that range
// beside it where the line has room.
func (m Model) strip(cols int) []string {
	st := m.Styles
	lo, hi := robustRange(m.ratios)
	n := len(m.ratios)
	used := min(cols, n)
	row := []rune(strings.Repeat(" ", used))
	bars := []rune("▁▂▃▄▅▆▇█")
	for i, r := range m.ratios {
		if math.IsNaN(r) {
			continue
		}
		k := len(bars) - 1
		if hi > lo {
			k = int(math.Round((min(max(r, lo), hi) - lo) / (hi - lo) * float64(len(bars)-1)))
		}
		row[i*used/n] = bars[k]
	}
	axis := m.xAxis(used)
	span := fmt.Sprintf("▁%.3f–█%.3f", lo, hi)
	switch {
	case used+2+len([]rune(span)) <= cols:
		axis += "  " + span // the blocks' range beside the axis, when the line has room
	default:
		// else in the axis, in place of its name: a strip unlabelled says nothing of its values
		axis = m.xAxis(used, " "+span+" ", " "+strings.ReplaceAll(span, "0.", ".")+" ")
	}
	return []string{st.Faint.Render("     │") + st.PlotMarker.Render(string(row)), st.Faint.Render(axis)}
}

// xAxis is the plot's x axis under used columns: the y axis's name at the corner, the first and
// last pair at the ends and what is plotted in between, as much of it as fits (the first of
// names that fits; by default what the axis counts).
func (m Model) xAxis(used int, names ...string) string {
	if len(names) == 0 {
		names = []string{" candidate/baseline by pair ", " ratio by pair ", " pair "}
	}
	first, last := "1", fmt.Sprint(len(m.ratios))
	line := []rune(strings.Repeat("─", used))
	copy(line, []rune(first))
	if used > len(first)+len(last) {
		copy(line[used-len(last):], []rune(last))
	}
	for _, name := range names {
		if n := len([]rune(name)); n+len(first)+len(last)+2 <= used {
			at := (used - n) / 2
			copy(line[at:], []rune(name))
			break
		}
	}
	return "ratio└" + string(line)
}

// colour styles plot markers and guides without one Render call per cell: runs of the same
// kind are rendered together, which keeps a 60-pair frame cheap.
func (m Model) colour(line string) string {
	st := m.Styles
	var b strings.Builder
	var run []rune
	kind := -1
	flush := func() {
		if len(run) == 0 {
			return
		}
		switch kind {
		case 1:
			b.WriteString(st.PlotMarker.Render(string(run)))
		case 2:
			b.WriteString(st.PlotGuide.Render(string(run)))
		default:
			b.WriteString(string(run))
		}
		run = run[:0]
	}
	for _, r := range line {
		k := 0
		switch r {
		case '•', '↑', '↓':
			k = 1
		case '·', '┄':
			k = 2
		}
		if k != kind {
			flush()
			kind = k
		}
		run = append(run, r)
	}
	flush()
	return b.String()
}

// robustRange is the 5th to 95th percentile of the ratios in so far (all of them below 20,
// where a percentile is no more robust than the extremes).
func robustRange(ratios []float64) (lo, hi float64) {
	var in []float64
	for _, r := range ratios {
		if !math.IsNaN(r) {
			in = append(in, r)
		}
	}
	if len(in) == 0 {
		return 1, 1
	}
	slices.Sort(in)
	if len(in) < 20 {
		return in[0], in[len(in)-1]
	}
	return in[len(in)*5/100], in[(len(in)*95-1)/100]
}
