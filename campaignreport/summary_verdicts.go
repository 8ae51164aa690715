package campaignreport

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"kvparity/engine"
	"kvparity/report"
	"kvparity/stats"
	"kvparity/verdict"
)

func sumHead(m *md, r *Report) {
	m.p("## kvparity: row %s — **%s**", mdCode(r.Row), r.Overall.Verdict)
	m.blank()
	var revs []string
	for _, rv := range r.Revisions {
		s := fmt.Sprintf("%s %s", rv.Arm, mdCode(rv.Revision))
		if rv.Source != "" && !strings.Contains(rv.Source, rv.Revision) {
			s += " from " + mdCode(rv.Source)
		}
		if rv.Variant != "" {
			s += " (variant " + mdText(rv.Variant) + ")"
		}
		revs = append(revs, s)
	}
	m.p("%s · trace %s · journal seq %d. The full audit is `report.md` beside this file; every path below is relative to the campaign folder.",
		strings.Join(revs, " → "), mdCode(traceLabel(r.Trace)), r.Journal.LastSeq)
	if r.DeskBuild != "" {
		m.blank()
		m.p("> **%s.** %s", mdText(deskSentence(r)), deskCarry)
	}
}

// sumVerdicts says each verdict a reviewer acts on (semantic, performance, footprint,
// overall) on one line: the verdict, the figure that decided it and one sentence, with a short
// ⚠ tag for each caveat. The evidence (every reason in full, the caveats, determinism, byte
// parity, lifecycle evidence) is folded under <details>, each cell clipped: a load preflight's
// /proc/stat arithmetic never stretches a verdict line.
func sumVerdicts(m *md, r *Report) {
	m.h(3, "Verdicts")
	m.p("- %s", semanticLine(r))
	m.p("- %s", performanceLine(r))
	m.p("- %s", footprintLine(r))
	if line := instructionsLine(r); line != "" {
		m.p("- %s", line)
	}
	m.p("- %s", overallLine(r))
	for _, b := range r.Blocked {
		m.blank()
		m.p("> **Blocked** — %s", mdClip(b, 2*sumCell))
	}
	m.blank()
	m.p("<details><summary>Why: each verdict's reason and caveats, determinism, byte parity, lifecycle evidence</summary>")
	m.blank()
	m.head("question", "verdict", "why")
	// The reason is clipped, never its caveats (each is clipped and their number capped).
	row := func(q, word, why string, caveats ...string) {
		why = mdClip(why, sumCell)
		if len(caveats) > 0 {
			why = strings.TrimSuffix(why, ".") + ".<br>" + strings.Join(caveats, "<br>")
		}
		m.row(q, word, why)
	}
	// The labels and bold words are the verdict table's as before (scripts and the consistency
	// tests read it).
	row("**semantic**", "**"+r.Semantic.Verdict.String()+"**", r.Semantic.Reason, semanticCaveats(r)...)
	row("**performance**", "**"+r.Performance.Verdict.String()+"**", r.Performance.Reason, perfCaveats(r)...)
	row("footprint (growth ≤ 5%)", r.Footprint.Verdict.String(), r.Footprint.Reason)
	row("determinism: baseline", r.Determinism.Baseline.Verdict.String(), r.Determinism.Baseline.Reason)
	row("determinism: candidate", r.Determinism.Candidate.Verdict.String(), r.Determinism.Candidate.Reason)
	row("byte parity", r.Parity.Verdict.String(), r.Parity.Reason)
	row("lifecycle evidence", r.Coverage.Verdict.String(), r.Coverage.Reason)
	row("**overall**", "**"+r.Overall.Verdict.String()+"**", r.Overall.Reason)
	m.blank()
	m.p("The semantic and performance verdicts are independent: a semantic exception never waives a performance regression, and a performance pass never excuses a mismatch.")
	m.blank()
	m.p("</details>")
}

// verdictLine is one verdict as its line says it: "**what: WORD** · figure · sentence ⚠ tags".
func verdictLine(what string, word fmt.Stringer, figure, sentence string, tags ...string) string {
	s := fmt.Sprintf("**%s: %s**", what, word)
	if figure != "" {
		s += " · " + figure
	}
	if sentence != "" {
		s += " · " + sentence
	}
	if len(tags) > 0 {
		s += " " + strings.Join(tags, " ")
	}
	return s
}

// sentenceOf is a reason as a verdict line's sentence: clipped, capitalised, with its stop.
func sentenceOf(reason string) string {
	s := mdClip(strings.TrimSuffix(strings.TrimSpace(reason), "."), 200)
	if s == "" {
		return ""
	}
	if !strings.HasSuffix(s, "…") {
		s += "."
	}
	first, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(first)) + s[size:]
}

// semanticLine: the differing pointers and how the exception records cover them (or the
// digests of an UNSTABLE arm), then the rule that applied.
func semanticLine(r *Report) string {
	s := r.Semantic
	figure, sentence := "", sentenceOf(s.Reason)
	for _, a := range r.Arms {
		if a.Verdict == verdict.Unstable && figure == "" {
			figure = fmt.Sprintf("%s UNSTABLE: %d digests over its counted repetitions", a.Arm, len(a.Digests))
			sentence = "An unstable revision fails the row; exception records never waive leaked entropy."
		}
	}
	switch {
	case figure != "":
	case s.Diff != nil && s.UncoveredN > 0:
		figure = fmt.Sprintf("%d differing pointers, %d covered by no exception record", s.Diff.Count, s.UncoveredN)
		if s.Verdict == verdict.Fail {
			sentence = "An unexplained mismatch fails the row; cover each difference with a reviewed exception record or fix it."
		}
	case s.Diff != nil:
		figure = fmt.Sprintf("%d differing pointers, all covered by %d exception record(s)", s.Diff.Count, len(s.Exceptions))
		if s.Verdict == verdict.PassWithSemanticExceptions {
			sentence = "Every difference is explained by an exception record that names its regression test."
		}
	case len(r.Arms) == 2 && len(r.Arms[0].Digests) == 1 && slices.Equal(r.Arms[0].Digests, r.Arms[1].Digests):
		figure = fmt.Sprintf("0 differing pointers (digest %s on both arms)", mdCode(short(r.Arms[0].Digests[0])))
	}
	var tags []string
	broad := 0
	for _, c := range s.Coverage {
		if c.Broad != "" {
			broad++
		}
	}
	if broad > 0 {
		tags = append(tags, fmt.Sprintf("⚠ %d BROAD exception record(s)", broad))
	}
	return verdictLine("semantic", s.Verdict, figure, sentence, tags...)
}

// performanceLine says the gate as benchstat and hyperfine users read an interval: the
// median ratio, the one-sided bounds at the confidence the stats package computed them for,
// the threshold and the verdict they give.
func performanceLine(r *Report) string {
	p := r.Performance
	res := p.Result
	figure, sentence := "", sentenceOf(p.Reason)
	var tags []string
	if res != nil {
		g, ok := gateOf(res)
		switch {
		case ok:
			figure = fmt.Sprintf("median ratio %s, %s bounds [%s, %s], threshold %s: %s", ratio3(g.Median), g.label(), ratio3(g.Lower), ratio3(g.Upper), ratio3(res.Threshold), p.Verdict)
			switch {
			case p.Verdict == verdict.Pass:
				sentence = fmt.Sprintf("The upper bound is at or below the threshold: the candidate is not slower by more than %s at this confidence.", percentOver(res.Threshold))
			case p.Verdict == verdict.Fail:
				sentence = fmt.Sprintf("The lower bound is above the threshold: the candidate is slower by more than %s at this confidence.", percentOver(res.Threshold))
			case res.Analysis.DecidedBy == stats.DecidedByNone:
				sentence = "The dependence diagnostics breached, so the bounds do not decide (details below)."
			case p.Verdict == verdict.Inconclusive:
				sentence = "The threshold lies between the bounds: more pairs or a quieter host may decide."
			}
		case len(res.Pairs) > 0:
			figure = fmt.Sprintf("median ratio %s of %d valid pairs, no bound yet, threshold %s", ratio3(median(ratiosOf(res))), len(res.Pairs), ratio3(res.Threshold))
		}
		if !strings.HasPrefix(res.Scope, "seeded matched-routing") {
			tags = append(tags, "⚠ timed work not the verified work")
		}
		if n := len(res.Invalidations); n > 0 {
			tags = append(tags, fmt.Sprintf("⚠ %d pair attempt(s) invalidated", n))
		}
	}
	if loadedHost(r) {
		tags = append(tags, "⚠ loaded host")
	}
	return verdictLine("performance", p.Verdict, figure, sentence, tags...)
}

// percentOver is the slowdown a threshold allows, "5%" for 1.05.
func percentOver(threshold float64) string {
	return strconv.FormatFloat(math.Round(1000*(threshold-1))/10, 'f', -1, 64) + "%"
}

// loadedHost says the perf stage's load preflight found the measured CPU busy.
func loadedHost(r *Report) bool {
	var cs []string
	if res := r.Performance.Result; res != nil {
		cs = res.Caveats
	} else if r.LoadPreflight != "" {
		cs = []string{r.LoadPreflight}
	}
	for _, c := range cs {
		if strings.HasPrefix(c, "load preflight") && !strings.Contains(c, ": quiet, ") {
			return true
		}
	}
	return false
}

// footprintLine: the growth of the binary and its .text against the limit.
func footprintLine(r *Report) string {
	f := r.Footprint
	figure, sentence := "", sentenceOf(f.Reason)
	if res := f.Result; res != nil {
		text := "unknown (not ELF)"
		if res.TextKnown {
			text = percent(res.TextGrowth)
		}
		figure = fmt.Sprintf(".text %s, binary %s (limit %s)", text, percent(res.SizeGrowth), strings.TrimPrefix(percentOver(1+res.Limit), "+"))
		switch f.Verdict {
		case verdict.Pass:
			sentence = "Within the growth limit."
		case verdict.Fail:
			sentence = "Growth over the limit fails the row unless the row explains it."
		}
	}
	return verdictLine("footprint", f.Verdict, figure, sentence)
}

// instructionsLine: the instruction-count ratio, said as the secondary measure it is ("" when
// nothing was counted).
func instructionsLine(r *Report) string {
	in := r.Instructions
	if in == nil {
		return ""
	}
	flag := "within " + fmt.Sprintf("%.2f", in.Threshold)
	if in.Explain {
		flag = fmt.Sprintf("**above %.2f: explain the added work**", in.Threshold)
	}
	line := fmt.Sprintf("instructions (secondary, deterministic; decides nothing): ratio %.4f, spread ±%.3f%%, %s", in.Ratio, 100*in.Spread, flag)
	if r.InstructionsFrom != "" {
		line += fmt.Sprintf(" (counted in a job of their own: %s)", mdCode(r.InstructionsFrom+"/"))
	}
	return line
}

// overallLine: which verdicts decided the overall one, and the exit status it gives, said as
// the whole campaign's (a reader seeing "exit 2" beside a passing semantic verdict otherwise
// takes it for that verdict's).
func overallLine(r *Report) string {
	var by []string
	for _, v := range []struct {
		name string
		w    verdict.Word
	}{{"semantic", r.Semantic.Verdict}, {"performance", r.Performance.Verdict}, {"footprint", r.Footprint.Verdict}} {
		if v.w == r.Overall.Verdict {
			by = append(by, v.name)
		}
	}
	figure := fmt.Sprintf("exit status of `kvparity run --stage all` (the whole campaign): %d; of `--stage determinism` (the semantic verdict alone): %d", r.ExitCode, r.SemanticExitCode)
	sentence := "The worst of semantic, performance and footprint (PASS_WITH_SEMANTIC_EXCEPTIONS counts as a pass)"
	if len(by) > 0 && len(by) < 3 {
		sentence += ": here " + joinAnd(by)
	}
	return verdictLine("overall", r.Overall.Verdict, figure, sentence+".")
}

// semanticCaveats says the BROAD exception records and how the records cover the mismatch.
func semanticCaveats(r *Report) []string {
	s := r.Semantic
	var out []string
	var broad []string
	for _, c := range s.Coverage {
		if c.Broad != "" {
			confirmed := "confirmed when saved"
			if !c.ConfirmedBroad {
				confirmed = "**not** confirmed when saved"
			}
			broad = append(broad, fmt.Sprintf("⚠ BROAD exception record %s: it %s (%s).", mdCode(c.ID), mdClip(c.Broad, 160), confirmed))
		}
	}
	out = append(out, capList(broad, sumInline, "BROAD record(s)")...)
	if len(s.Exceptions) > 0 && s.Diff != nil {
		covered := s.Diff.Count - s.UncoveredN
		out = append(out, fmt.Sprintf("%d exception record(s) cover %d of the %d differing pointers.", len(s.Exceptions), covered, s.Diff.Count))
	}
	return out
}

// perfCaveats says a loaded host (the load preflight), the other caveats and the invalidated
// pair attempts.
func perfCaveats(r *Report) []string {
	res := r.Performance.Result
	if res == nil {
		if r.LoadPreflight != "" { // the stage ran (or runs) without a result yet
			return []string{loadCaveat(r.LoadPreflight)}
		}
		return nil
	}
	var loaded, other []string
	for _, c := range res.Caveats {
		if strings.HasPrefix(c, "load preflight") {
			loaded = append(loaded, loadCaveat(c))
		} else {
			other = append(other, "Caveat: "+mdClip(c, 200))
		}
	}
	out := []string{timedWork(res)}
	out = append(out, capList(loaded, sumInline, "load caveat(s)")...)
	out = append(out, capList(other, sumInline, "caveat(s)")...)
	if n := len(res.Invalidations); n > 0 {
		out = append(out, fmt.Sprintf("⚠ %d pair attempt(s) invalidated and rerun (first: pair %d, %s).", n, res.Invalidations[0].Pair, mdClip(res.Invalidations[0].Reason, 160)))
	}
	if n := len(res.Warnings); n > 0 {
		out = append(out, fmt.Sprintf("%d warning(s) in report.md.", n))
	}
	return out
}

// timedWork says what the timed samples simulated (the result's computed scope), marked when it
// is not the work the digest verified.
func timedWork(res *engine.PerfResult) string {
	if strings.HasPrefix(res.Scope, "seeded matched-routing") {
		return "Timed work: " + mdText(res.Scope) + "."
	}
	return "⚠ Timed work: " + mdText(res.Scope) + "."
}

// loadCaveat labels the load preflight's words: a warning unless the CPU was quiet.
func loadCaveat(c string) string {
	if strings.Contains(c, ": quiet, ") {
		return "Host: " + mdClip(c, 300)
	}
	return "⚠ loaded host — " + mdClip(c, 300)
}

// capList keeps the first n items and says how many more there are.
func capList(items []string, n int, what string) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("… %d more %s in report.md.", len(items)-n, what))
}

// A change is one row of the table of what changed: the two arms' values and how to say them.
type change struct {
	label string
	b, c  *float64
	unit  string
	// text overrides the cell of an arm (a count of decisions with its share).
	bText, cText string
	points       bool // the change is in percentage points (a share), not relative
}

func sumChanges(m *md, r *Report) {
	m.h(3, "What changed (baseline → candidate)")
	rows := metricChanges(r)
	m.head("", "baseline", "candidate", "change")
	for _, ch := range rows {
		m.row(ch.label, ch.cell(ch.b, ch.bText), ch.cell(ch.c, ch.cText), ch.delta())
	}
	m.blank()
	m.p("%s", metricsSource(r))
}

func (ch change) cell(v *float64, text string) string {
	switch {
	case text != "":
		return text
	case v == nil:
		return "not recorded"
	}
	switch ch.unit {
	case "B":
		return fmt.Sprintf("%.2f MiB", *v/(1<<20))
	case "ratio":
		return ratio3(*v)
	}
	return inUnit(*v, ch.unit, ch.scale())
}

// scale is the row's largest figure, which picks its unit.
func (ch change) scale() float64 {
	s := 0.0
	for _, v := range []*float64{ch.b, ch.c} {
		if v != nil {
			s = math.Max(s, math.Abs(*v))
		}
	}
	return s
}

func (ch change) delta() string {
	if ch.b == nil || ch.c == nil {
		return "—"
	}
	b, c := *ch.b, *ch.c
	switch {
	case b == c:
		return "no change"
	case ch.points:
		return fmt.Sprintf("%s%.2f pp", sign(c-b), 100*math.Abs(c-b))
	case ch.unit == "ratio" && b == 0:
		return sign(c-b) + ratio3(math.Abs(c-b))
	case ch.unit == "ratio":
		return fmt.Sprintf("%s%s (%s)", sign(c-b), ratio3(math.Abs(c-b)), percent(c/b-1))
	case b == 0:
		return sign(c-b) + inUnit(math.Abs(c-b), ch.unit, ch.scale())
	case ch.unit == "B":
		return fmt.Sprintf("%s%d B (%s)", sign(c-b), int64(math.Abs(c-b)), percent(c/b-1))
	}
	return fmt.Sprintf("%s%s (%s)", sign(c-b), inUnit(math.Abs(c-b), ch.unit, ch.scale()), percent(c/b-1))
}

// percent is a relative change with the same minus sign as the figures.
func percent(x float64) string { return fmt.Sprintf("%s%.2f%%", sign(x), 100*math.Abs(x)) }

func sign(x float64) string {
	if x < 0 {
		return "−"
	}
	return "+"
}

func ptr(v float64) *float64 { return &v }

// metricChanges is the table's rows: the canonical summary's latencies and throughputs,
// preemptions and routing overlap from the lifecycle evidence, the footprint from the
// artifacts and the measured replay time from the performance stage.
func metricChanges(r *Report) []change {
	sum := func(arm int, key string) *float64 {
		if arm >= len(r.Metrics) || r.Metrics[arm].Metrics == nil {
			return nil
		}
		if v, ok := r.Metrics[arm].Metrics.Summary[key]; ok {
			return ptr(v)
		}
		return nil
	}
	var rows []change
	for _, k := range []struct{ label, key, unit string }{
		{"TTFT p50", "median_ttft_ms", "ms"}, {"TTFT p99", "p99_ttft_ms", "ms"},
		{"ITL p50", "median_itl_ms", "ms"}, {"ITL p99", "p99_itl_ms", "ms"},
		{"end-to-end p50", "median_e2e_latency_ms", "ms"}, {"end-to-end p99", "p99_e2e_latency_ms", "ms"},
		{"request throughput", "request_throughput_rps", "req/s"}, {"output throughput", "output_throughput_tok_s", "tok/s"},
		{"completed requests", "completed_requests", ""}, {"prefix-cache reuse ratio", "prefix_cache_reused_ratio", "ratio"},
	} {
		rows = append(rows, change{label: k.label, b: sum(0, k.key), c: sum(1, k.key), unit: k.unit})
	}
	ev := func(arm int) *report.Evidence {
		if arm < len(r.Arms) {
			return r.Arms[arm].Evidence
		}
		return nil
	}
	pre := change{label: "preemptions + retractions", unit: ""}
	ovl := change{label: "routing decisions with overlap > 0", points: true}
	for i, v := range []**float64{&pre.b, &pre.c} {
		if e := ev(i); e != nil {
			*v = ptr(float64(e.PreemptionsTotal + e.RetractionsTotal))
		}
	}
	for i := range 2 {
		e := ev(i)
		if e == nil {
			continue
		}
		dec, pos := 0, 0
		for _, p := range e.Pools {
			dec, pos = dec+p.RoutingDecisions, pos+p.OverlapPositive
		}
		if dec == 0 {
			continue
		}
		share := float64(pos) / float64(dec)
		text := fmt.Sprintf("%.1f%% (%d of %d)", 100*share, pos, dec)
		if i == 0 {
			ovl.b, ovl.bText = ptr(share), text
		} else {
			ovl.c, ovl.cText = ptr(share), text
		}
	}
	if ovl.b == nil {
		ovl.bText = "not recorded"
	}
	if ovl.c == nil {
		ovl.cText = "not recorded"
	}
	rows = append(rows, pre, ovl)
	rows = append(rows, footprintChanges(r)...)
	if in := r.Instructions; in != nil {
		rows = append(rows, change{label: "instructions in the timed region (callgrind, median)", b: ptr(float64(in.Baseline.Median)), c: ptr(float64(in.Candidate.Median))})
	}
	if res := r.Performance.Result; res != nil && len(res.Pairs) > 0 {
		var bs, cs []float64
		for _, p := range res.Pairs {
			bs, cs = append(bs, p.BaselineMs), append(cs, p.CandidateMs)
		}
		rows = append(rows, change{label: fmt.Sprintf("%s (wall, median of %d pairs)", mdText(res.TimingField), len(res.Pairs)), b: ptr(median(bs)), c: ptr(median(cs)), unit: "ms"})
	} else {
		rows = append(rows, change{label: "replay time (wall, performance stage)", bText: "not measured", cText: "not measured"})
	}
	return rows
}

func footprintChanges(r *Report) []change {
	size, text := change{label: "binary size", unit: "B"}, change{label: ".text size", unit: "B"}
	for _, a := range r.Artifacts {
		if !a.Current {
			continue
		}
		s, t := ptr(float64(a.Size)), ptr(float64(a.TextSize))
		if a.Arm == engine.Baseline {
			size.b, text.b = s, t
		} else {
			size.c, text.c = s, t
		}
	}
	return []change{size, text}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// metricsSource says where the table's product metrics come from, and what is missing.
func metricsSource(r *Report) string {
	var from []string
	for _, am := range r.Metrics {
		switch {
		case am.Metrics == nil && am.Counted == 0:
			from = append(from, fmt.Sprintf("%s: no counted repetition yet", am.Arm))
		case am.Metrics == nil:
			from = append(from, fmt.Sprintf("%s: not recorded (its %d counted repetition(s) predate `runs/<id>/%s` and their full reports are deleted)", am.Arm, am.Counted, "metrics.json"))
		case !am.Agree:
			from = append(from, fmt.Sprintf("%s: %s (⚠ its counted repetitions' metrics differ; the first is shown)", am.Arm, mdCode(string(am.Run))))
		default:
			from = append(from, fmt.Sprintf("%s: %s (%d of %d counted repetitions recorded, all the same)", am.Arm, mdCode(string(am.Run)), am.Recorded, am.Counted))
		}
	}
	return "Latencies, throughputs and reuse are the canonical `/summary` of the replay (virtual time: the same in every repetition of a STABLE arm), from " +
		strings.Join(from, "; ") + ". Preemptions and routing overlap are the lifecycle evidence's; sizes the pinned artifacts'; the replay time is the performance stage's measurement."
}
