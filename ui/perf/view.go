package perf

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"kvparity/engine"
	"kvparity/ui/text"
)

// View renders the progress line, the diagnostics, the ratio plot and, at the end, the bounds
// and verdict line.
func (m Model) View() string {
	lines := []string{m.Title("PERFORMANCE", m.note())}
	sep := m.Styles.Faint.Render(" · ")
	for _, l := range text.Flow(m.progressParts(), sep, m.Width-1) {
		lines = append(lines, " "+l)
	}
	if d := m.diagnosticsLine(); d != "" {
		lines = append(lines, " "+d)
	}
	var final []string
	for _, l := range text.Flow(m.finalParts(), " ", m.Width-1) {
		final = append(final, " "+l)
	}
	room := m.Height - len(lines) - len(final)
	switch {
	case m.pairsDone == 0 && room >= 1:
		lines = append(lines, m.Styles.Faint.Render("  pair ratios (candidate/baseline) are plotted here as pairs arrive"))
	case room >= 2:
		lines = append(lines, m.plot(m.Width-1, room)...)
	}
	if room < 0 {
		// Too short for everything: the verdict and its bounds before the diagnostics.
		lines = append(lines[:max(1, m.Height-len(final))], final...)
		return text.Fit(lines, m.Width, m.Height)
	}
	lines = append(lines, final...)
	return text.Fit(lines, m.Width, m.Height)
}

func (m Model) note() string {
	for _, r := range m.live {
		what := fmt.Sprintf("warmup %d %s", r.Repetition, r.Arm)
		if r.Kind == engine.KindSample {
			what = fmt.Sprintf("pair %d %s", r.Repetition, r.Arm)
		}
		if p, ok := m.progress[r.Run]; ok && p.Total > 0 {
			what += fmt.Sprintf(" %d%%", 100*p.Completed/p.Total)
		}
		if !m.now.IsZero() && !r.At.IsZero() {
			what += " " + text.Dur(m.now.Sub(r.At))
		}
		return "⟳ " + what
	}
	if m.running {
		return "running"
	}
	return ""
}

// progressParts are the progress figures, key ones first: pairs, the median ratio, then
// warmups, invalidations, the gate and the timing field.
func (m Model) progressParts() []string {
	st := m.Styles
	// The engine's summary counts warmups per arm; before its first summary, count samples.
	done, total := m.warmupsDone, m.warmupTotal
	if m.summary.WarmupsTotal > 0 {
		done, total = 2*m.summary.WarmupsDone, 2*m.summary.WarmupsTotal
	}
	w := fmt.Sprintf("warmups %d/%d", done, total)
	if total > 0 && done >= total {
		w = "warmups done"
	}
	parts := []string{fmt.Sprintf("pairs %d/%d", m.pairsDone, m.pairsTotal)}
	med := m.summary.Median
	if med == 0 {
		med = m.runningMedian()
	}
	if !math.IsNaN(med) && med > 0 {
		parts = append(parts, "median "+st.Accent.Render(text.Ratio(med)))
	}
	parts = append(parts, w)
	if n := max(len(m.invalid), m.summary.Invalidated); n > 0 {
		parts = append(parts, st.Warn.Render(fmt.Sprintf("%s rerun", text.Plural(n, "invalidated pair"))))
	}
	parts = append(parts, fmt.Sprintf("gate ≤ %.2f", m.threshold))
	if m.summary.TimingProxy {
		parts = append(parts, st.Warn.Render("timing "+m.summary.TimingField+" (proxy)"))
	}
	return parts
}

// runningMedian is the median of the pairs in so far, for before the engine's first summary.
func (m Model) runningMedian() float64 {
	var in []float64
	for _, r := range m.ratios {
		if !math.IsNaN(r) {
			in = append(in, r)
		}
	}
	if len(in) == 0 {
		return math.NaN()
	}
	slices.Sort(in)
	if len(in)%2 == 1 {
		return in[len(in)/2]
	}
	return (in[len(in)/2-1] + in[len(in)/2]) / 2
}

// diagnosticsLine shows every dependence diagnostic with its statistic and threshold. When
// that does not fit the pane, breaches come first, spelled out, and the rest are counted, so a
// breach is never the part that gets cut.
func (m Model) diagnosticsLine() string {
	st := m.Styles
	var all, notOK []string
	ok, pending := 0, 0
	for _, d := range m.summary.Diagnostics {
		if d.Outcome == "not computable" {
			all = append(all, d.Name+" "+st.Faint.Render("not computable yet"))
			pending++
			continue
		}
		breached := d.Breached || d.Outcome == "breached"
		mark := st.Good.Render("ok")
		if breached {
			mark = st.Bad.Render("breached")
		}
		all = append(all, fmt.Sprintf("%s %.3f %s %s", d.Name, d.Statistic, region(d, breached), mark))
		if breached {
			notOK = append(notOK, st.Bad.Render("breached")+fmt.Sprintf(" %s %.3f %s", d.Name, d.Statistic, region(d, true)))
		} else {
			ok++
		}
	}
	sep := st.Faint.Render(" · ")
	full := strings.Join(all, sep)
	if text.Width(full) <= m.Width-1 || len(all) == 0 {
		return full
	}
	tail := fmt.Sprintf("dependence: %d ok", ok)
	if len(notOK) > 0 {
		tail = fmt.Sprintf("%d ok", ok)
	}
	if pending > 0 {
		tail += fmt.Sprintf(", %d not computable yet", pending)
	}
	return strings.Join(append(notOK, tail), sep)
}

// region relates a diagnostic's statistic to its predeclared acceptance region: "≤ 0.30" or
// "in [-0.20, 0.20]" when it is accepted, "> 0.30" or "outside [-0.20, 0.20]" when breached.
func region(d engine.Diagnostic, breached bool) string {
	in, out := "≤", ">"
	limit := d.Threshold
	switch {
	case d.OneSided:
		limit = d.High
	case d.Low != 0 || d.High != 0:
		if breached {
			return fmt.Sprintf("outside [%.2f, %.2f]", d.Low, d.High)
		}
		return fmt.Sprintf("in [%.2f, %.2f]", d.Low, d.High)
	}
	if breached {
		return fmt.Sprintf("%s %.2f", out, limit)
	}
	return fmt.Sprintf("%s %.2f", in, limit)
}

// finalParts are the bounds, the verdict and its reason, each whole (Flow wraps between them).
func (m Model) finalParts() []string {
	st := m.Styles
	s := m.summary
	verdict, reason := m.verdict.Verdict, m.verdict.Reason
	if verdict == "" && s.Final {
		verdict, reason = s.Verdict, s.Reason
	}
	if verdict == "" {
		return nil
	}
	var parts []string
	if s.Final && s.Upper > 0 {
		b := fmt.Sprintf("bounds [%s, %s]", text.Ratio(s.Lower), text.Ratio(s.Upper))
		if s.LowerOrder > 0 {
			b += fmt.Sprintf(" (order stats %d, %d of %d)", s.LowerOrder, s.UpperOrder, s.Done)
		}
		parts = append(parts, b, fmt.Sprintf("vs %.2f →", m.threshold))
	}
	parts = append(parts, "perf "+st.Verdict(verdict))
	if reason != "" {
		parts = append(parts, st.Faint.Render(reason))
	}
	return parts
}
