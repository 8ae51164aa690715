package campaignreport

import (
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"kvparity/engine"
	"kvparity/engine/instrument"
	"kvparity/internal/layout"
	"kvparity/report"
)

// pressureBinsN is how many slices of virtual time the pressure plot has.
const pressureBinsN = 48

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (m *md) lifecycle(r *Report) {
	m.h(2, "Lifecycle evidence")
	m.p("Stage 3 asks every frozen configuration to prove its paths from coverage counters, not from completion. %s.", mdText(r.Coverage.Reason))
	for _, a := range r.Arms {
		ev := a.Evidence
		m.h(3, fmt.Sprintf("%s (from %s)", a.Arm, mdCode(string(a.EvidenceRun))))
		if ev == nil {
			m.p("No lifecycle evidence was recorded for this arm.")
			continue
		}
		agree := "every counted repetition recorded the same evidence"
		if !a.EvidenceAgree {
			agree = "**the counted repetitions recorded different evidence**"
		}
		m.p("%s %s, %d requests, virtual time %s to %s; %s.", mdText(ev.Engine), mdText(ev.Topology), ev.Requests, vtime(ev.VirtualStartMs), vtime(ev.VirtualEndMs), agree)
		m.blank()
		if ev.Unrecorded != "" {
			m.p("Not recorded: %s.", mdText(ev.Unrecorded))
		} else {
			m.head("pool", "route decisions", "overlap > 0", "immediate", "queued", "admissions", "readmissions", "pressure events", "readmitted", "requests with reuse", "workers")
			for _, p := range ev.Pools {
				m.row(mdText(p.Pool), fmt.Sprint(p.RoutingDecisions), fmt.Sprint(p.OverlapPositive), fmt.Sprint(p.Immediate), fmt.Sprint(p.Queued),
					fmt.Sprint(p.Admissions), fmt.Sprint(p.Readmissions), fmt.Sprint(p.PressureEvents), fmt.Sprint(p.PressureReadmitted),
					fmt.Sprint(p.RequestsWithReuse), strings.Trim(fmt.Sprint(p.Workers), "[]"))
			}
		}
		m.blank()
		if ev.Unrecorded == "" {
			m.p("- pressure: %d preemption(s), %d retraction(s); band %d–%d", ev.PreemptionsTotal, ev.RetractionsTotal, ev.PressureBand[0], ev.PressureBand[1])
		}
		if h := ev.Handoffs; h != nil {
			m.p("- handoff: %d requests through both pools, %d complete, %d in order; observed %s, expected %s", h.Requests, h.Complete, h.InOrder, mdText(h.Order), mdText(h.Expected))
		}
		m.p("- terminal: %s", counts(ev.Terminal))
		if ev.KVEvents != nil {
			m.p("- KV events: %s", counts(ev.KVEvents))
		}
		m.pressurePlot(ev)
		m.blank()
		m.head("rule", "holds", "evidence")
		for _, rule := range ev.Rules {
			m.row(mdText(rule.Name), map[bool]string{true: "✓", false: "✗"}[rule.Passed], mdText(rule.Why))
		}
	}
}

func counts(c map[string]int) string {
	if len(c) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range sortedKeys(c) {
		parts = append(parts, fmt.Sprintf("%s %d", mdText(k), c[k]))
	}
	return strings.Join(parts, " · ")
}

func (m *md) pressurePlot(ev *report.Evidence) {
	m.blank()
	if len(ev.Pressure) == 0 {
		m.p("Pressure over virtual time: no pressure event (the capacity edge was not reached).")
		return
	}
	bins := pressureBins(ev, pressureBinsN)
	span := (ev.VirtualEndMs - ev.VirtualStartMs) / pressureBinsN
	m.p("Pressure events over virtual time (%d slices of %s; `·` none, taller = more on a scale from zero, max %d in one slice):", pressureBinsN, duration(span, span), int(maxOf(bins)))
	m.blank()
	m.p("```")
	m.p("%s %s %s", vtime(ev.VirtualStartMs), pressureLine(bins), vtime(ev.VirtualEndMs))
	m.p("```")
	m.blank()
	m.head("#", "at (virtual time)", "pool", "worker", "kind", "request", "readmitted at", "running before", "active blocks")
	for _, p := range ev.Pressure {
		re := "never"
		if p.Readmitted {
			re = vtime(p.ReadmittedAt)
		}
		m.row(fmt.Sprint(p.Ordinal), vtime(p.AtMs), mdText(p.Pool), fmt.Sprintf("%d/%d", p.WorkerID, p.DPRank), mdText(p.Kind), mdCode(p.RequestUUID), re, fmt.Sprint(p.RunningBefore), fmt.Sprint(p.ActiveBlocks))
	}
}

func (m *md) diffBody(d *DiffSummary) {
	m.blank()
	m.p("- A: %s", mdCode(d.A))
	m.p("- B: %s", mdCode(d.B))
	if d.First != nil {
		m.p("- first divergence: %s", mdText(vtimes(d.First.Text)))
	}
	for i, s := range d.Diagnosis {
		m.p("- diagnosis %d: %s", i+1, mdText(vtimes(s.String())))
		for _, e := range s.Evidence {
			m.p("  - %s", mdText(vtimes(e)))
		}
	}
	if d.Held > 0 {
		m.p("- %d differing pointers: the diff holds %d in detail (the largest arrays thinned); the groups and the diagnosis read those, exception coverage reads every one", d.Count, d.Held)
	}
	m.blank()
	m.head("group", "differing pointers")
	shown := 0
	for _, g := range d.Groups {
		m.row(mdText(g.Title), fmt.Sprint(g.Count))
		shown += g.Count
	}
	if d.GroupN > len(d.Groups) {
		total := d.Count
		if d.Held > 0 { // the groups count the held changes
			total = d.Held
		}
		m.row(fmt.Sprintf("… %d more groups", d.GroupN-len(d.Groups)), fmt.Sprint(total-shown))
	}
	m.blank()
	m.p("The first changes of the first groups (every change is in %s):", mdCode(d.File))
	m.blank()
	m.head("kind", "pointer", "A", "B")
	for _, c := range d.Changes {
		m.row(mdText(c.Kind), mdCode(c.Pointer), mdCode(clip(c.A)), mdCode(clip(c.B)))
	}
}

// clip shortens a value for a table cell; it cuts on a rune boundary so that a non-ASCII
// string literal never leaves invalid UTF-8 in report.md.
func clip(s string) string {
	if len(s) <= 60 {
		return s
	}
	cut := 57
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func (m *md) semantic(r *Report) {
	s := r.Semantic
	m.h(2, "Semantic verdict: "+s.Verdict.String())
	m.p("%s.", mdText(strings.TrimSuffix(s.Reason, ".")))
	if d := s.Diff; d != nil {
		m.blank()
		m.p("Baseline and candidate canonical reports differ on %d pointer(s); focused diff kept in %s.", d.Count, mdCode(d.File))
		m.diffBody(d)
		if s.UncoveredN > 0 {
			m.blank()
			m.p("Differing pointers no exception record covers (%d):", s.UncoveredN)
			m.blank()
			for i, p := range s.Uncovered {
				if i == 40 {
					break
				}
				m.p("- %s", mdCode(p))
			}
			if s.UncoveredN > 40 {
				m.p("- … %d more (every differing pointer is in %s)", s.UncoveredN-min(40, len(s.Uncovered)), mdCode(d.File))
			}
		}
	}
	m.h(3, fmt.Sprintf("Exception records (%d)", len(s.Exceptions)))
	if len(s.Exceptions) == 0 {
		m.p("None recorded.")
		return
	}
	cov := map[string]recordCoverage{}
	for _, c := range s.Coverage {
		cov[c.ID] = c
	}
	for _, e := range s.Exceptions {
		m.blank()
		// Broadness is the report's own computation (flagBroad), never the file's flag.
		c := cov[e.ID]
		switch {
		case c.Broad != "":
			m.p("#### %s (BROAD)", mdText(e.ID))
			m.blank()
			confirmed := "its author confirmed it as broad when saving it"
			if !c.ConfirmedBroad {
				confirmed = "it was **not** confirmed as broad when saved (written by hand, or saved against a diff where it was narrower)"
			}
			m.p("**Broad record**: it %s; %s. Review it as a claim about the whole report.", mdText(c.Broad), confirmed)
		case c.ConfirmedBroad:
			m.p("#### %s", mdText(e.ID))
			m.blank()
			m.p("Saved as broad (its author confirmed it), but against this report's differences it is not: it names no root pattern and covers at most half of them.")
		default:
			m.p("#### %s", mdText(e.ID))
		}
		m.blank()
		if s.Diff != nil {
			m.p("Covers %d of the %d differing pointers. Created %s, updated %s.", c.Covers, s.Diff.Count, stamp(e.Created), stamp(e.Updated))
		} else {
			m.p("Created %s, updated %s.", stamp(e.Created), stamp(e.Updated))
		}
		m.blank()
		m.p("- **differs**: %s", mdText(e.Differs))
		m.p("- **pointers**: %s", mdCode(strings.Join(e.Pointers, " ")))
		if len(e.Requests) > 0 {
			m.p("- **requests**: %s", mdText(strings.Join(e.Requests, ", ")))
		}
		if len(e.Events) > 0 {
			m.p("- **events**: %s", mdText(strings.Join(e.Events, ", ")))
		}
		m.p("- **baseline**: %s", mdText(e.Baseline))
		m.p("- **candidate**: %s", mdText(e.Candidate))
		m.p("- **cause**: %s", mdText(e.Cause))
		m.p("- **regression test**: %s", mdText(e.RegressionTest))
		m.p("- **impact**: %s", mdText(e.Impact))
		m.p("- **disposition**: %s", mdText(e.Disposition))
	}
}

func (m *md) performance(r *Report) {
	p := r.Performance
	m.h(2, "Performance verdict: "+p.Verdict.String())
	m.p("%s.", mdText(strings.TrimSuffix(p.Reason, ".")))
	m.blank()
	m.p("- scope: %s", mdText(p.Scope))
	m.p("- timing: %s, one fresh process per sample with `--iterations 1` and its own timings file; no full-report output in a gated invocation", mdCode(p.Metric))
	m.p("- sampling assumption: %s", mdText(p.Sampling))
	res := p.Result
	if res == nil {
		m.p("- status: %s", mdText(p.Status))
		return
	}
	if s := res.Schedule; s != nil {
		var b strings.Builder
		for _, o := range s.Pairs {
			b.WriteString(string(o)[:1])
		}
		m.p("- persisted schedule (seed %d, %s; B = baseline first, C = candidate first): %s", s.Seed, mdCode(s.Algorithm), mdCode(b.String()))
	}
	m.p("- measured on CPU %d · telemetry %s · %d warmups done · %d processes attempted · %d pair attempt(s) invalidated", res.MeasuredCPU, mdText(res.Telemetry), res.Warmups, len(res.Samples), len(res.Invalidations))
	m.ratios(res)
	m.diagnostics(res)
	m.samples(res)
	for _, c := range res.Caveats {
		m.p("- caveat: %s", mdText(c))
	}
	for _, w := range res.Warnings {
		m.p("- warning: %s", mdText(w))
	}
}

func (m *md) ratios(res *engine.PerfResult) {
	if len(res.Pairs) == 0 {
		return
	}
	ratios := make([]float64, len(res.Pairs))
	for i, p := range res.Pairs {
		ratios[i] = p.Ratio
	}
	const width = 20
	half := ratioHalf(ratios, res.Threshold)
	m.h(3, "Ratios in pair order")
	m.p("r = candidate / baseline %s, whatever the order. Each bar runs from r = 1 (`│`): left when the candidate was faster, right when it was slower, %d cells for a departure of %s; `>` marks a ratio above the threshold %s (`^`).",
		mdText(res.TimingField), width, ratio3(half), ratio3(res.Threshold))
	m.blank()
	var lines strings.Builder
	for _, p := range res.Pairs {
		mark := " "
		if p.Ratio > res.Threshold {
			mark = ">"
		}
		left, right := divergingBar(p.Ratio, half, width)
		fmt.Fprintf(&lines, "pair %3d %s %s %6s %s│%s\n", p.Pair, p.Order, mark, ratio3(p.Ratio), left, right)
	}
	// The axis under the bars: r = 1 at the bars' origin, the threshold at its distance.
	axis := 21 + width // "pair %3d %s %s %6s " is 21 columns wide
	t := axis + int(math.Round((res.Threshold-1)/half*width))
	if half == 0 {
		t = axis
	}
	marks := []rune(strings.Repeat(" ", max(axis, t)+1))
	marks[axis] = '1'
	marks[t] = '^'
	fmt.Fprintf(&lines, "%s  (1: r = 1 · ^: threshold %s)", strings.TrimRight(string(marks), " "), ratio3(res.Threshold))
	m.p("%s", mdFence("", lines.String()))
	m.blank()
	m.head("pair", "attempt", "order", "baseline", "candidate", "ratio", "baseline run", "candidate run")
	for _, p := range res.Pairs {
		m.row(fmt.Sprint(p.Pair), fmt.Sprint(p.Attempt), mdText(string(p.Order)), duration(p.BaselineMs, math.Max(p.BaselineMs, p.CandidateMs)), duration(p.CandidateMs, math.Max(p.BaselineMs, p.CandidateMs)), ratio3(p.Ratio), mdCode(string(p.BaselineRun)), mdCode(string(p.CandidateRun)))
	}
}

func (m *md) diagnostics(res *engine.PerfResult) {
	m.h(3, "Dependence diagnostics and bounds")
	a := res.Analysis
	if a == nil {
		m.p("No order-statistic bound was computed (median ratio so far %s): %s.", ratio3(res.Median), mdText(strings.TrimSuffix(res.Reason, ".")))
	} else {
		b := a.Bounds
		m.p("Predeclared battery: α = %.2g per test, Ljung–Box over %d lags. Valid: %v.", a.Battery.Config.Alpha, a.Battery.Config.Lags, a.Battery.Valid)
		m.blank()
		m.head("diagnostic", "statistic", "outcome", "threshold rule", "detail")
		for _, d := range append(slices.Clone(a.Battery.Diagnostics), res.TelemetryDiagnostics...) {
			m.row(mdText(d.Name), fmt.Sprintf("%.4f", d.Statistic), mdText(string(d.Outcome)), mdText(d.Rule), mdText(d.Detail))
		}
		m.blank()
		if a.Battery.DriftComputable {
			m.p("- Theil–Sen drift of ln r across the session: %+.4f (ln %s = %.4f)", a.Battery.DriftPerSession, ratio3(b.Threshold), math.Log(b.Threshold))
		}
		m.p("- n = %d; median ratio %s; lower bound X(%d) = %s, upper bound X(%d) = %s (one-sided %s%% bounds, exact coverage %.4f%% each, conditional on the sampling assumption); K = #{r ≤ %s} = %d",
			b.N, ratio3(b.Median), b.MedianOrders.Lower, ratio3(b.Lower), b.MedianOrders.Upper, ratio3(b.Upper), strconv.FormatFloat(100*b.Confidence, 'f', -1, 64), 100*b.OneSidedCoverage, ratio3(b.Threshold), b.K)
		m.p("- gate: PASS when the upper bound ≤ %s, FAIL when the lower bound > %s, INCONCLUSIVE otherwise or when a diagnostic breaches (unless the row's predeclared dependence-aware method decides)", ratio3(b.Threshold), ratio3(b.Threshold))
		m.dependenceMethod(res)
		if bs := a.Bootstrap; bs != nil {
			m.p("- paired bootstrap of log ratios (secondary, never the verdict): median %s, %.0f%% interval [%s, %s] → %s; mean %s, 20%%-trimmed %s; block/iid width %.2f",
				ratio3(bs.Median), 100*bs.Config.Confidence, ratio3(bs.Lower), ratio3(bs.Upper), bs.Verdict, ratio3(bs.MeanRatio), ratio3(bs.TrimmedMeanRatio), bs.BlockWidthRatio)
		}
	}
	for _, inv := range res.Invalidations {
		m.p("- invalidated pair %d attempt %d (%s): %s", inv.Pair, inv.Attempt, mdText(string(inv.Order)), mdText(inv.Reason))
	}
}

func (m *md) samples(res *engine.PerfResult) {
	m.h(3, fmt.Sprintf("Every attempted sample (%d)", len(res.Samples)))
	m.head("run", "arm", "kind", "attempt", "position", "ms", "exit", "status", "CPU", "competing ms", "started")
	for _, s := range res.Samples {
		kind := fmt.Sprintf("pair %d", s.Index)
		if s.Warmup {
			kind = fmt.Sprintf("warmup %d", s.Index)
		}
		status := "valid"
		switch {
		case s.Error != "":
			status = "✗ " + mdText(s.Error)
		case s.Env.Invalid != "":
			status = "invalidated: " + mdText(s.Env.Invalid)
		}
		m.row(mdCode(string(s.Run)), string(s.Arm), kind, fmt.Sprint(s.Attempt), fmt.Sprint(s.Position), duration(s.Ms, s.Ms),
			fmt.Sprint(s.ExitCode), status, fmt.Sprint(s.Env.CPU), fmt.Sprintf("%.1f / %.1f", s.Env.CompetingMs, s.Env.CompetingLimitMs), stamp(s.StartedAt))
	}
}

func (m *md) footprint(r *Report) {
	m.h(2, "Binary and .text sizes")
	f := r.Footprint.Result
	if f == nil {
		for _, a := range r.Artifacts {
			if a.Current {
				m.p("- %s: binary %s, .text %s", a.Arm, mib(a.Size), mib(a.TextSize))
			}
		}
		m.p("- growth gate: not run (it is decided with the performance stage)")
		return
	}
	m.head("", "baseline", "candidate", "growth")
	m.row("binary", mib(f.BaselineSize), mib(f.CandidateSize), fmt.Sprintf("%+.3f%%", 100*f.SizeGrowth))
	text := "unknown (not ELF)"
	if f.TextKnown {
		text = fmt.Sprintf("%+.3f%%", 100*f.TextGrowth)
	}
	m.row(".text", mib(f.BaselineText), mib(f.CandidateText), text)
	m.blank()
	m.p("Limit %.0f%%: **%s** — %s", 100*f.Limit, f.Verdict, mdText(f.Reason))
}

// instructions is the instrument's section: each arm's counts and the ratio, said as the
// secondary measure it is.
func (m *md) instructions(r *Report) {
	m.h(2, "Instruction counts (secondary, deterministic; never a verdict)")
	in := r.Instructions
	if in == nil {
		m.p("- not counted (`kvparity run --stage instructions`, or `[perf] instructions_runs` for --stage all)")
		if r.InstructionsNote != "" {
			m.p("- %s", mdText(r.InstructionsNote))
		}
		return
	}
	if r.InstructionsFrom != "" {
		m.p("Counted in a Slurm job of their own, which kvparity matrix submitted beside the row's job (that one ran `--no-instructions`), in the campaign %s (its report: %s); it pinned the same artifacts (SHA-256 and variant of each arm), trace window and frozen row as this campaign.",
			mdCode(r.InstructionsFrom+"/"), mdCode(path.Join(r.InstructionsFrom, layout.FileReportMD)))
		m.blank()
	}
	m.head("", "runs", "median", "spread (max − min) / median", "counts")
	for _, a := range []struct {
		arm string
		c   instrument.ArmInstructions
	}{{"baseline", in.Baseline}, {"candidate", in.Candidate}} {
		var counts []string
		for _, n := range a.c.Counts {
			counts = append(counts, fmt.Sprint(n))
		}
		m.row(a.arm, fmt.Sprint(len(a.c.Counts)), fmt.Sprint(a.c.Median), fmt.Sprintf("%.3f%%", 100*a.c.Spread), strings.Join(counts, ", "))
	}
	m.blank()
	word := "within the threshold"
	if in.Explain {
		word = "**explain**"
	}
	m.p("Ratio candidate/baseline %.4f, threshold %.2f: %s. Counted by %s; timed regions: %s. %s",
		in.Ratio, in.Threshold, word, mdText(in.Tool), mdText(strings.Join(in.Regions, " · ")), mdText(in.Reason))
}

func (m *md) statements(r *Report) {
	m.h(2, "Coverage not established by this campaign")
	for _, s := range r.Statements {
		m.p("- **%s**: %s", mdText(s.Topic), s.markdown())
	}
}

// profilerRows bounds the functions, paths and symbols the report lists.
const profilerRows = 10

// profiler is stage 8's "profiler findings": stage 7's differential profile when `kvparity
// investigate` ran, what it compared, how to reproduce it and where the profiles are kept.
func (m *md) profiler(r *Report) {
	m.h(2, "Profiler findings")
	inv := r.Profiler
	if inv == nil {
		m.p("None: no investigation ran (`kvparity investigate %s` profiles both arms).", "DIR")
		return
	}
	d := inv.Differential
	m.p("%s. Profiler: %s; %d baseline and %d candidate samples%s, one arm at a time on the measured CPU with identical settings.",
		mdText(strings.TrimSuffix(inv.Equivalence, ".")), mdText(inv.Profiler), d.BaselineSamples, d.CandidateSamples, inv.RoundsPhrase())
	m.blank()
	m.head("function", "baseline self", "candidate self", "delta")
	for _, f := range d.Top(profilerRows) {
		name := mdCode(f.Function)
		if f.OnlyCandidate {
			name += " (candidate only)"
		}
		m.row(name, fmt.Sprintf("%.2f%%", 100*f.Baseline), fmt.Sprintf("%.2f%%", 100*f.Candidate), fmt.Sprintf("%+.2f%%", 100*f.Delta))
	}
	if len(d.Paths) > 0 {
		m.blank()
		m.p("Call paths that grew (leaf ← callers):")
		m.blank()
		for _, p := range d.Paths[:min(profilerRows, len(d.Paths))] {
			m.p("- %+.2f%% %s", 100*p.Delta, mdCode(p.Path))
		}
	}
	if g := inv.Text; g != nil {
		m.blank()
		m.p("`.text` by symbol: %d → %d bytes (%+d); %d symbol(s) only in the candidate, %d only in the baseline.",
			g.BaselineBytes, g.CandidateBytes, g.CandidateBytes-g.BaselineBytes, g.OnlyCandidate, g.OnlyBaseline)
		if len(g.Grown) > 0 {
			m.blank()
			m.head("symbol", "baseline bytes", "candidate bytes", "growth")
			for _, s := range g.Grown[:min(profilerRows, len(g.Grown))] {
				m.row(mdCode(s.Symbol), fmt.Sprint(s.Baseline), fmt.Sprint(s.Candidate), fmt.Sprintf("%+d", s.Delta))
			}
		}
	}
	for _, w := range inv.Warnings {
		m.p("- warning: %s", mdText(w))
	}
	m.blank()
	kept := []string{mdCode(engine.FileInvestigation)}
	for _, run := range inv.Runs {
		kept = append(kept, mdCode(run.Data))
	}
	m.p("Kept (and kept by `kvparity clean`): %s. To reproduce:", strings.Join(kept, ", "))
	m.blank()
	m.p("%s", mdFence("", strings.Join(inv.Reproduce, "\n")))
}
