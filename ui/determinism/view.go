package determinism

import (
	"fmt"
	"strings"

	"kvparity/engine"
	"kvparity/ui/keys"
	"kvparity/ui/text"
	"kvparity/verdict"
)

// Label is the short name of a repetition on screen: "base#1", "cand#2".
func Label(a engine.Arm, index int) string {
	if a == engine.Baseline {
		return fmt.Sprintf("base#%d", index)
	}
	return fmt.Sprintf("cand#%d", index)
}

// View renders the title, one line per repetition (scrolled to keep the cursor visible), and
// the verdict line.
func (m Model) View() string {
	st := m.Styles
	lines := []string{m.title()}
	switch {
	case len(m.reps) == 0 && m.Total() > 0:
		lines = append(lines, st.Faint.Render("  starting the repetitions…"))
	case len(m.reps) == 0:
		lines = append(lines, st.Faint.Render("  no repetitions yet: press "+keys.Name(m.keys.StartDeterminism)+" to start the determinism stage"))
	}
	labelW := 8 // "base#1  ", wider once a line shows its attempt ("base#1·a2 ")
	for _, r := range m.reps {
		labelW = max(labelW, text.Width(LineLabel(r))+1)
	}
	for _, i := range m.shownRows() {
		lines = append(lines, m.repLine(i, labelW))
	}
	if m.Height >= 3 {
		for len(lines) < m.Height-1 {
			lines = append(lines, "")
		}
		lines = append(lines, m.verdictLine())
	}
	return text.Fit(lines, m.Width, m.Height)
}

// title is the title line with its note. When lines are hidden, how many and how to see them
// come first: a pane that cuts a line never does so silently.
func (m Model) title() string {
	progress := m.progressNote()
	hidden := len(m.reps) - len(m.shownRows())
	if hidden <= 0 {
		return m.Title("DETERMINISM", progress)
	}
	more := m.Styles.Warn.Render(fmt.Sprintf("+%d more (%s zooms)", hidden, m.keys.Zoom.Help().Key))
	if progress != "" {
		if full := m.Title("DETERMINISM", more+m.Styles.Faint.Render(" · ")+progress); text.Width(full) <= m.Width {
			return full
		}
	}
	return m.Title("DETERMINISM", more)
}

// preflightNote says how the preflight judged the arms, for the title: "1 CPU/run" when
// both are single-core, the CPU set size both got when one uses more than one core.
func (m Model) preflightNote() string {
	st := m.Styles
	size, failed := 1, false
	if len(m.preflight) == 0 {
		return ""
	}
	for _, p := range m.preflight {
		if p.Error != "" {
			failed = true
		}
		size = max(size, p.CPUsPerRun)
	}
	switch {
	case failed:
		return st.Bad.Render("preflight probe failed")
	case size > 1:
		return st.Warn.Render(fmt.Sprintf("multi-core: %d CPUs/run", size))
	}
	return st.Faint.Render("1 CPU/run")
}

func (m Model) progressNote() string {
	done := 0
	for _, r := range m.reps {
		if r.State == Done && r.Digest != "" && r.Variation == "" {
			done++
		}
	}
	if m.Total() == 0 {
		return ""
	}
	note := fmt.Sprintf("%d/%d digested", done, m.Total())
	if pf := m.preflightNote(); pf != "" {
		note += m.Styles.Faint.Render(" · ") + pf
	}
	return note
}

// LineLabel is a line's label: the repetition ("base#1"), or the perturbed repetition with
// its variations ("cand~all" for the whole set, "cand~tz" for one tried alone, "cand~tz·2"
// for its second try), and its attempt once it was rerun.
func LineLabel(r Repetition) string {
	l := Label(r.Arm, r.Index)
	if r.Variation != "" {
		l = strings.SplitN(Label(r.Arm, 1), "#", 2)[0] + "~"
		switch {
		case r.Variation == "set":
			l += "all"
		case r.Index > 1:
			l += fmt.Sprintf("%s·%d", r.Variation, r.Index)
		default:
			l += r.Variation
		}
	}
	if r.attempts > 1 {
		return l + fmt.Sprintf("·a%d", r.attempts)
	}
	return l
}

func (m Model) repLine(i, labelW int) string {
	st := m.Styles
	r := m.reps[i]
	cursor := "  "
	if i == m.cursor {
		cursor = "▸ "
	}
	label := LineLabel(r)
	var state, rest string
	switch r.State {
	case Running:
		state = st.Running.Render("⟳")
		elapsed := r.elapsed
		if !r.startedAt.IsZero() && !m.now.IsZero() {
			elapsed = max(elapsed, m.now.Sub(r.startedAt))
		}
		switch {
		case r.total > 0 && r.completed >= r.total:
			// every request replayed: the process writes its outputs, then the engine digests
			rest = st.Running.Render("digesting") + fmt.Sprintf("  vt %s %d/%d %s",
				text.VirtualTime(r.virtualMs), r.completed, r.total, text.Dur(elapsed))
		case r.total > 0:
			rest = fmt.Sprintf("%3d%% vt %s %d/%d %s", 100*r.completed/r.total,
				text.VirtualTime(r.virtualMs), r.completed, r.total, text.Dur(elapsed))
		default:
			rest = "running  " + text.Dur(elapsed)
		}
	case Done:
		state = st.Good.Render("✓")
		if _, differs := m.differsFrom(r); differs {
			state = st.Bad.Render("≠") // it disagrees with its arm: never a check mark
		}
		rest = m.digest(r) + "  " + text.Dur(r.elapsed)
		if r.Digest == "" { // the process ended; its report is being canonicalized and digested
			state = st.Running.Render("⟳")
			rest = st.Running.Render("digesting") + "  " + text.Dur(r.elapsed)
		}
		if r.fixedPoint != "" {
			rest += "  " + st.Warn.Render("not canonical at "+r.fixedPoint)
		}
	case Failed:
		state = st.Bad.Render("✗")
		rest = st.Bad.Render(r.err)
	case Killed:
		state = st.Warn.Render("■")
		rest = st.Warn.Render(r.err)
	}
	line := cursor + text.Pad(label, labelW) + state + " " + rest
	if i == m.cursor {
		sel := st.SelectedDim
		if m.Focused() {
			sel = st.Selected
		}
		return sel.Render(text.Pad(text.Trunc(line, m.Width), m.Width))
	}
	return line
}

// digest renders a repetition's digest head; one that differs from another repetition of its
// arm names it, since that is an entropy leak the user must see at a glance.
func (m Model) digest(r Repetition) string {
	st := m.Styles
	if r.Digest == "" {
		return st.Faint.Render("(no digest yet)")
	}
	d := text.Short(r.Digest, 6)
	if o, differs := m.differsFrom(r); differs {
		return st.Bad.Render(d + " ≠" + LineLabel(o))
	}
	return st.Accent.Render(d)
}

func (m Model) verdictLine() string {
	st := m.Styles
	var parts []string
	for _, a := range []engine.Arm{engine.Baseline, engine.Candidate} {
		name := "base"
		if a == engine.Candidate {
			name = "cand"
		}
		v := m.verdicts[a]
		if v.Verdict == "" {
			parts = append(parts, name+" "+st.Faint.Render("–"))
			continue
		}
		w := name + " " + st.Verdict(v.Verdict)
		if v.Finding != "" {
			w += " " + st.Bad.Render("("+v.Finding+")")
		}
		parts = append(parts, w)
	}
	p := "parity " + st.Faint.Render("–")
	if m.parity.Verdict != "" {
		p = "parity " + st.Verdict(m.parity.Verdict)
		if m.parity.Verdict != verdict.Pass && m.parity.Reason != "" {
			p += " " + st.Faint.Render(m.parity.Reason)
		}
	}
	parts = append(parts, p)
	return " " + strings.Join(parts, st.Faint.Render(" · "))
}
