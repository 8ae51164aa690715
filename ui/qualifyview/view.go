package qualifyview

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"kvparity/engine/qualify"
	"kvparity/ui/keys"
	"kvparity/ui/text"
)

// now is the clock the running probe's age is read from (tests fix it).
var now = time.Now

// The table's columns (cells).
var columns = []struct {
	title string
	width int
}{{"#", 4}, {"PURPOSE", 10}, {"ARM", 10}, {"BLOCKS", 8}, {"PRESSURE", 16}, {"CLASS", 9}, {"READMITTED", 11}, {"COMPLETED", 11}, {"VIRTUAL END", 12}, {"TIME", 8}}

// fixedLines are the lines around the table: title, column header, running, ladder, two of
// outcome, footer.
const fixedLines = 7

// tableRows is how many probes the table shows.
func (m Model) tableRows() int { return max(m.height-fixedLines, 1) }

// render draws the view into a w×h box; a pure read of the model.
func (m Model) render(w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	st := m.Styles
	s := m.state
	title := " " + st.HeaderBrand.Render("QUALIFY") + " " + st.Faint.Render(orDots(s.Row))
	if r := s.Start; r != nil {
		title += " " + st.Faint.Render(fmt.Sprintf("· %s from %d · band %s · step %d", r.Flag, r.Seed, r.Band, r.Step))
	}
	var head strings.Builder
	for _, c := range columns {
		head.WriteString(cell(c.title, c.width))
	}
	lines := []string{title, st.Faint.Render(" " + head.String())}

	rows := m.tableRows()
	top := min(m.top, max(len(s.Probes)-rows, 0))
	for i := top; i < min(top+rows, len(s.Probes)); i++ {
		lines = append(lines, " "+m.probeLine(i+1, s.Probes[i]))
	}
	for len(lines) < 2+rows {
		lines = append(lines, "")
	}

	switch {
	case s.Running != "":
		age := now().Sub(s.Since).Round(time.Second)
		lines = append(lines, " "+st.Running.Render("▸ probing "+s.Running)+st.Faint.Render(fmt.Sprintf(" · %s", age)))
	case s.Result != nil || m.done != nil:
		lines = append(lines, " "+st.Faint.Render("search over · "+text.Plural(len(s.Probes), "probe")))
	default:
		lines = append(lines, " "+st.Faint.Render("preparing the arms…"))
	}
	lines = append(lines, " "+st.Faint.Render("ladder ")+m.ladder())
	lines = append(lines, m.outcome(w)...)
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	return text.Fit(append(lines[:h-1], m.footer()), w, h)
}

// probeLine is one probe of the table.
func (m Model) probeLine(n int, p qualify.Probe) string {
	readm, done, vend := "-", "-", "-"
	if l := p.Lifecycle; l != nil {
		readm = fmt.Sprintf("%d/%d", l.Readmitted, p.Count)
		done = fmt.Sprintf("%d/%d", l.Completed, l.Requests)
		vend = fmt.Sprintf("%.0f ms", l.VirtualEndMs)
	}
	pressure := "-"
	if p.Kind != "" {
		pressure = fmt.Sprintf("%d %s", p.Count, p.Kind)
	}
	el := time.Duration(p.ElapsedMs * float64(time.Millisecond)).Round(10 * time.Millisecond).String()
	if p.Reused {
		el = "recorded"
	}
	vals := []string{fmt.Sprint(n), p.Purpose, string(p.Arm), fmt.Sprint(p.Capacity), pressure, string(p.Class), readm, done, vend, el}
	var b strings.Builder
	for i, c := range columns {
		v := cell(vals[i], c.width)
		if i == 5 {
			v = m.classStyle(p.Class).Render(v)
		}
		b.WriteString(v)
	}
	return b.String()
}

func (m Model) classStyle(c qualify.Class) lipgloss.Style {
	st := m.Styles
	switch c {
	case qualify.InBand:
		return st.Good
	case qualify.Flood, qualify.Stalled, qualify.Broken:
		return st.Bad
	case qualify.Above:
		return st.Warn
	}
	return st.Faint
}

// ladder is the baseline's probes by capacity: ▲ too much pressure, ● in band, ▼ too little,
// ✕ a flood or a stall.
func (m Model) ladder() string {
	var ps []qualify.Probe
	for _, p := range m.state.Probes {
		if p.Arm == "baseline" && !slices.ContainsFunc(ps, func(q qualify.Probe) bool { return q.Capacity == p.Capacity }) {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return m.Styles.Faint.Render("no probe yet")
	}
	slices.SortFunc(ps, func(a, b qualify.Probe) int { return a.Capacity - b.Capacity })
	var parts []string
	for _, p := range ps {
		mark := map[qualify.Class]string{qualify.Above: "▲", qualify.InBand: "●", qualify.Below: "▼", qualify.Flood: "✕", qualify.Stalled: "✕", qualify.Broken: "✕"}[p.Class]
		v := fmt.Sprintf("%d %s%d", p.Capacity, mark, p.Count)
		if p.Class == qualify.Stalled {
			v = fmt.Sprintf("%d %sstall", p.Capacity, mark)
		}
		parts = append(parts, m.classStyle(p.Class).Render(v))
	}
	return strings.Join(parts, m.Styles.Faint.Render(" · "))
}

// outcome is two lines: the outcome word and its reason (cut to the width), or the end's exit
// status without a result.
func (m Model) outcome(w int) []string {
	st := m.Styles
	r := m.state.Result
	if r == nil {
		if d := m.done; d != nil {
			return []string{" " + st.Bad.Render(fmt.Sprintf("qualification ended without a result (exit %d): see stderr", d.Code)), ""}
		}
		return []string{"", ""}
	}
	word := st.Warn
	switch r.Outcome {
	case qualify.Qualified:
		word = st.Good
	case qualify.Unstable, qualify.RuleFailed:
		word = st.Bad
	}
	why := r.Why
	first, rest := text.Trunc(why, w-len(r.Outcome)-4), ""
	if text.Width(why) > w-len(r.Outcome)-4 {
		cut := lastSpace(why, w-len(r.Outcome)-4)
		first, rest = why[:cut], strings.TrimSpace(why[cut:])
	}
	return []string{" " + word.Render(r.Outcome) + ": " + first, "   " + rest}
}

// lastSpace is the byte offset of the last space at or before n cells (n when none).
func lastSpace(s string, n int) int {
	cut := 0
	for i, r := range s {
		if text.Width(s[:i]) > n {
			break
		}
		if r == ' ' {
			cut = i
		}
	}
	if cut == 0 {
		return min(n, len(s))
	}
	return cut
}

func (m Model) footer() string {
	arrow := func(b key.Binding) string { a, _, _ := strings.Cut(b.Help().Key, "/"); return a }
	hint := fmt.Sprintf(" %s/%s scroll", arrow(m.Keys.Up), arrow(m.Keys.Down))
	if m.Standalone {
		hint += " · " + keys.Name(m.Keys.Quit) + " quit"
		if m.done == nil {
			hint += " (the recorded probes are reused next time)"
		}
	}
	return m.Styles.Footer.Render(hint)
}

func cell(s string, w int) string { return text.Pad(text.Trunc(s, w-1), w) }

func orDots(s string) string {
	if s == "" {
		return "…"
	}
	return s
}
