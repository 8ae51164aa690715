package diffpane

import (
	"fmt"
	"regexp"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"kvparity/diffview"
	"kvparity/ui/keys"
	"kvparity/verdict"
)

// Rendering is plain text cut to width first, then styled, so widths stay exact and the
// golden test can strip the escapes.

// cut truncates s to w cells, ending in an ellipsis when it had to cut.
func cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
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

// minListRows is the list's height below which the diagnosis starts closed (i opens it).
const minListRows = 10

// evidenceShown is how many evidence lines of the top signature an open diagnosis shows.
const evidenceShown = 3

// diagLines is how many lines the diagnosis takes, open or closed.
func (p Model) diagLines(open bool) int {
	if p.diff == nil || len(p.diff.Diagnosis) == 0 {
		return 0
	}
	if !open {
		return 1
	}
	n := 1 + min(evidenceShown, len(p.diff.Diagnosis[0].Evidence))
	if len(p.diff.Diagnosis[0].Evidence) > evidenceShown {
		n++ // "+N more"
	}
	if len(p.diff.Diagnosis) > 1 {
		n++
	}
	return n
}

// diagOpen says whether the diagnosis is shown whole: as set with i, else when the list
// keeps at least minListRows rows with it open.
func (p Model) diagOpen() bool {
	if p.diagSet != 0 {
		return p.diagSet > 0
	}
	open := 3 + p.diagLines(true) + 1 + p.detailRows() + 1
	return p.Height-open >= minListRows
}

// detailRows is how many lines the selected values take under the list: one or two side by
// side, or, when a value does not fit its half, both stacked at full width and wrapped, with
// rows taken from the list (at most maxDetailRows; what is still longer is cut, Y copies it).
func (p Model) detailRows() int {
	n := p.sideRows()
	if a, b, ok := p.selectedValues(); ok && !fitsSideBySide(a, b, p.sideW(), n) {
		return max(n, min(maxDetailRows, p.Height/4, stackedRows(a, p.Width-2)+stackedRows(b, p.Width-2)))
	}
	return n
}

// sideRows is the rows of values side by side.
func (p Model) sideRows() int {
	if p.Height >= 26 {
		return 2
	}
	return 1
}

// maxDetailRows caps the rows a long selected value takes from the list.
const maxDetailRows = 6

// sideW is the cells one value has side by side.
func (p Model) sideW() int { return max(10, (p.Width-3)/2) - 2 }

// selectedValues are the selected change's two values ("∅" for the side it is missing on).
func (p Model) selectedValues() (a, b string, ok bool) {
	if p.diff == nil || p.mode != modeList && p.mode != modeFilter || p.cursor >= len(p.rows) || p.rows[p.cursor].change < 0 {
		return "", "", false
	}
	c := p.diff.Changes[p.rows[p.cursor].change]
	a, b = c.A, c.B
	if c.Kind == diffview.Added {
		a = "∅"
	}
	if c.Kind == diffview.Removed {
		b = "∅"
	}
	return a, b, true
}

func fitsSideBySide(a, b string, w, n int) bool {
	return stackedRows(a, w) <= n && stackedRows(b, w) <= n
}

// stackedRows is how many lines of w cells s takes.
func stackedRows(s string, w int) int {
	return max(1, (len([]rune(s))+max(w, 1)-1)/max(w, 1))
}

var uuidRE = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)

// shortenIDs writes every uuid in s by the part that tells it apart (from short, the diff's
// request ids, or on its own).
func shortenIDs(s string, short map[string]string) string {
	return uuidRE.ReplaceAllStringFunc(s, func(id string) string {
		if v, ok := short[id]; ok {
			return v
		}
		return diffview.ShortIDs([]string{id}, 4)[id]
	})
}

// titleLine is the pane's first line: the two sides, and the counts (shorter forms first
// when the line is narrow, so the zoom mark is never the part cut).
func (p Model) titleLine() string {
	w, st := p.Width, p.Styles
	left, title := "DIFF  "+p.a.Label+" ↔ "+p.b.Label, st.Diff.Title
	if mark := p.staleTitle(); mark != "" {
		// The stale mark leads, in the warning colour: the list must not be read without it.
		left, title = "DIFF ("+mark+")  "+p.a.Label+" ↔ "+p.b.Label, st.Warn
	}
	var forms []string
	if p.diff != nil {
		n := fmt.Sprintf("%d differing", p.diff.Count)
		if p.diff.Truncated() { // the list holds some of them (diffview's hold.go)
			n += fmt.Sprintf(", %d held", len(p.diff.Changes))
		}
		forms = []string{
			fmt.Sprintf("%s · %d groups · %d field patterns", n, len(p.groups[byRequest].groups), len(p.groups[byPattern].groups)),
			fmt.Sprintf("%s · %d patterns", n, len(p.groups[byPattern].groups)),
			n,
			fmt.Sprintf("%d differing", p.diff.Count),
		}
		switch {
		case p.diff.Equal() && len(p.diff.Excluded) > 0: // their bytes differ where no digest looks
			forms = []string{"identical under the canonical profile", "identical (profile)"}
		case p.diff.Equal():
			forms = []string{"byte-identical"}
		}
	}
	if len(forms) == 0 {
		forms = []string{""}
	}
	right := ""
	for _, f := range forms {
		if p.zoomed {
			f = strings.TrimPrefix(f+" · zoomed ("+keys.Name(p.keys.Zoom)+")", " · ")
		}
		right = f
		if len([]rune(left))+len([]rune(f))+1 <= w {
			break
		}
	}
	if len([]rune(left))+len([]rune(right))+1 > w {
		right = cut(right, max(0, w-len([]rune(left))-1))
	}
	gap := max(1, w-len([]rune(right))-len([]rune(left)))
	return title.Render(cut(left, w)) + strings.Repeat(" ", gap) + st.Faint.Render(right)
}

// headerLines is the fixed top block: title, first divergence, diagnosis, exceptions.
func (p Model) headerLines() []string {
	w, st := p.Width, p.Styles
	lines := []string{p.titleLine()}
	switch {
	case p.loading:
		return append(lines, st.Faint.Render(cut("loading and diffing…", w)))
	case p.err != nil:
		return append(lines, st.Bad.Render(cut("error: "+p.err.Error(), w)))
	case p.diff == nil:
		return append(lines, st.Faint.Render(cut("no reports open: choose two runs of the campaign", w)))
	case p.diff.Equal():
		lines = append(lines, st.Good.Render(cut("no differing pointer: the canonical reports are identical", w)))
		return append(lines, p.excludedLines()...)
	}
	if p.mode == modeForm {
		return lines
	}
	first := p.diff.First.String()
	if len([]rune(first)) > w-6 {
		first = shortenIDs(first, p.groups[byRequest].short) // the ids' telling part, not their zeros
	}
	lines = append(lines, st.Bold.Render("first ")+st.Diff.Row.Render(cut(first, w-6)))
	if p.mode == modeDiagnosis {
		return lines // the whole diagnosis follows
	}
	lines = append(lines, p.whyLines()...)
	lines = append(lines, p.excludedLines()...)
	return append(lines, p.semanticLine())
}

// whyLines is the diagnosis on top of the list: closed, one line with how many causes more;
// open, the top cause with its first evidence and how much more there is, and the other causes
// on one line. Whatever is cut says how to see it (i opens, I shows the whole diagnosis).
func (p Model) whyLines() []string {
	w, st, k := p.Width, p.Styles, p.keys
	ds := p.diff.Diagnosis
	if len(ds) == 0 {
		return nil
	}
	whole := k.WholeDiagnosis.Help().Key
	if !p.diagOpen() {
		more := fmt.Sprintf(" · %s opens it", k.Diagnosis.Help().Key)
		if len(ds) > 1 {
			more = fmt.Sprintf(" · +%d more (%s)", len(ds)-1, k.Diagnosis.Help().Key)
		}
		head := cut("1. "+ds[0].String(), max(10, w-6-len([]rune(more))))
		return []string{st.Bold.Render("why   ") + st.Warn.Render(head) + st.Faint.Render(cut(more, w-6-len([]rune(head))))}
	}
	lines := []string{st.Bold.Render("why   ") + st.Warn.Render(cut("1. "+ds[0].String(), w-6))}
	ev := ds[0].Evidence
	for _, e := range ev[:min(evidenceShown, len(ev))] {
		lines = append(lines, st.Faint.Render(cut("      · "+e, w)))
	}
	if n := len(ev) - evidenceShown; n > 0 {
		lines = append(lines, st.Warn.Render(cut(fmt.Sprintf("      +%d more (%s shows the whole diagnosis)", n, whole), w)))
	}
	if len(ds) > 1 {
		// As many of the other causes as fit, then how many more and where they are.
		var parts []string
		for j, o := range ds[1:] {
			parts = append(parts, fmt.Sprintf("%d. %s", j+2, o.String()))
		}
		also := func(n int) string {
			txt := "also  " + strings.Join(parts[:n], "; ")
			if n < len(parts) {
				txt += fmt.Sprintf(" · +%d more (%s)", len(parts)-n, whole)
			}
			return txt
		}
		n := len(parts)
		for n > 1 && len([]rune(also(n))) > w {
			n--
		}
		txt := also(n)
		if tail := strings.TrimPrefix(txt, "also  "+strings.Join(parts[:n], "; ")); len([]rune(txt)) > w && tail != "" {
			txt = cut("also  "+parts[0], max(0, w-len([]rune(tail)))) + tail // the count is never the part cut
		}
		lines = append(lines, st.Faint.Render(cut(txt, w)))
	}
	return lines
}

// excludedLines says which of the canonical profile's excluded pointers differ (they are not
// compared, but not hidden either): one line, the first of them and how many more.
func (p Model) excludedLines() []string {
	x := p.diff.Excluded
	if len(x) == 0 {
		return nil
	}
	txt := "excluded by the canonical profile (not compared): " + x[0].String()
	if len(x) > 1 {
		txt += fmt.Sprintf(" · +%d more", len(x)-1)
	}
	return []string{p.Styles.Faint.Render(cut(txt, p.Width))}
}

func (p Model) semanticLine() string {
	st := p.Styles
	if p.campaign == "" {
		return st.Faint.Render(cut("exceptions: no campaign directory", p.Width))
	}
	if p.recErr != nil {
		return st.Bad.Render(cut("exceptions: "+p.recErr.Error(), p.Width))
	}
	v, unc := p.verdict, p.uncovered
	broad := 0
	for _, r := range p.recs {
		if p.recBroad[r.ID] != "" { // computed, never the file's flag
			broad++
		}
	}
	recs := fmt.Sprintf("%d record(s)", len(p.recs))
	if broad > 0 {
		recs += fmt.Sprintf(" (%d BROAD)", broad)
	}
	// How the records stand against this diff; the campaign's semantic verdict (which also
	// weighs stability and lifecycle evidence) is the header's, so the pane states coverage only.
	txt := fmt.Sprintf("exceptions: %s · ", recs)
	cov, vs := fmt.Sprintf("%d of %d differing pointers uncovered", unc, p.diff.Count), st.Bad
	switch {
	case p.unstable:
		cov = "an arm is UNSTABLE: records never waive leaked entropy"
	case v != verdict.Fail:
		cov, vs = fmt.Sprintf("all %d differing pointers covered", p.diff.Count), st.Good
	}
	return st.Faint.Render(cut(txt, p.Width)) + vs.Render(cut(cov, max(0, p.Width-len([]rune(txt)))))
}

func (p Model) chromeHeight() int {
	n := len(p.headerLines()) + 1 + 1 + p.detailRows()
	if p.statusLine() != "" {
		n++
	}
	return n
}

// listTop is the pane line of the list's first row.
func (p Model) listTop() int { return len(p.headerLines()) + 1 }

// View renders the pane into exactly width×height cells.
func (p Model) View() string {
	var lines []string
	switch p.mode {
	case modeForm:
		head := p.headerLines()
		lines = append(head, p.form.view(p.plainDiff(), p.Width, p.Height-len(head))...)
	case modeRecords:
		head := p.headerLines()
		lines = append(head, p.recordsView(p.Height-len(head))...)
	case modeDiagnosis:
		head := p.headerLines()
		lines = append(head, p.diagnosisView(p.Height-len(head))...)
	default:
		lines = p.headerLines()
		if p.diff != nil && !p.diff.Equal() && !p.loading && p.err == nil {
			lines = append(lines, p.groupingLine())
			lines = append(lines, p.listLines()...)
			lines = append(lines, p.detailLines()...)
		}
		if sl := p.statusLine(); sl != "" {
			lines = append(lines, sl)
		}
	}
	for len(lines) < p.Height {
		lines = append(lines, "")
	}
	if len(lines) > p.Height {
		lines = lines[:p.Height]
	}
	for i, l := range lines {
		switch n := lipgloss.Width(l); {
		case n < p.Width:
			lines[i] = l + strings.Repeat(" ", p.Width-n)
		case n > p.Width:
			lines[i] = ansi.Truncate(l, p.Width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// groupingLine is the rule above the list: how it is grouped and how to switch.
func (p Model) groupingLine() string {
	other := byPattern
	if p.by == byPattern {
		other = byRequest
	}
	k := p.keys
	txt := fmt.Sprintf("── by %s: %d groups · %s groups by %s ", p.by, len(p.cur().groups), k.GroupBy.Help().Key, other)
	if p.by == byPattern {
		txt = fmt.Sprintf("── by field pattern: %d patterns, largest first · %s covers one · %s groups by %s ", len(p.cur().groups),
			k.Cover.Help().Key, k.GroupBy.Help().Key, other)
	}
	if p.pattern != "" {
		txt += fmt.Sprintf("· filter %s: %d of %d%s ", p.pattern, p.visibleCount(), len(p.diff.Changes), p.held())
	}
	// Rows off the list's window are counted here, before the rule could be cut.
	h := p.listHeight()
	if below := len(p.rows) - (p.offset + h); p.offset > 0 || below > 0 {
		off := ""
		if p.offset > 0 {
			off = fmt.Sprintf("↑ %d ", p.offset)
		}
		if below > 0 {
			off += fmt.Sprintf("↓ %d ", below)
		}
		more := fmt.Sprintf("· %smore row(s) (%s/%s) ", off, k.PageUp.Help().Key, k.PageDown.Help().Key)
		if len([]rune(txt+more)) > p.Width {
			txt = cut(txt, max(0, p.Width-len([]rune(more))-1)) + " "
		}
		txt += more
	}
	n := len([]rune(txt))
	if n < p.Width {
		txt += strings.Repeat("─", p.Width-n)
	}
	return p.Styles.Faint.Render(cut(txt, p.Width))
}

func (p Model) listLines() []string {
	h := p.listHeight()
	st := p.Styles
	var out []string
	// The pointer column fits the longest visible pointer, up to 60% of the width.
	longest := 0
	for i := p.offset; i < len(p.rows) && i < p.offset+h; i++ {
		if ci := p.rows[i].change; ci >= 0 {
			longest = max(longest, len([]rune(p.diff.Changes[ci].Pointer))+5)
		}
	}
	ptrW := max(20, min(longest, p.Width*60/100))
	valW := max(6, (p.Width-ptrW-4)/2)
	marked := p.markedByGroup()
	for i := p.offset; i < len(p.rows) && len(out) < h; i++ {
		r := p.rows[i]
		sel := i == p.cursor
		if r.change < 0 {
			s := st.Bold
			if sel {
				s = st.Diff.GroupSel
			}
			out = append(out, s.Render(pad(p.groupLine(r.group, p.cur().groups[r.group], marked[r.group]), p.Width)))
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

// detailLines shows the selected change's two values side by side, wrapped, highlighted; on
// a header, what the group is and what the keys do with it.
func (p Model) detailLines() []string {
	st := p.Styles
	n := p.detailRows()
	blank := make([]string, n)
	rule := func(s string) string {
		s = "── " + s + " "
		if k := len([]rune(s)); k < p.Width {
			s += strings.Repeat("─", p.Width-k)
		}
		return st.Faint.Render(cut(s, p.Width))
	}
	if p.cursor >= len(p.rows) {
		return append([]string{rule("no differing pointer matches the filter " + p.pattern)}, blank...)
	}
	r := p.rows[p.cursor]
	if r.change < 0 {
		g := p.cur().groups[r.group]
		cnt := p.vis.count(p.by, r.group, g.count)
		txt := fmt.Sprintf("%s: %d pointer(s)", g.full, cnt)
		if held := len(g.changes); cnt > held && !p.vis.on {
			txt += fmt.Sprintf(" (%d held)", held)
		}
		if reqs := p.requestsIn(g); reqs > 0 {
			txt += fmt.Sprintf(" in %d request(s)", reqs)
		}
		k := p.keys
		hint := fmt.Sprintf("%s expands · %s next difference · %s selects · %s drafts a record · %s covers its field patterns",
			k.Toggle.Help().Key, k.NextDiff.Help().Key, k.Mark.Help().Key, k.NewException.Help().Key, k.Cover.Help().Key)
		if g.pattern != "" {
			hint = fmt.Sprintf("%s expands · %s covers this pattern with an exception record · %s copies it",
				k.Toggle.Help().Key, k.Cover.Help().Key, k.CopyPointer.Help().Key)
		}
		return append([]string{rule(txt)}, append([]string{st.Faint.Render(cut("   "+hint, p.Width))}, blank[1:]...)...)
	}
	c := p.diff.Changes[r.change]
	colW := max(10, (p.Width-3)/2)
	as, bs := highlight(c.A, c.B)
	lines := []string{rule(c.Pointer + " · " + p.diff.Event(r.change))}
	if va, vb, _ := p.selectedValues(); !fitsSideBySide(va, vb, p.sideW(), p.sideRows()) {
		// Stacked: A's lines, then B's, each wrapped at full width (a uuid whole at 80 columns).
		ra := min(stackedRows(va, p.Width-2), max(1, n-1))
		wa, wb := wrapSegs(as, p.Width-2, ra), wrapSegs(bs, p.Width-2, max(1, n-ra))
		for k, l := range wa {
			lines = append(lines, st.Faint.Render(side("A ", k))+segs(l, p.Width-2, st.Diff.Row, st.Diff.Del))
		}
		for k, l := range wb {
			lines = append(lines, st.Faint.Render(side("B ", k))+segs(l, p.Width-2, st.Diff.Row, st.Diff.Ins))
		}
		return lines
	}
	wa := wrapSegs(as, colW-2, n)
	wb := wrapSegs(bs, colW-2, n)
	for k := 0; k < n; k++ {
		la, lb := "  ", "  "
		if k == 0 {
			la, lb = "A ", "B "
		}
		a := segs(wa[k], colW-2, st.Diff.Row, st.Diff.Del)
		b := segs(wb[k], colW-2, st.Diff.Row, st.Diff.Ins)
		lines = append(lines, st.Faint.Render(la)+a+st.Faint.Render(" │ ")+st.Faint.Render(lb)+b)
	}
	return lines
}

// side labels a value's first line ("A ", "B "); its other lines are indented.
func side(label string, line int) string {
	if line == 0 {
		return label
	}
	return "  "
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

// held qualifies a count of the list's changes when the diff holds only some of them.
func (p Model) held() string {
	if p.diff != nil && p.diff.Truncated() {
		return " held"
	}
	return ""
}

func (p Model) statusLine() string {
	st := p.Styles
	switch {
	case p.mode == modeFilter:
		v := p.filter.View() // sized by SetSize; already styled
		if p.asked != p.pattern {
			v += st.Faint.Render("  filtering…")
		} else if p.pattern != "" {
			v += st.Faint.Render(fmt.Sprintf("  %d of %d%s", p.visibleCount(), len(p.diff.Changes), p.held()))
		}
		return v
	case p.status != "":
		return st.Warn.Render(cut(p.status, p.Width))
	case p.pattern != "":
		return st.Faint.Render(cut(fmt.Sprintf("filter %s · %d of %d%s differences · %s clears", p.pattern, p.visibleCount(), len(p.diff.Changes), p.held(), keys.Name(p.keys.ClearFilter)), p.Width))
	case len(p.marked) > 0:
		return st.Faint.Render(cut(fmt.Sprintf("%d selected · %s drafts an exception record for them · %s covers their field patterns in one",
			len(p.marked), p.keys.NewException.Help().Key, p.keys.Cover.Help().Key), p.Width))
	}
	return "" // the workbench's footer lists the keys: the line goes to the list
}
