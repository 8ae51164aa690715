package header

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"kvparity/engine"
	"kvparity/ui/keys"
	"kvparity/ui/text"
	"kvparity/verdict"
)

// SetVerdicts shows the campaign's verdicts (campaignreport.Assess: the report's words).
func (m *Model) SetVerdicts(v *verdict.Verdicts, err error) {
	m.verdicts, m.assessErr, m.pending, m.diffing = v, err, false, false
}

// SetPending says an assessment was asked for: until the first answer the header says so.
func (m *Model) SetPending() { m.pending = true }

// Verdicts is what the header shows (nil before the first assessment).
func (m Model) Verdicts() *verdict.Verdicts { return m.verdicts }

// verdictPhrase renders the verdicts at a level of detail: 3 names every verdict, 2 drops a
// passing footprint, 1 keeps semantic and overall, 0 overall only. The words are never cut.
func (m Model) verdictPhrase(detail int) string {
	st := m.Styles
	if m.assessErr != nil {
		return st.Bad.Render("verdicts unavailable") + st.Faint.Render(" ("+keys.Name(m.keys.Verdicts)+" why)")
	}
	v := m.verdicts
	switch {
	case v == nil && m.pending:
		return st.Faint.Render("assessing…")
	case v == nil:
		return ""
	}
	type part struct {
		label string
		w     verdict.Word
	}
	parts := []part{{"semantic", v.Semantic.Verdict}, {"performance", v.Performance.Verdict}, {"footprint", v.Footprint.Verdict}, {"overall", v.Overall.Verdict}}
	switch detail {
	case 2:
		parts[1].label = "perf"
		if v.Footprint.Verdict != verdict.Fail {
			parts = append(parts[:2], parts[3])
		}
	case 1:
		parts = []part{parts[0], parts[3]}
	case 0:
		parts = parts[3:]
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		word := st.Verdict(p.w)
		switch {
		case p.label == "overall" && m.redeciding(v.Overall):
			word = st.Faint.Render("pending") // the running stage may change it
		case p.label != "overall" && m.decides(p.label):
			word = st.Running.Render("running") // its last word (a BLOCKED one too) is being decided again
		case p.label == "semantic" && m.diffing && !p.w.Decided():
			// Parity failed and the diff the semantic verdict needs is loading: say so, not
			// UNDECIDED beside a diff pane that says FAIL.
			word = st.Running.Render("computing the diff…")
		case p.label == "overall" && m.diffing && !p.w.Decided():
			word = st.Faint.Render("pending")
		}
		out[i] = st.Faint.Render(p.label+" ") + word
	}
	hint := ""
	if !v.Overall.Verdict.Passes() && !m.redeciding(v.Overall) {
		hint = st.Faint.Render(" (" + keys.Name(m.keys.Verdicts) + " why)")
	}
	return strings.Join(out, st.Faint.Render(" · ")) + hint
}

// Reasons is the verdicts overlay's body: every verdict with its reason, wrapped to width,
// in the order stage 8 combines them.
func (m Model) Reasons(width int) string {
	st := m.Styles
	var b strings.Builder
	b.WriteString("VERDICTS (the campaign report's words; " + keys.Name(m.keys.Close) + " closes)\n\n")
	if m.assessErr != nil {
		b.WriteString(st.Bad.Render("the verdicts could not be computed: ") + m.assessErr.Error())
		return b.String()
	}
	v := m.verdicts
	if v == nil {
		b.WriteString("assessing the campaign…")
		return b.String()
	}
	for _, l := range []struct {
		label string
		o     verdict.Outcome
	}{{"overall", v.Overall}, {"semantic", v.Semantic}, {"performance", v.Performance}, {"footprint", v.Footprint},
		{"baseline", v.Determinism.Baseline}, {"candidate", v.Determinism.Candidate}, {"byte parity", v.Parity},
		{"lifecycle evidence", v.Coverage}} {
		head := text.Pad(l.label, 19) + st.Verdict(l.o.Verdict)
		one := text.Pad(l.label, 19) + l.o.Verdict.String() + " — " + l.o.Reason
		switch {
		case l.o.Reason == "":
			b.WriteString(head + "\n")
		case text.Width(one) <= width:
			b.WriteString(head + st.Faint.Render(" — "+l.o.Reason) + "\n")
		default:
			// The reason under its word, wrapped inside the overlay with a hanging indent.
			b.WriteString(head + "\n")
			for _, w := range strings.Split(ansi.Wrap(l.o.Reason, max(20, width-19), " ,;"), "\n") {
				b.WriteString(strings.Repeat(" ", 19) + st.Faint.Render(strings.TrimLeft(w, " ")) + "\n")
			}
		}
	}
	for _, bl := range v.Blocked {
		b.WriteString(st.Bad.Render("blocked ") + bl + "\n")
	}
	fmt.Fprintf(&b, "\nexit status %d (kvparity run --stage all)", v.ExitCode)
	return b.String()
}

// SetRunning says which stage runs ("" for none): while it runs, the verdicts it decides read
// "running" rather than their last word, so a resumed stage is never shown BLOCKED.
func (m *Model) SetRunning(s engine.Stage) { m.running = s }

// decides reports whether the running stage decides the verdict labelled label: the
// determinism stage the semantic verdict, the performance stage performance and footprint.
func (m Model) decides(label string) bool {
	switch m.running {
	case engine.StageDeterminism:
		return label == "semantic"
	case engine.StagePerf:
		return label == "performance" || label == "perf" || label == "footprint"
	}
	return false
}

// redeciding reports whether the overall verdict may change with the running stage: it comes
// from a verdict the stage decides, or from blocks of that stage alone (stage 8's combine words
// its reason "semantic: …", "performance: …" or "blocked: perf: …").
func (m Model) redeciding(o verdict.Outcome) bool {
	if m.running == "" {
		return false
	}
	if o.Verdict.Passes() || !o.Verdict.Decided() {
		return true
	}
	if rest, ok := strings.CutPrefix(o.Reason, "blocked: "); ok {
		for _, b := range strings.Split(rest, "; ") {
			if !strings.HasPrefix(b, string(m.running)+": ") {
				return false
			}
		}
		return true
	}
	head, _, _ := strings.Cut(o.Reason, ":")
	return m.decides(head)
}
