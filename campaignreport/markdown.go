package campaignreport

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"kvparity/engine"
	"kvparity/engine/run"
)

// md accumulates report.md.
type md struct{ b strings.Builder }

func (m *md) p(format string, a ...any) { fmt.Fprintf(&m.b, format+"\n", a...) }
func (m *md) blank()                    { m.b.WriteString("\n") }
func (m *md) h(level int, title string) {
	if !strings.HasSuffix(m.b.String(), "\n\n") {
		m.blank()
	}
	m.p("%s %s", strings.Repeat("#", level), title)
	m.blank()
}

// row writes one table row, escaping the cells.
func (m *md) row(cells ...string) {
	for i, c := range cells {
		cells[i] = cell(c)
	}
	m.p("| %s |", strings.Join(cells, " | "))
}

// head writes a table header.
func (m *md) head(cells ...string) {
	m.row(cells...)
	seps := make([]string, len(cells))
	for i := range seps {
		seps[i] = "---"
	}
	m.p("|%s|", strings.Join(seps, "|"))
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func mib(n int64) string { return fmt.Sprintf("%d B (%.2f MiB)", n, float64(n)/(1<<20)) }

// deskCarry is what a desk build's verdicts mean for the release build.
const deskCarry = "Both arms were built with the desk profile (the checkout's release profile without LTO, with many codegen units and incremental compilation): the determinism and parity verdicts carry over to the release build, whose replay computes the same; speed and size do not, so no performance or footprint verdict is given."

// deskSentence is the desk note capitalized as a sentence's start.
func deskSentence(r *Report) string {
	first, n := utf8.DecodeRuneInString(r.DeskBuild)
	return string(unicode.ToUpper(first)) + r.DeskBuild[n:]
}

// markdown renders the report. It only formats the Report: every figure comes from it.
func markdown(r *Report) []byte {
	m := &md{}
	m.p("# Campaign report: row %s", mdCode(r.Row))
	m.blank()
	m.p("Written by kvparity from the campaign's journal (%d records, seq 1–%d, %s to %s); nothing was rerun to write it.",
		r.Journal.Records, r.Journal.LastSeq, stamp(r.Journal.First), stamp(r.Journal.Last))
	if r.DeskBuild != "" {
		m.blank()
		m.p("**%s.** %s", mdText(deskSentence(r)), deskCarry)
	}
	m.verdicts(r)
	m.plots(r)
	m.revisions(r)
	m.trace(r)
	m.config(r)
	m.host(r)
	m.determinism(r)
	m.lifecycle(r)
	m.semantic(r)
	m.performance(r)
	m.footprint(r)
	m.instructions(r)
	m.profiler(r)
	m.fixtures(r)
	m.statements(r)
	// Paths read the same from any clone and after the campaign moves: the campaign folder's
	// are relative, machine-local ones named (localPaths); report.json keeps them as recorded.
	return []byte(localPaths(r).Replace(m.b.String()))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func (m *md) verdicts(r *Report) {
	m.h(2, "Verdicts")
	m.head("question", "verdict", "why")
	m.row("determinism: baseline", r.Determinism.Baseline.Verdict.String(), mdText(r.Determinism.Baseline.Reason))
	m.row("determinism: candidate", r.Determinism.Candidate.Verdict.String(), mdText(r.Determinism.Candidate.Reason))
	m.row("byte parity", r.Parity.Verdict.String(), mdText(r.Parity.Reason))
	m.row("lifecycle evidence", r.Coverage.Verdict.String(), mdText(r.Coverage.Reason))
	m.row("**semantic**", "**"+r.Semantic.Verdict.String()+"**", mdText(r.Semantic.Reason))
	m.row("**performance**", "**"+r.Performance.Verdict.String()+"**", mdText(r.Performance.Reason))
	m.row("footprint (binary and .text growth ≤ 5%)", r.Footprint.Verdict.String(), mdText(r.Footprint.Reason))
	m.row("**overall**", "**"+r.Overall.Verdict.String()+"**", mdText(r.Overall.Reason))
	m.blank()
	m.p("The semantic and performance verdicts are independent: a semantic exception never waives a performance regression, and a performance pass never excuses a mismatch. Overall: **%s** (exit status of `kvparity run --stage all` %d; of `--stage determinism`, which asks for the semantic verdict alone, %d).", r.Overall.Verdict, r.ExitCode, r.SemanticExitCode)
	for _, b := range r.Blocked {
		m.blank()
		m.p("> **Blocked** — %s", mdText(b))
	}
}

func (m *md) revisions(r *Report) {
	m.h(2, "Revisions and artifacts")
	m.head("arm", "revision", "variant", "determinism patch")
	for _, rv := range r.Revisions {
		m.row(string(rv.Arm), mdCode(rv.Revision), mdText(orNone(rv.Variant)), mdText(rv.DeterminismPatch))
	}
	m.blank()
	m.head("arm", "gen", "features", "SHA-256", "binary size", ".text size", "routing mode", "pinned copy")
	for _, a := range r.Artifacts {
		gen := fmt.Sprint(a.Gen)
		switch {
		case a.Stale:
			gen += " (current, source changed since: stale)"
		case a.Current:
			gen += " (current)"
		default:
			gen += " (superseded)"
		}
		m.row(string(a.Arm), gen, mdCode(strings.Join(a.Features, ",")), mdCode(a.SHA256), mib(a.Size), mib(a.TextSize), mdText(a.ReplayBench.Assertion), mdText(a.Copy))
	}
	m.blank()
	for _, a := range r.Artifacts {
		from := mdCode(a.Source)
		if filepath.IsAbs(a.Source) { // a path of the machine that pinned it: report.json keeps it
			from = mdCode(filepath.Base(a.Source)) + " (outside the campaign; its path is in report.json)"
		}
		m.p("- %s gen %d copied from %s, pinned at %s", a.Arm, a.Gen, from, stamp(a.PinnedAt))
	}
	for _, a := range r.Artifacts {
		b := a.Build
		if b == nil || !a.Current {
			continue
		}
		m.blank()
		m.p("%s built by kvparity from %s (%s %s%s):", a.Arm, mdCode(b.Source), mdText(b.Package), mdText(b.Version), crateSum(b))
		m.p("- features %s, checked against the package manifest; profile %s", mdCode(strings.Join(b.Features, ",")), mdText(b.Profile))
		m.p("- toolchain %s · %s", mdCode(firstLine(b.Rustc)), mdCode(b.Cargo))
		m.p("- %s; %d units compiled in %.0f s%s", lockLine(b), b.Units, b.BuildSeconds, map[bool]string{true: " (taken from the build cache)"}[b.Cached])
		m.p("- timing extension (determinism patch) SHA-256 %s; this version's applied diff SHA-256 %s, around %s's `Replayer::run_inner`", mdCode(b.ExtensionSHA256), mdCode(b.AppliedPatchSHA256), mdText(b.ReplayCrate))
		m.p("- command: %s", mdCode(strings.Join(b.Command, " ")))
		m.p("- %s", envLine(b))
	}
}

// lockLine says which Cargo.lock each checksum is: the one the source ships, and the one the
// build used, which cargo rewrote for the timing extension's patched replay crate.
func lockLine(b *engine.BuildInfo) string {
	used := "Cargo.lock the build used (rewritten by cargo for the timing extension's patched " + mdText(b.ReplayCrate) + ") SHA-256 " + mdCode(b.LockSHA256)
	if b.PublishedLockSHA256 == "" {
		return used + "; the published Cargo.lock's checksum was not recorded (built before kvparity recorded it)"
	}
	return "published Cargo.lock (as the source ships it) SHA-256 " + mdCode(b.PublishedLockSHA256) + "; " + used
}

// envLine is the command's environment: what kvparity set, and what it took from the caller's
// environment that changes what is compiled.
func envLine(b *engine.BuildInfo) string {
	if b.Env == nil {
		return "environment: not recorded (built before kvparity recorded it)"
	}
	inherited := "none"
	if len(b.InheritedEnv) > 0 {
		inherited = mdCode(strings.Join(b.InheritedEnv, " "))
	}
	return "environment set by kvparity: " + mdCode(strings.Join(b.Env, " ")) + "; from the caller's environment (the variables that change what is compiled: RUSTFLAGS, RUSTC*, CARGO_BUILD_*, CARGO_PROFILE_*, CARGO_TARGET_*...): " + inherited
}

func crateSum(b *engine.BuildInfo) string {
	if b.CrateSHA256 != "" {
		return ", crate SHA-256 " + mdCode(b.CrateSHA256)
	}
	if b.Commit != "" {
		return ", commit " + mdCode(b.Commit)
	}
	return ""
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func (m *md) trace(r *Report) {
	t := r.Trace
	m.h(2, "Trace window")
	m.p("- source: %s", mdCode(t.Source))
	m.p("- window: offset %d, %d requests (%s), contiguous, arrival order preserved", t.Offset, t.Count, mdCode(t.Spec))
	if t.SourceSHA256 != "" && !t.Generated {
		m.p("- source SHA-256: %s", mdCode(t.SourceSHA256))
	}
	m.p("- window SHA-256: %s (%d bytes); window file %s", mdCode(t.WindowSHA256), t.WindowBytes, mdText(t.WindowFile))
}

func (m *md) config(r *Report) {
	c := r.Config
	m.h(2, "Frozen configuration")
	m.p("`row.toml` SHA-256 %s. Both arms ran exactly these replay arguments:", mdCode(c.RowSHA256))
	m.blank()
	m.p("%s", mdFence("", strings.Join(c.Args, " ")))
	m.blank()
	reps := mdf("%d per revision, each its own process; timeout %s per process", c.Repetitions, c.Timeout)
	for _, arm := range sortedKeys(c.AddedReps) {
		reps += mdf("; %d added to %s", c.AddedReps[arm], arm)
	}
	m.p("- repetitions: %s", reps)
	pert := "off (`perturbations = []`)"
	if len(c.Perturbations) > 0 {
		pert = mdText(engine.JoinVariations(c.Perturbations)) + " (one process per arm with all of them after the plain repetitions, each tried alone when its digest differs), after a preflight probe per arm"
	}
	m.p("- perturbed repetitions: %s", pert)
	for _, v := range c.Perturbations {
		m.p("  - %s: %s", mdCode(string(v)), mdText(v.Describe()))
	}
	m.p("- pressure band: %d–%d pressure events", c.PressureBand[0], c.PressureBand[1])
	m.p("- router queue threshold: %s", mdText(orNone(c.QueueThreshold)))
	m.p("- performance: %d pairs, %d warmups per arm, schedule seed %d, threshold %s, timing field %s%s", c.Pairs, c.Warmups, c.ScheduleSeed, ratio3(c.Threshold), mdCode(c.TimingField), map[bool]string{true: " (declared PROXY)", false: ""}[c.TimingProxy])
	if c.FootprintNote != "" {
		m.p("- footprint growth explained: %s", mdText(c.FootprintNote))
	}
	list := "exactly the protocol's closed list"
	if !c.ProtocolList {
		list = "**differs from the protocol's closed list: needs review**"
	}
	m.p("- canonical exclusion allowlist (%s):", list)
	for _, e := range c.Exclusions {
		m.p("  - %s", mdCode(e))
	}
	for _, k := range sortedKeys(c.Unordered) {
		m.p("- unordered collection %s sorted by %s", mdCode(k), mdCode(c.Unordered[k]))
	}
	m.blank()
	m.p("<details><summary>row.toml as frozen</summary>")
	m.blank()
	m.p("%s", mdFence("toml", c.RowTOML))
	m.blank()
	m.p("</details>")
}

func (m *md) host(r *Report) {
	h, p := r.Host, r.Placement
	m.h(2, "Host and placement")
	m.p("- node %s: %s, %d usable CPUs, %d NUMA node(s), %s, %s", mdCode(h.Hostname), mdText(h.CPUModel), h.Cores, h.NUMANodes, mdText(h.Kernel), mdText(h.GoVersion))
	m.p("- determinism repetitions ran on CPUs %s (one CPU per process; the CPU of each run is listed below)", mdText(orNone(p.Determinism)))
	if p.PerfCPU != nil {
		m.p("- every performance process ran on CPU %d, one at a time", *p.PerfCPU)
	}
	m.p("- NUMA: %s", mdText(p.NUMA))
	m.p("- %s", mdText(p.Note))
}

func (m *md) determinism(r *Report) {
	m.h(2, "Determinism and digests")
	for _, a := range r.Arms {
		label := a.Revision
		if a.Variant != "" {
			label += " (variant " + a.Variant + ")"
		}
		m.h(3, fmt.Sprintf("%s — %s", a.Arm, a.Verdict))
		stale := ""
		if a.Stale {
			stale = " (stale: its source changed after pinning)"
		}
		m.p("Revision %s, artifact gen %d %s%s. %s.", mdCode(label), a.Gen, mdCode(short(a.SHA256)), stale, mdText(strings.TrimSuffix(a.Reason, ".")))
		if a.OlderRuns > 0 {
			m.p("%d repetition run(s) of earlier artifact generations are in the journal and not counted.", a.OlderRuns)
		}
		m.blank()
		m.head("run", "status", "CPU", "elapsed", "digest", "full report")
		for _, ri := range a.Runs {
			what := mdCode(ri.Digest)
			if ri.Error != "" {
				what = "✗ " + mdText(ri.Error)
			}
			if ri.FixedPoint != "" {
				what += fmt.Sprintf(" (harness output not canonical at %s)", mdCode(ri.FixedPoint))
			}
			m.row(mdCode(string(ri.Run)), mdText(ri.Status), run.FormatCPUList(ri.CPUs), fmt.Sprintf("%.1f ms", ri.ElapsedMs), what, mdText(ri.FullReport))
		}
		if p := a.Preflight; p != nil {
			m.blank()
			m.p("Preflight: %s.", mdText(PreflightText(*p)))
		}
		if len(a.Perturbed) > 0 {
			m.blank()
			m.head("perturbed run", "variations", "digest", "against the plain digest")
			for _, p := range a.Perturbed {
				vs := "differs"
				switch {
				case p.Error != "":
					vs = "✗ " + mdText(p.Error)
				case !p.Differs:
					vs = "same"
				}
				m.row(mdCode(string(p.Run)), mdText(engine.JoinVariations(p.Variations)), mdCode(p.Digest), vs)
			}
		}
		if a.PerturbedNotRun != "" {
			m.blank()
			m.p("Perturbed repetitions: %s.", mdText(a.PerturbedNotRun))
		}
		if a.Finding != "" {
			m.blank()
			m.p("Finding: %s.", mdText(a.Finding))
		}
		if d := a.Instability; d != nil {
			m.blank()
			m.p("Two canonical reports of the same artifact (repetitions, or a repetition and a perturbed one) disagree on %d pointer(s); focused diff kept in %s.", d.Count, mdCode(d.File))
			m.diffBody(d)
		}
	}
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}
