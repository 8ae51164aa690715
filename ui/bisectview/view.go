package bisectview

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"

	"kvparity/bisect"
	"kvparity/ui/keys"
	"kvparity/ui/text"
)

// Column widths (cells); the subject takes two fifths of what is left, the detail the rest.
const (
	colSHA   = 14
	colState = 10
)

// subjectWidth is the subject column's width in a w-cell line.
func subjectWidth(w int) int { return min(max((w-3-colSHA-colState)*2/5, 16), 44) }

// render draws the view into a w×h box: a title line, a column header, the commits newest
// first (the good ref last; a bar marks the range the first bad commit can still be in), the
// selected commit's details, the bisect's end when it came, a note and the key hint line. It
// is a pure read of the model.
func (m Model) render(w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	st := m.Styles
	s := m.state
	if s.Started == nil {
		lines := []string{" " + st.HeaderBrand.Render("BISECT") + " " + st.Faint.Render("reading the history…")}
		if d := m.done; d != nil && d.Err != nil {
			lines = append(lines, " "+st.Bad.Render("bisect refused: "+d.Err.Error()))
		}
		return text.Fit(append(lines, m.footer()), w, h)
	}
	b := s.Started
	left := fmt.Sprintf("≤%s left", text.Plural(s.Range.Left, "probe"))
	if m.done != nil || s.Range.FirstBad >= 0 && s.Range.Left == 0 {
		left = "search over"
	}
	// Most telling first: a narrow terminal cuts the row's name, not the search's progress.
	title := " " + st.HeaderBrand.Render("BISECT") + " " + st.Faint.Render(fmt.Sprintf("%s · %s · %s %s..%s · judge %s · %s",
		text.Plural(s.Steps, "step"), left, text.Plural(len(b.Commits), "commit"), b.Good.Short(), b.Commits[len(b.Commits)-1].Short(), b.Judge, b.Row))
	lines := []string{title, st.Faint.Render("   " + cell("COMMIT", colSHA) + cell("STATE", colState) + cell("SUBJECT", subjectWidth(w)) + "DETAIL")}

	detail := m.details(w)
	end := m.endLines(w)
	body := h - 3 - len(detail) - len(end) // title, header, footer
	if m.note != "" {
		body--
	}
	n := len(s.Commits) + 1 // the good ref's line last
	first := 0
	if m.cursor >= body && body > 0 {
		first = m.cursor - body + 1 // keep the selection on screen
	}
	for i := first; i < n && i < first+max(body, 0); i++ {
		lines = append(lines, m.line(i, w))
	}
	for len(lines) < 2+max(body, 0) {
		lines = append(lines, "")
	}
	lines = append(lines, detail...)
	lines = append(lines, end...)
	if m.note != "" {
		lines = append(lines, " "+st.Warn.Render(m.note))
	}
	return text.Fit(append(lines, m.footer()), w, h)
}

// line renders list line i (0 the newest commit, len(Commits) the good ref).
func (m Model) line(i, w int) string {
	st := m.Styles
	s := m.state
	n := len(s.Commits)
	var c commitLine
	idx := -1 // index in Commits (oldest first); -1 the good ref
	if i == n {
		c = s.Good
	} else {
		idx = n - 1 - i
		c = s.Commits[idx]
	}
	word, detail := m.describe(c, idx)
	gutter := " "
	if idx >= 0 && idx > s.Range.LastGood && (s.Range.FirstBad < 0 || idx <= s.Range.FirstBad) {
		gutter = "┃" // where the first bad commit can still be
	}
	marker := "  "
	if i == m.cursor {
		marker = "▸ "
	}
	line := marker + gutter + cell(c.Commit.Short(), colSHA) + word + cell(c.Commit.Subject, subjectWidth(w)) + detail
	if i == m.cursor {
		return st.Selected.Render(text.Pad(text.Trunc(text.StripColour(line), w), w))
	}
	return text.Trunc(line, w)
}

// describe is a commit's state cell (padded, styled) and its detail.
func (m Model) describe(c commitLine, idx int) (string, string) {
	st := m.Styles
	s := m.state
	state := func(word string, style func(...string) string) string { return style(cell(word, colState)) }
	switch {
	case c.Step != nil:
		style := map[bisect.Outcome]func(...string) string{bisect.Good: st.Good.Render, bisect.Bad: st.Bad.Render, bisect.Skip: st.Warn.Render}[c.Step.Outcome]
		if style == nil {
			style = st.Faint.Render
		}
		word := string(c.Step.Outcome)
		if m.isFirstBad(c) {
			word = "FIRST BAD"
		}
		return state(word, style), c.Step.Why
	case c.Phase == bisect.PhaseBuilding:
		return state("building", st.Running.Render), buildDetail(c)
	case c.Phase == bisect.PhaseRunning:
		return state("running", st.Running.Render), m.runDetail(c)
	case idx < 0:
		detail := "every probe's baseline"
		switch {
		case c.Build == "cached":
			detail += " · cached build"
		case c.Elapsed > 0:
			detail += " · built in " + text.Dur(c.Elapsed)
		}
		return state("good ref", st.Good.Render), detail
	case idx <= s.Range.LastGood:
		return state("(good)", st.Faint.Render), st.Faint.Render("before a good commit")
	case s.Range.FirstBad >= 0 && idx > s.Range.FirstBad:
		return state("(bad)", st.Faint.Render), st.Faint.Render("after a bad commit")
	}
	return state("·", st.Faint.Render), ""
}

// isFirstBad says c is the result's first bad commit (a bisect that found it).
func (m Model) isFirstBad(c commitLine) bool {
	d := m.done
	return d != nil && d.Result != nil && d.Result.Status == bisect.StatusFound && d.Result.FirstBad != nil && d.Result.FirstBad.SHA == c.Commit.SHA
}

// buildDetail is a building commit's detail: the build's phase, units and crate, its time.
func buildDetail(c commitLine) string {
	parts := []string{c.Build}
	if c.Build == "" {
		parts[0] = "starting"
	}
	if c.Units > 0 {
		parts = append(parts, text.Plural(c.Units, "unit"))
	}
	if c.Crate != "" && c.Build == "compiling" {
		name, _, _ := strings.Cut(c.Crate, " (") // "dynamo-bench v1.5.1 (/path/of/the/member)"
		parts = append(parts, name)
	}
	if c.Elapsed > 0 {
		parts = append(parts, text.Dur(c.Elapsed))
	}
	return strings.Join(parts, " · ")
}

// runDetail is a running probe's detail: the verdicts so far, the runs, the pairs measured.
func (m Model) runDetail(c commitLine) string {
	st := m.Styles
	var parts []string
	for _, d := range c.Verdicts {
		parts = append(parts, d.What+" "+st.Verdict(d.Verdict))
	}
	if c.Pairs > 0 {
		parts = append(parts, fmt.Sprintf("perf %d/%d pairs", c.Pair, c.Pairs))
	}
	runs := text.Plural(c.Runs, "run") + " done"
	if c.Run != "" {
		runs += " · " + string(c.Run)
	}
	return strings.Join(append(parts, runs), " · ")
}

// details are the selected commit's lines under the list: a rule, what it is, why it was
// judged so (or what it is doing), its build and its probe campaign.
func (m Model) details(w int) []string {
	st := m.Styles
	c, ok := m.selected()
	if !ok {
		return nil
	}
	out := []string{st.Faint.Render(strings.Repeat("─", w))}
	head := " " + st.Accent.Render(c.Commit.SHA)
	if c.Commit.AuthorDate != "" {
		head += st.Faint.Render(" · " + c.Commit.AuthorDate)
	}
	out = append(out, head+" "+c.Commit.Subject)
	switch {
	case c.Step != nil:
		out = append(out, text.Wrap(" "+c.Step.Why, w, 2, " ")...)
		out = append(out, " "+st.Faint.Render(stepWhere(*c.Step, m.state.Started.Dir)))
	case c.Phase == bisect.PhaseBuilding:
		out = append(out, " building its candidate: "+buildDetail(c))
	case c.Phase == bisect.PhaseRunning:
		out = append(out, " running its probe campaign: "+m.runDetail(c))
	case c.Commit.SHA == m.state.Good.Commit.SHA:
		out = append(out, " the good ref: every probe's baseline, built once")
	default:
		out = append(out, st.Faint.Render(" not probed"))
	}
	return out
}

// stepWhere is a judged step's build and probe campaign in words.
func stepWhere(s bisect.Step, dir string) string {
	build := "not built"
	if b := s.Build; b != nil {
		build = fmt.Sprintf("built in %.0f s", b.Seconds)
		switch {
		case b.Cached:
			build = "cached build"
		case b.Incremental:
			build += fmt.Sprintf(", incremental (%s, %s)", text.Plural(b.ChangedFiles, "file"), text.Plural(b.Units, "unit"))
		}
	}
	w := fmt.Sprintf("step %d · %s · probe %.0f s", s.N, build, s.Seconds)
	if s.Campaign != "" {
		w += " · " + dir + "/" + s.Campaign + " (enter opens it)"
	}
	return w
}

// endLines are the bisect's end: the result's status and reason, the first bad commit and
// its diff stat; or why it stopped.
func (m Model) endLines(w int) []string {
	st := m.Styles
	d := m.done
	if d == nil {
		return nil
	}
	if d.Result == nil {
		msg := " bisect stopped"
		if d.Err != nil {
			msg += ": " + d.Err.Error()
		}
		var out []string
		for _, l := range text.Wrap(msg, w, 2, " ") {
			out = append(out, st.Warn.Render(l))
		}
		return append(out, " "+st.Faint.Render("the recorded steps are kept: the same command resumes"))
	}
	r := d.Result
	style := map[string]func(...string) string{bisect.StatusFound: st.Bad.Render, bisect.StatusNotReproduced: st.Good.Render}[r.Status]
	if style == nil {
		style = st.Warn.Render
	}
	reason := r.Reason
	if r.Status == bisect.StatusFound && r.FirstBad != nil && r.LastGood != nil {
		// The first bad commit's why is in its details above: the end says what was found.
		reason = fmt.Sprintf("%s is the first bad commit, %s before it is good", r.FirstBad.Short(), r.LastGood.Short())
	}
	reason += fmt.Sprintf(" · %s, %s compiled", text.Plural(len(r.Steps), "probe"), text.Plural(r.Builds, "build"))
	out := text.Wrap(" "+r.Status+": "+reason, w, 2, " ")
	out[0] = " " + style(r.Status) + strings.TrimPrefix(out[0], " "+r.Status)
	if c := r.FirstBad; c != nil && r.Status == bisect.StatusFound {
		stat := c.DiffStat
		if i := strings.LastIndex(stat, "\n"); i >= 0 {
			stat = stat[i+1:]
		}
		out = append(out, text.Trunc(" first bad "+st.Accent.Render(c.Short())+" "+c.Subject+st.Faint.Render(" · "+strings.TrimSpace(stat)), w))
	}
	if dg := r.Diagnosis; dg != nil {
		// Good vs first bad in brief: where the reports first part and the leading cause;
		// enter on the first bad commit opens the whole diagnosis.
		var parts []string
		if dg.First != nil {
			parts = append(parts, "first divergence "+dg.First.Text)
		}
		if len(dg.Causes) > 0 {
			parts = append(parts, fmt.Sprintf("cause: %s (%d of %d)", dg.Causes[0].Label, dg.Causes[0].Explains, dg.Causes[0].Of))
		}
		if len(parts) > 0 {
			out = append(out, text.Trunc(" "+strings.Join(parts, " · "), w))
		}
	}
	return out
}

func (m Model) footer() string {
	arrow := func(b key.Binding) string { a, _, _ := strings.Cut(b.Help().Key, "/"); return a } // "↑" of "↑/k"
	hint := fmt.Sprintf(" %s/%s select · %s open probe", arrow(m.Keys.Up), arrow(m.Keys.Down), keys.Name(m.Keys.Open))
	if m.Standalone {
		hint += " · " + keys.Name(m.Keys.Quit) + " quit"
		if m.done == nil {
			hint += " (the bisect resumes next time)"
		}
	}
	return m.Styles.Footer.Render(hint)
}

func cell(s string, w int) string { return text.Pad(text.Trunc(s, w-1), w) }
