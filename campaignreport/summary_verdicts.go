package campaignreport

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"kvparity/engine"
	"kvparity/report"
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
}

// sumVerdicts is the verdict table, each row with its caveats on the same line: a loaded
// host, BROAD exception records, invalidated pairs.
func sumVerdicts(m *md, r *Report) {
	m.h(3, "Verdicts")
	m.head("question", "verdict", "why")
	// The reason is clipped, never its caveats (each is clipped and their number capped).
	row := func(q, word, why string, caveats ...string) {
		why = mdClip(why, sumCell)
		if len(caveats) > 0 {
			why = strings.TrimSuffix(why, ".") + ".<br>" + strings.Join(caveats, "<br>")
		}
		m.row(q, word, why)
	}
	row("**semantic**", "**"+r.Semantic.Verdict.String()+"**", r.Semantic.Reason, semanticCaveats(r)...)
	row("**performance**", "**"+r.Performance.Verdict.String()+"**", r.Performance.Reason, perfCaveats(r)...)
	row("footprint (growth ≤ 5%)", r.Footprint.Verdict.String(), r.Footprint.Reason)
	row("determinism: baseline", r.Determinism.Baseline.Verdict.String(), r.Determinism.Baseline.Reason)
	row("determinism: candidate", r.Determinism.Candidate.Verdict.String(), r.Determinism.Candidate.Reason)
	row("byte parity", r.Parity.Verdict.String(), r.Parity.Reason)
	row("lifecycle evidence", r.Coverage.Verdict.String(), r.Coverage.Reason)
	row("**overall**", "**"+r.Overall.Verdict.String()+"**", r.Overall.Reason)
	m.blank()
	m.p("Exit status of `kvparity run --stage all` %d; of `--stage determinism` (the semantic verdict alone) %d. The semantic and performance verdicts are independent.", r.ExitCode, r.SemanticExitCode)
	for _, b := range r.Blocked {
		m.blank()
		m.p("> **Blocked** — %s", mdClip(b, 2*sumCell))
	}
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
	if ch.unit == "B" {
		return fmt.Sprintf("%.2f MiB", *v/(1<<20))
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
		{"completed requests", "completed_requests", ""}, {"prefix-cache reuse ratio", "prefix_cache_reused_ratio", ""},
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
