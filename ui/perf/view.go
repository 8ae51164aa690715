package perf

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"kvparity/engine"
	"kvparity/stats"
	"kvparity/ui/text"
)

// View renders the progress line, the diagnostics, the ratio plot and, at the end, the bounds
// and verdict line. Nothing is cut silently: when the plot or lines do not fit, the title says
// so and how to see them.
func (m Model) View() string {
	if m.desk != "" && m.pairsDone == 0 {
		return m.deskView()
	}
	if m.refused != "" && m.pairsDone == 0 && !m.running {
		return m.refusedView()
	}
	var lines []string
	// On a machine too busy for a verdict the plain statement is the headline, before the
	// figures, so a short pane (80×24) still says it whole.
	if b := m.tooBusy(); b != "" {
		for _, l := range text.Wrap(b, m.Width-1, 4, " ") {
			lines = append(lines, " "+m.Styles.Bad.Render(l))
		}
	}
	var final []string
	for _, l := range text.Flow(m.finalParts(), " ", m.Width-1) {
		final = append(final, " "+l)
	}
	for _, l := range text.Flow(m.instructionParts(), " ", m.Width-1) {
		final = append(final, " "+l)
	}
	sep := m.Styles.Faint.Render(" · ")
	// Once the verdict and its bounds stand, the gate and the warmups are said by them: the plot
	// has the line.
	progress := text.Flow(m.progressParts(len(final) > 0 && m.summary.Final), sep, m.Width-1)
	rest := m.busyLines(sep)
	room := m.Height - 1 - len(lines) - len(progress) - len(rest) - len(final)
	// A short pane (the workbench at 100×30) gives the plot the progress line's row when the
	// figures fit in the title beside what runs: a plot of two rows shows little.
	title := ""
	if m.pairsDone > 0 && len(progress) == 1 && room+1 >= minPlotRows && room < roomyPlot {
		if t := m.Title("PERFORMANCE", joinNote(m.note(), progress[0], sep)); text.Width(t) <= m.Width {
			title, progress = t, nil
			room++
		}
	}
	for _, l := range progress {
		lines = append(lines, " "+l)
	}
	lines = append(lines, rest...)
	hidden := ""
	switch {
	case m.pairsDone == 0 && room >= 1:
		lines = append(lines, m.Styles.Faint.Render("  pair ratios (candidate/baseline) are plotted here as pairs arrive"))
	case room >= minPlotRows:
		lines = append(lines, m.plot(m.Width-1, min(room, maxPlotRows))...)
	case m.pairsDone > 0:
		hidden = "plot hidden"
	}
	if room < 0 {
		// Too short for everything: the verdict and its bounds before the diagnostics.
		keep := max(0, m.Height-1-len(final))
		hidden = "+" + text.Plural(len(lines)-keep, "line")
		if m.pairsDone > 0 {
			hidden += ", plot"
		}
		lines = append(lines[:min(keep, len(lines))], final...)
	} else {
		lines = append(lines, final...)
	}
	if title == "" {
		title = m.title(hidden)
	}
	return text.Fit(append([]string{title}, lines...), m.Width, m.Height)
}

// deskView is the pane of a desk row: it is never timed, so it shows no gate to wait for.
func (m Model) deskView() string {
	lines := []string{m.Title("PERFORMANCE", "not timed")}
	say := m.desk + ": not timed. The performance stage and the footprint measure release builds only (init-row --profile release writes that row)."
	for _, l := range text.Wrap(say, m.Width-1, max(1, m.Height-1), " ") {
		lines = append(lines, " "+m.Styles.Warn.Render(l))
	}
	return text.Fit(lines, m.Width, m.Height)
}

// refusedView is the pane while byte parity refuses the stage: no pair will arrive until the
// arm it names is fixed, so it shows why instead of a gate to wait for.
func (m Model) refusedView() string {
	lines := []string{m.Title("PERFORMANCE", "not run")}
	for _, l := range text.Wrap("not run: "+m.refused, m.Width-1, max(1, m.Height-1), " ") {
		lines = append(lines, " "+m.Styles.Warn.Render(l))
	}
	return text.Fit(lines, m.Width, m.Height)
}

// roomyPlot is the room (plot rows and axis) from which the progress figures keep their own
// line: four rows of ratios read as a plot.
const roomyPlot = 5

// joinNote is the title's note followed by more.
func joinNote(note, more, sep string) string {
	if note == "" {
		return more
	}
	return note + sep + more
}

// maxPlotRows bounds the plot's height in a tall (zoomed) pane: more rows add no resolution
// to a few dozen ratios.
const maxPlotRows = 16

// title is the pane's title: what runs now, or what the pane could not show and how to see
// it ("plot hidden: z zooms", "+2 lines, plot: z zooms").
func (m Model) title(hidden string) string {
	note := m.note()
	if hidden != "" {
		more := hidden
		if k := m.zoom.Help().Key; k != "" {
			more += ": " + k + " zooms"
		}
		more = m.Styles.Warn.Render(more)
		if note != "" && text.Width(m.Title("PERFORMANCE", more+" · "+note)) <= m.Width {
			return m.Title("PERFORMANCE", more+" · "+note)
		}
		return m.Title("PERFORMANCE", more)
	}
	return m.Title("PERFORMANCE", note)
}

// busyLines are the busy machine's parts and the diagnostics line.
func (m Model) busyLines(sep string) []string {
	var out []string
	for _, l := range text.Flow(m.busyParts(), sep, m.Width-1) {
		out = append(out, " "+l)
	}
	if d := m.diagnosticsLine(); d != "" {
		out = append(out, " "+d)
	}
	return out
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
// warmups, invalidations, the gate and the timing field. Compact leaves out what a final
// verdict line says anyway (the warmups are done, the gate is its "vs").
func (m Model) progressParts(compact bool) []string {
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
	if e, ok := m.eta(); ok {
		parts = append(parts, e.String())
	}
	if !compact {
		parts = append(parts, w)
	}
	if n := m.invalidated(); n > 0 && len(m.causes) == 0 {
		parts = append(parts, st.Warn.Render(fmt.Sprintf("%s rerun", text.Plural(n, "invalidated pair"))))
	}
	if !compact {
		parts = append(parts, fmt.Sprintf("gate ≤ %.2f", m.threshold))
	}
	if w := m.workPart(); w != "" {
		parts = append(parts, w)
	}
	if m.summary.TimingProxy {
		parts = append(parts, st.Warn.Render("timing "+m.summary.TimingField+" (proxy)"))
	}
	return parts
}

// invalidated is how many pair attempts did not count so far.
func (m Model) invalidated() int { return max(len(m.invalid), m.summary.Invalidated) }

// busyParts say live how hard the machine makes measuring: the pair that took the most
// attempts, the pair being rerun with the attempts it has left, and the invalidations with
// their dominant cause, e.g. "6 attempts for pair 1 · 17 invalidated: competing load on CPU 1".
func (m Model) busyParts() []string {
	st := m.Styles
	n := m.invalidated()
	if n == 0 || len(m.causes) == 0 {
		return nil
	}
	var parts []string
	worst, most := 0, 1
	for p, a := range m.attempts {
		if a > most || (a == most && p < worst) {
			worst, most = p, a
		}
	}
	if worst > 0 {
		parts = append(parts, st.Warn.Render(fmt.Sprintf("%d attempts for pair %d", most, worst)))
	}
	for _, r := range m.live {
		if a := m.attempts[r.Repetition]; r.Kind == engine.KindSample && a > 1 && m.summary.MaxInvalidations > 0 {
			left := m.summary.MaxInvalidations - (a - 1)
			parts = append(parts, fmt.Sprintf("pair %d on attempt %d", r.Repetition, a),
				fmt.Sprintf("%d more invalidations stop the stage", max(left, 0)))
			break
		}
	}
	cs := m.causesByCount()
	what := fmt.Sprintf("%d invalidated: %s", n, cs[0].name)
	if len(cs) > 1 {
		what += fmt.Sprintf(" (%d), %d other", cs[0].n, n-cs[0].n)
	}
	return append(parts, st.Warn.Render(what))
}

// tooBusy is a plain statement when the machine invalidates more pairs than it lets count:
// the verdict would wait on a quiet machine, so the user is told so instead of left waiting.
func (m Model) tooBusy() string {
	n := m.invalidated()
	if m.summary.Final || n < 3 || n <= m.pairsDone {
		return ""
	}
	return fmt.Sprintf("Too busy for a verdict: %d invalidated, %d valid. Quiet the machine, or x and resume later (valid pairs are kept).",
		n, m.pairsDone)
}

// A cause is one invalidation cause and how many pair attempts it invalidated.
type cause struct {
	name string
	n    int
}

// causesByCount lists the invalidation causes, the most frequent first.
func (m Model) causesByCount() []cause {
	var cs []cause
	for c, k := range m.causes {
		cs = append(cs, cause{c, k})
	}
	slices.SortFunc(cs, func(a, b cause) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return strings.Compare(a.name, b.name)
	})
	return cs
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
	switch {
	case s.Final && s.DecidedBy == string(stats.DecidedByBlockMedians) && s.DecidedUpper > 0:
		// The dependence-aware bound decided: show its bounds, not the order statistics the
		// gate did not apply.
		parts = append(parts, fmt.Sprintf("dependence-aware bounds [%s, %s] (%s)", text.Ratio(s.DecidedLower), text.Ratio(s.DecidedUpper), s.DecidedBasis),
			fmt.Sprintf("vs %.2f →", m.threshold))
	case s.Final && s.Upper > 0:
		b := fmt.Sprintf("bounds [%s, %s]", text.Ratio(s.Lower), text.Ratio(s.Upper))
		if s.LowerOrder > 0 {
			b += fmt.Sprintf(" (order stats %d, %d of %d)", s.LowerOrder, s.UpperOrder, s.Done)
		}
		if s.DecidedBy == string(stats.DecidedByNone) {
			b += " not applied"
		}
		parts = append(parts, b, fmt.Sprintf("vs %.2f →", m.threshold))
	}
	parts = append(parts, "perf "+st.Verdict(verdict))
	if reason != "" {
		parts = append(parts, st.Faint.Render(reason))
	}
	return parts
}

// instructionParts is the instruction-count instrument's line: the count ratio and its spread,
// labelled as the secondary measure it is (nothing before it ran).
func (m Model) instructionParts() []string {
	st, in := m.Styles, m.instructions
	switch {
	case m.counting:
		return []string{st.Faint.Render("instructions: counting each arm's timed region under callgrind…")}
	case in.Unavailable != "":
		return []string{st.Faint.Render("instructions: not measured (" + in.Unavailable + ")")}
	case in.Failed != "":
		return []string{st.Warn.Render("instructions: not counted"), st.Faint.Render("(" + in.Failed + "; decides nothing)")}
	case in.Result == nil:
		return nil
	}
	// Small parts, so a narrow pane wraps between them and never cuts "explain".
	r := in.Result
	parts := []string{fmt.Sprintf("instructions ×%.4f", r.Ratio), fmt.Sprintf("±%.3f%%", 100*r.Spread)}
	if r.Explain {
		parts = append(parts, fmt.Sprintf("> %.2f: explain", r.Threshold))
		for i := range parts {
			parts[i] = st.Warn.Render(parts[i])
		}
	}
	return append(parts, st.Faint.Render("(secondary,"), st.Faint.Render("deterministic;"),
		st.Faint.Render(fmt.Sprintf("%d+%d runs;", len(r.Baseline.Counts), len(r.Candidate.Counts))), st.Faint.Render("decides nothing)"))
}

// workPart says whether the timed samples did the work the digest verified: their work
// fingerprints against each arm's canonical run.
func (m Model) workPart() string {
	w, st := m.summary.Work, m.Styles
	switch {
	case w.Measured == 0:
		return ""
	case w.Differs > 0:
		return st.Bad.Render(fmt.Sprintf("work differs: %d/%d", w.Differs, w.Measured))
	case w.Seeded():
		return st.Good.Render(fmt.Sprintf("work = canonical %d/%d", w.Canonical, w.Measured))
	case w.Unchecked > 0:
		return st.Warn.Render(fmt.Sprintf("work unverified: %d/%d no fingerprint", w.Unchecked, w.Measured))
	default:
		return st.Warn.Render(fmt.Sprintf("work = canonical %d/%d (no canonical run)", w.Canonical, w.Measured))
	}
}
