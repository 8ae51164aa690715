package pane

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"kvparity/diffview"
)

// Rendering is plain text cut to width first, then styled, so widths stay exact and the
// golden test can strip the escapes.

// cut truncates s to w cells (runes; report text is ASCII apart from the arrows we add).
func cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	r := []rune(s)
	if len(r) <= w {
		return s
	}
	if w == 1 {
		return "…"
	}
	return string(r[:w-1]) + "…"
}

// pad cuts and right-pads s to exactly w cells.
func pad(s string, w int) string {
	s = cut(s, w)
	if n := len([]rune(s)); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// segs renders highlighted segments into exactly w cells.
func segs(ss []segment, w int, normal, changed lipgloss.Style) string {
	var b strings.Builder
	left := w
	for i, s := range ss {
		if left <= 0 {
			break
		}
		t := []rune(s.text)
		if len(t) > left || (len(t) == left && i < len(ss)-1) {
			t = append(t[:max(0, left-1)], '…')
		}
		st := normal
		if s.changed {
			st = changed
		}
		b.WriteString(st.Render(string(t)))
		left -= len(t)
	}
	if left > 0 {
		b.WriteString(strings.Repeat(" ", left))
	}
	return b.String()
}

// headerLines is the fixed top block: title, first divergence, diagnosis, exceptions.
func (p Model) headerLines() []string {
	w, st := p.width, p.styles
	title := "DIFF"
	right := ""
	if p.diff != nil {
		right = fmt.Sprintf("%d differing · %d groups", len(p.diff.Changes), len(p.diff.Groups))
		if p.diff.Equal() {
			right = "byte-identical"
		}
	}
	left := title + "  " + p.a.Label + " ↔ " + p.b.Label
	gap := max(1, w-len([]rune(right))-len([]rune(left)))
	if len([]rune(left))+len([]rune(right))+1 > w {
		left = cut(left, max(4, w-len([]rune(right))-1))
		gap = max(1, w-len([]rune(right))-len([]rune(left)))
	}
	lines := []string{st.Diff.Title.Render(left) + strings.Repeat(" ", gap) + st.Faint.Render(right)}
	switch {
	case p.loading:
		return append(lines, st.Faint.Render(cut("loading and diffing…", w)))
	case p.err != nil:
		return append(lines, st.Bad.Render(cut("error: "+p.err.Error(), w)))
	case p.diff == nil:
		return append(lines, st.Faint.Render(cut("no reports open: choose two runs of the campaign", w)))
	case p.diff.Equal():
		return append(lines, st.Good.Render(cut("no differing pointer: the canonical reports are identical", w)))
	}
	lines = append(lines, st.Bold.Render("first ")+st.Diff.Row.Render(cut(p.diff.First.String(), w-6)))
	if p.mode == modeForm {
		return lines
	}
	for i, s := range p.diff.Diagnosis {
		if i == 0 {
			lines = append(lines, st.Bold.Render("why   ")+st.Warn.Render(cut("1. "+s.String(), w-6)))
			for k, e := range s.Evidence {
				if k == 2 {
					break
				}
				lines = append(lines, st.Faint.Render(cut("      · "+e, w)))
			}
			continue
		}
		var rest []string
		for j, o := range p.diff.Diagnosis[1:] {
			rest = append(rest, fmt.Sprintf("%d. %s", j+2, o.String()))
		}
		lines = append(lines, st.Faint.Render(cut("also  "+strings.Join(rest, "; "), w)))
		break
	}
	lines = append(lines, p.semanticLine())
	return lines
}

func (p Model) semanticLine() string {
	st := p.styles
	if p.campaign == "" {
		return st.Faint.Render(cut("exceptions: no campaign directory", p.width))
	}
	if p.recErr != nil {
		return st.Bad.Render(cut("exceptions: "+p.recErr.Error(), p.width))
	}
	v, unc := p.verdict, p.uncovered
	txt := fmt.Sprintf("exceptions: %d record(s) · %d uncovered · semantic ", len(p.recs), len(unc))
	vs := st.Bad
	if v != diffview.VerdictFail {
		vs = st.Good
	}
	if p.unstable {
		txt = fmt.Sprintf("exceptions: %d record(s) · arm UNSTABLE · semantic ", len(p.recs))
	}
	return st.Faint.Render(cut(txt, p.width)) + vs.Render(cut(v.String(), max(0, p.width-len([]rune(txt)))))
}

// detailHeight is the side-by-side value box under the list.
const detailHeight = 3

func (p Model) chromeHeight() int {
	return len(p.headerLines()) + 2 + detailHeight + 1
}

// View renders the pane into exactly width×height cells.
func (p Model) View() string {
	var lines []string
	switch p.mode {
	case modeForm:
		lines = append(p.headerLines(), p.form.view(p.width, p.height-len(p.headerLines()))...)
	case modeRecords:
		lines = append(p.headerLines(), p.recordsView()...)
	default:
		lines = p.headerLines()
		if p.diff != nil && !p.diff.Equal() && !p.loading && p.err == nil {
			lines = append(lines, p.styles.Faint.Render(strings.Repeat("─", p.width)))
			lines = append(lines, p.listLines()...)
			lines = append(lines, p.styles.Faint.Render(strings.Repeat("─", p.width)))
			lines = append(lines, p.detailLines()...)
		}
		lines = append(lines, p.statusLine())
	}
	for len(lines) < p.height {
		lines = append(lines, "")
	}
	if len(lines) > p.height {
		lines = lines[:p.height]
	}
	for i, l := range lines {
		if n := lipgloss.Width(l); n < p.width {
			lines[i] = l + strings.Repeat(" ", p.width-n)
		}
	}
	return strings.Join(lines, "\n")
}

func (p Model) listLines() []string {
	h := p.listHeight()
	st := p.styles
	var out []string
	// The pointer column fits the longest visible pointer, up to 60% of the width.
	longest := 0
	for i := p.offset; i < len(p.rows) && i < p.offset+h; i++ {
		if ci := p.rows[i].change; ci >= 0 {
			longest = max(longest, len([]rune(p.diff.Changes[ci].Pointer))+5)
		}
	}
	ptrW := max(20, min(longest, p.width*60/100))
	valW := max(6, (p.width-ptrW-4)/2)
	for i := p.offset; i < len(p.rows) && len(out) < h; i++ {
		r := p.rows[i]
		g := p.diff.Groups[r.group]
		sel := i == p.cursor
		if r.change < 0 {
			arrow := "▸"
			if p.expanded[g.Key] {
				arrow = "▾"
			}
			n, marked := 0, 0
			for _, ci := range g.Changes {
				if p.visible(ci) {
					n++
					if p.marked[ci] {
						marked++
					}
				}
			}
			txt := fmt.Sprintf("%s %s (%d)", arrow, g.Title, n)
			if marked > 0 {
				txt += fmt.Sprintf(" [%d selected]", marked)
			}
			s := st.Bold
			if sel {
				s = st.Diff.GroupSel
			}
			out = append(out, s.Render(pad(txt, p.width)))
			continue
		}
		c := p.diff.Changes[r.change]
		mark := "  "
		if p.marked[r.change] {
			mark = "● "
		}
		ptr := "  " + mark + c.Pointer
		rs := st.Diff.Row
		if sel {
			rs = st.Selected
		}
		as, bs := highlight(c.A, c.B)
		if c.Kind == diffview.Added {
			as = []segment{{"∅", false}}
		}
		if c.Kind == diffview.Removed {
			bs = []segment{{"∅", false}}
		}
		line := rs.Render(pad(ptr, ptrW)) + " " + segs(as, valW, rs, st.Diff.Del) + rs.Render(" → ") + segs(bs, valW, rs, st.Diff.Ins)
		out = append(out, line)
	}
	for len(out) < h {
		out = append(out, "")
	}
	return out
}

// detailLines shows the selected change's two values side by side, wrapped, highlighted.
func (p Model) detailLines() []string {
	st := p.styles
	colW := max(10, (p.width-3)/2)
	if p.cursor >= len(p.rows) {
		return []string{st.Faint.Render(cut("no differing pointer matches the filter "+p.pattern, p.width)), "", ""}
	}
	if p.rows[p.cursor].change < 0 {
		g := p.diff.Groups[p.rows[p.cursor].group].Title
		return []string{st.Faint.Render(cut("group "+g+": enter expands, n jumps to the next difference", p.width)), "", ""}
	}
	c := p.diff.Changes[p.rows[p.cursor].change]
	as, bs := highlight(c.A, c.B)
	wa := wrapSegs(as, colW-2, detailHeight-1)
	wb := wrapSegs(bs, colW-2, detailHeight-1)
	ev := " · " + p.diff.Event(p.rows[p.cursor].change)
	lines := []string{st.Bold.Render(cut(c.Pointer, p.width/2)) + st.Faint.Render(cut(ev, p.width-len([]rune(cut(c.Pointer, p.width/2)))))}
	for k := 0; k < detailHeight-1; k++ {
		la, lb := "", ""
		if k == 0 {
			la, lb = "A ", "B "
		} else {
			la, lb = "  ", "  "
		}
		a := segs(wa[k], colW-2, st.Diff.Row, st.Diff.Del)
		b := segs(wb[k], colW-2, st.Diff.Row, st.Diff.Ins)
		lines = append(lines, st.Faint.Render(la)+a+st.Faint.Render(" │ ")+st.Faint.Render(lb)+b)
	}
	return lines
}

// wrapSegs splits segments into n lines of at most w cells (the last line is cut).
func wrapSegs(ss []segment, w, n int) [][]segment {
	out := make([][]segment, n)
	line, used := 0, 0
	for _, s := range ss {
		t := []rune(s.text)
		for len(t) > 0 && line < n {
			room := w - used
			if room <= 0 {
				line, used = line+1, 0
				continue
			}
			take := min(room, len(t))
			if line == n-1 && len(t) > room {
				take = len(t) // the last line is cut with an ellipsis by segs
			}
			out[line] = append(out[line], segment{string(t[:take]), s.changed})
			used += take
			t = t[take:]
		}
	}
	return out
}

func (p Model) statusLine() string {
	st := p.styles
	switch {
	case p.mode == modeFilter:
		return p.filter.View() // sized by SetSize; already styled
	case p.status != "":
		return st.Warn.Render(cut(p.status, p.width))
	case p.pattern != "":
		return st.Faint.Render(cut(fmt.Sprintf("filter %s · %d of %d differences · esc clears", p.pattern, len(p.visibleChanges()), len(p.diff.Changes)), p.width))
	case len(p.marked) > 0:
		return st.Faint.Render(cut(fmt.Sprintf("%d selected · e drafts an exception record for them", len(p.marked)), p.width))
	}
	return st.Faint.Render(cut("n/N next/prev · enter expand · / filter · space select · e exception · x records", p.width))
}
