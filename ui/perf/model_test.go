package perf

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"kvparity/engine"
	perfpkg "kvparity/engine/instrument"
	"kvparity/ui/keys"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

func apply(m Model, evs ...engine.Event) Model {
	for _, ev := range evs {
		m, _ = m.Update(ev)
	}
	return m
}

func TestPairsArePlottedInPairOrderAsTheyArrive(t *testing.T) {
	m := New(theme.NewStyles(true, false), 4, 1, 1.05)
	m = apply(m, engine.PairDone{Pair: 3, Ratio: 1.02, Done: 1, Total: 4}, engine.PairDone{Pair: 1, Ratio: 0.98, Done: 2, Total: 4})
	r := m.Ratios()
	if r[0] != 0.98 || !math.IsNaN(r[1]) || r[2] != 1.02 || !math.IsNaN(r[3]) {
		t.Fatalf("ratios %v", r)
	}
	m.SetSize(60, 8)
	s := ansi.Strip(m.View())
	if !strings.Contains(s, "pairs 2/4") || !strings.Contains(s, "median 1.000") || !strings.Contains(s, "•") {
		t.Fatalf("view:\n%s", s)
	}
}

func TestInvalidatedPairIsDroppedUntilRerun(t *testing.T) {
	m := New(theme.NewStyles(true, false), 4, 1, 1.05)
	m = apply(m, engine.PairDone{Pair: 2, Ratio: 1.3, Total: 4},
		engine.SampleInvalidated{Pair: 2, Attempt: 1, Reason: "affinity violation", Causes: []string{"affinity violation"}})
	if !math.IsNaN(m.Ratios()[1]) || m.pairsDone != 0 {
		t.Fatalf("an invalidated pair must leave the plot: %v done %d", m.Ratios(), m.pairsDone)
	}
	m.SetSize(70, 6)
	if s := ansi.Strip(m.View()); !strings.Contains(s, "2 attempts for pair 2 · 1 invalidated: affinity violation") {
		t.Fatalf("view:\n%s", s)
	}
}

func TestSamplingIsTrackedFromStartToFinish(t *testing.T) {
	m := New(theme.NewStyles(true, false), 4, 1, 1.05)
	m = apply(m, engine.RunStarted{Run: "w", Kind: engine.KindWarmup})
	if m.Sampling() || !m.Live() {
		t.Fatal("a warmup is live but not a measured sample")
	}
	m = apply(m, engine.RunStarted{Run: "s", Kind: engine.KindSample})
	if !m.Sampling() {
		t.Fatal("a sample is running")
	}
	m = apply(m, engine.RunFinished{Run: "s"}, engine.RunFinished{Run: "w"})
	if m.Sampling() || m.Live() {
		t.Fatal("both finished")
	}
}

func TestFinalVerdictShowsBoundsAndDiagnostics(t *testing.T) {
	m := New(theme.NewStyles(true, false), 60, 5, 1.05)
	m = apply(m, engine.PerfSummary{Done: 60, Total: 60, Median: 1.07, Final: true, Lower: 1.06, Upper: 1.09,
		Verdict: "FAIL", Reason: "lower bound 1.060 > 1.05",
		Diagnostics: []engine.Diagnostic{{Name: "lag-1 r", Statistic: 0.41, Threshold: 0.3, Breached: true}}})
	m.SetSize(100, 8)
	s := ansi.Strip(m.View())
	for _, want := range []string{"lag-1 r 0.410 > 0.30 breached", "bounds [1.060, 1.090] vs 1.05 → perf FAIL"} {
		if !strings.Contains(s, want) {
			t.Fatalf("view lacks %q:\n%s", want, s)
		}
	}
}

func TestPlotNeverPanicsOnEdgeCases(t *testing.T) {
	for _, ratios := range [][]float64{nil, {1}, {1, 1, 1}, {0.5, 3}} {
		m := New(theme.NewStyles(true, false), len(ratios), 1, 1.05)
		for i, r := range ratios {
			m = apply(m, engine.PairDone{Pair: i + 1, Ratio: r, Total: len(ratios)})
		}
		for _, sz := range [][2]int{{0, 0}, {5, 2}, {20, 3}, {100, 12}} {
			m.SetSize(sz[0], sz[1])
			// Beyond not panicking: the pane never draws wider or taller than its box.
			lines := strings.Split(m.View(), "\n")
			if sz[1] > 0 && len(lines) > sz[1] {
				t.Errorf("ratios %v at %dx%d: %d lines", ratios, sz[0], sz[1], len(lines))
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); sz[0] > 0 && w > sz[0] {
					t.Errorf("ratios %v at %dx%d: line %q is %d wide", ratios, sz[0], sz[1], l, w)
				}
			}
		}
	}
}

func TestRunInFlightIsNamedWithProgress(t *testing.T) {
	m := New(theme.NewStyles(true, false), 60, 5, 1.05)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m = apply(m, engine.StageStarted{Stage: engine.StagePerf},
		engine.RunStarted{Run: "perf/pair-037-candidate", Arm: engine.Candidate, Kind: engine.KindSample, Repetition: 37, At: at},
		engine.RunProgress{Run: "perf/pair-037-candidate", Completed: 3100, Total: 5000})
	m.SetNow(at.Add(1500 * time.Millisecond))
	m.SetSize(80, 6)
	if s := ansi.Strip(m.View()); !strings.Contains(s, "PERFORMANCE ⟳ pair 37 candidate 62% 1.5s") {
		t.Fatalf("view:\n%s", s)
	}
}

func TestRegionWording(t *testing.T) {
	check := func(d engine.Diagnostic, breached bool, want string) {
		t.Helper()
		if got := region(d, breached); got != want {
			t.Errorf("got %q want %q", got, want)
		}
	}
	check(engine.Diagnostic{OneSided: true, High: 0.3}, false, "≤ 0.30")
	check(engine.Diagnostic{OneSided: true, High: 0.3}, true, "> 0.30")
	check(engine.Diagnostic{Low: -0.2, High: 0.2}, false, "in [-0.20, 0.20]")
	check(engine.Diagnostic{Low: -0.2, High: 0.2}, true, "outside [-0.20, 0.20]")
	check(engine.Diagnostic{Threshold: 0.25}, false, "≤ 0.25")
}

func TestOutliersDoNotFlattenThePlot(t *testing.T) {
	m := New(theme.NewStyles(true, false), 60, 5, 1.05)
	for p := 1; p <= 60; p++ {
		r := 0.99 + 0.02*float64(p%5)/4 // 0.99 .. 1.01
		switch p {
		case 7:
			r = 2.3
		case 30:
			r = 0.1
		}
		m = apply(m, engine.PairDone{Pair: p, Ratio: r, Done: p, Total: 60})
	}
	lines := m.plot(70, 6)
	all := ansi.Strip(strings.Join(lines, "\n"))
	if !strings.Contains(ansi.Strip(lines[0]), "↑") || !strings.Contains(ansi.Strip(lines[4]), "↓") {
		t.Fatalf("outliers go to the edge rows as arrows:\n%s", all)
	}
	// Both axes are named: the ratios' value at the left, the pairs from first to last below.
	if x := ansi.Strip(lines[5]); !strings.HasPrefix(x, "ratio└1─") || !strings.HasSuffix(x, "─60") || !strings.Contains(x, " candidate/baseline by pair ") {
		t.Fatalf("x axis %q", x)
	}
	rows := 0
	for _, l := range lines {
		if strings.Contains(l, "•") {
			rows++
		}
	}
	if rows < 3 {
		t.Fatalf("the central ratios should spread over several rows, got %d:\n%s", rows, all)
	}
}

func TestNarrowPaneNeverCutsABreach(t *testing.T) {
	m := New(theme.NewStyles(true, false), 60, 5, 1.05)
	m = apply(m, engine.PerfSummary{Done: 30, Total: 60, Median: 1.0, Diagnostics: []engine.Diagnostic{
		{Name: "lag-1 autocorrelation", Statistic: 0.08, Low: -0.59, High: 0.49, Outcome: "ok"},
		{Name: "Ljung-Box Q(5)", Statistic: 3.1, OneSided: true, High: 11.07, Outcome: "ok"},
		{Name: "order trend (Spearman)", Statistic: 0.61, Low: -0.36, High: 0.36, Breached: true, Outcome: "breached"},
		{Name: "temperature", Outcome: "not computable"},
	}})
	m.SetSize(100, 6)
	s := ansi.Strip(m.View())
	if !strings.Contains(s, "breached order trend (Spearman) 0.610 outside [-0.36, 0.36] · 2 ok, 1 not computable yet") {
		t.Fatalf("view:\n%s", s)
	}
	m.SetSize(400, 6)
	if s := ansi.Strip(m.View()); !strings.Contains(s, "lag-1 autocorrelation 0.080 in [-0.59, 0.49] ok") {
		t.Fatalf("a wide pane spells every diagnostic out:\n%s", s)
	}
}

// Key figures are never cut at 80x24 (the pane is 38 columns there): they wrap whole.
func TestKeyFiguresWrapInANarrowPane(t *testing.T) {
	m := New(theme.NewStyles(true, false), 60, 5, 1.05)
	m.SetSize(38, 8)
	for p := 1; p <= 60; p++ {
		m, _ = m.Update(engine.PairDone{Pair: p, Ratio: 1.004, Done: p, Total: 60, BaselineMs: 1000, CandidateMs: 1004})
	}
	m, _ = m.Update(engine.PerfSummary{Done: 60, Total: 60, Median: 1.004, Final: true, Lower: 0.999, Upper: 1.008,
		Verdict: "PASS", Reason: "upper bound 1.008 ≤ 1.05"})
	m, _ = m.Update(engine.StageVerdict{Stage: engine.StagePerf, Verdict: "PASS", Reason: "upper bound 1.008 ≤ 1.05"})
	s := ansi.Strip(m.View())
	for _, w := range []string{"pairs 60/60", "median 1.004", "bounds [0.999, 1.008]", "perf PASS"} {
		if !strings.Contains(s, w) {
			t.Errorf("lacks %q:\n%s", w, s)
		}
	}
}

// On a busy machine the pane says so live: the pair that took the most attempts, the
// invalidations with their dominant cause, the attempts the pair being rerun has left, an
// estimate of the time left, and a plain statement once invalidations outnumber valid pairs.
func TestBusyMachineIsExplainedLive(t *testing.T) {
	m := New(theme.NewStyles(true, false), 20, 0, 1.05)
	m = apply(m, engine.StageStarted{Stage: engine.StagePerf},
		engine.PerfSummary{Total: 20, MaxInvalidations: 10})
	competing := func(pair, attempt int) engine.SampleInvalidated {
		return engine.SampleInvalidated{Pair: pair, Attempt: attempt, Reason: fmt.Sprintf(
			"perf/pair-%03d-baseline-a%d: competing load on CPU 1: 300 ms of 900 ms busy was not the sample (limit 45 ms); perf/pair-%03d-candidate-a%d: competing load on CPU 1: 200 ms", pair, attempt, pair, attempt),
			Causes: []string{"competing load on CPU 1"}}
	}
	for a := 1; a <= 5; a++ {
		m = apply(m, competing(1, a))
	}
	for p := 1; p <= 2; p++ {
		for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
			m = apply(m, engine.RunFinished{Run: engine.RunID(fmt.Sprintf("perf/pair-%03d-%s", p, arm)), Arm: arm, Kind: engine.KindSample, Elapsed: 2 * time.Second})
		}
		m = apply(m, engine.PairDone{Pair: p, Ratio: 1.01, Done: p, Total: 20})
	}
	m = apply(m, engine.SampleInvalidated{Pair: 3, Attempt: 1, Reason: "perf/pair-003-candidate-a1: thermal throttling during the sample: package +1",
		Causes: []string{"thermal throttling during the sample"}},
		engine.RunStarted{Run: "perf/pair-003-baseline-a2", Arm: engine.Baseline, Kind: engine.KindSample, Repetition: 3})
	m.SetSize(110, 12)
	s := ansi.Strip(m.View())
	for _, want := range []string{
		"6 attempts for pair 1",
		"6 invalidated: competing load on CPU 1 (5), 1 other",
		"pair 3 on attempt 2 · 9 more invalidations stop the stage",
		// 36 processes left × 2 s × (2 valid + 6 invalidated) / 2 valid
		"≈ 4m48s left",
		"Too busy for a verdict: 6 invalidated, 2 valid. Quiet the machine, or x and resume later",
	} {
		if !strings.Contains(strings.Join(strings.Fields(s), " "), want) {
			t.Errorf("view lacks %q:\n%s", want, s)
		}
	}
	if got := engine.InvalidationCauses(competing(1, 1).Reason); len(got) != 1 || got[0] != "competing load on CPU 1" {
		t.Fatalf("causes %q", got)
	}
}

// A pane too short for the plot says so and how to see it; once the verdict stands, the
// progress line gives up what the verdict says (the gate, the warmups) so the plot has rows.
func TestShortPaneSaysThePlotIsHiddenAndMakesRoomForIt(t *testing.T) {
	m := New(theme.NewStyles(true, false), 60, 5, 1.05)
	m.SetZoomKey(keys.Default().Zoom)
	for p := 1; p <= 60; p++ {
		m, _ = m.Update(engine.PairDone{Pair: p, Ratio: 1.0 + 0.01*float64(p%3), Done: p, Total: 60})
	}
	m.SetSize(54, 4)
	if s := ansi.Strip(m.View()); !strings.Contains(s, "PERFORMANCE plot hidden: z zooms") {
		t.Fatalf("a hidden plot is said:\n%s", s)
	}
	m, _ = m.Update(engine.PerfSummary{Done: 60, Total: 60, Median: 1.01, Final: true, Lower: 1.0, Upper: 1.02,
		Verdict: "PASS", Reason: "upper bound 1.020 ≤ 1.05"})
	m.SetSize(54, 8) // the perf pane at 100×30
	s := ansi.Strip(m.View())
	if !strings.Contains(s, "ratio└1") || strings.Contains(s, "gate ≤") || !strings.Contains(s, "vs 1.05") {
		t.Fatalf("the final pane at 100×30 plots with its axes:\n%s", s)
	}
	m.SetSize(38, 3)
	if s := ansi.Strip(m.View()); !strings.Contains(s, "+1 line, plot: z zooms") {
		t.Fatalf("lines cut are said:\n%s", s)
	}
}

// Two lines are enough for a strip: one row whose block height is the ratio, and the x axis
// naming the range it spans.
func TestTwoLinesPlotAStripWithItsRange(t *testing.T) {
	m := New(theme.NewStyles(true, false), 20, 1, 1.05)
	for p := 1; p <= 20; p++ {
		m = apply(m, engine.PairDone{Pair: p, Ratio: 0.95 + 0.01*float64(p%10), Done: p, Total: 20})
	}
	lines := m.plot(53, 2)
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	row, axis := ansi.Strip(lines[0]), ansi.Strip(lines[1])
	if !strings.Contains(row, "▁") || !strings.Contains(row, "█") || !strings.HasPrefix(axis, "ratio└1") ||
		!strings.HasSuffix(axis, "20  ▁0.950–█1.040") {
		t.Fatalf("strip:\n%s\n%s", row, axis)
	}
}

// The final pane at 100×30 (54×8): the progress figures move into the title, so the plot has
// three rows of ratios, each edge labelled, and the x axis; the verdict lines stay whole.
func TestShortPaneGivesThePlotTheProgressRow(t *testing.T) {
	m := New(theme.NewStyles(true, false), 60, 5, 1.05)
	for p := 1; p <= 60; p++ {
		m = apply(m, engine.PairDone{Pair: p, Ratio: 0.99 + 0.02*float64(p%5)/4, Done: p, Total: 60})
	}
	m, _ = m.Update(engine.PerfSummary{Done: 60, Total: 60, Median: 1.004, Final: true, Lower: 0.999, Upper: 1.008,
		Verdict: "PASS", Reason: "upper bound 1.008 ≤ 1.05",
		Diagnostics: []engine.Diagnostic{{Name: "lag-1 r", Statistic: 0.05, OneSided: true, High: 0.3}}})
	m.SetSize(54, 8)
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	if len(lines) != 8 || !strings.HasPrefix(lines[0], " PERFORMANCE pairs 60/60 · median 1.004") {
		t.Fatalf("the title carries the figures:\n%s", strings.Join(lines, "\n"))
	}
	labelled := 0
	for _, l := range lines[2:5] {
		if strings.Contains(l, "┤") {
			labelled++
		}
	}
	if labelled != 3 || !strings.HasPrefix(lines[5], "ratio└1") || !strings.Contains(lines[6], "perf PASS") || !strings.Contains(lines[7], "upper bound 1.008") {
		t.Fatalf("three labelled rows of ratios, the x axis, the verdict lines:\n%s", strings.Join(lines, "\n"))
	}
	// A tall pane keeps the figures on their own line.
	m.SetSize(54, 14)
	if l := strings.Split(ansi.Strip(m.View()), "\n"); !strings.HasPrefix(l[1], " pairs 60/60") {
		t.Fatalf("a roomy pane keeps the progress line:\n%s", strings.Join(l, "\n"))
	}
}

// A strip whose range does not fit beside the x axis says it in the axis.
func TestStripSaysItsRangeInTheAxisWhenNarrow(t *testing.T) {
	m := New(theme.NewStyles(true, false), 60, 1, 1.05)
	for p := 1; p <= 60; p++ {
		m = apply(m, engine.PairDone{Pair: p, Ratio: 0.95 + 0.01*float64(p%10), Done: p, Total: 60})
	}
	lines := m.plot(40, 2)
	if axis := ansi.Strip(lines[1]); !strings.HasPrefix(axis, "ratio└1") || !strings.Contains(axis, " ▁0.950–█1.040 ") || !strings.HasSuffix(axis, "60") {
		t.Fatalf("strip axis %q", axis)
	}
}

// The instruction counts show under the verdict as the secondary measure they are: counting
// while their stage runs, the ratio and spread after, "explain" above the threshold, and
// "not measured" without valgrind.
func TestInstructionCountsShowAsASecondaryMeasure(t *testing.T) {
	m := New(theme.NewStyles(true, false), 4, 1, 1.05)
	m.SetSize(90, 10)
	view := func(m Model) string { return ansi.Strip(m.View()) }
	if s := view(m); strings.Contains(s, "instructions") {
		t.Fatalf("instructions said before they were counted:\n%s", s)
	}
	m = apply(m, engine.StageStarted{Stage: engine.StageInstructions})
	if s := view(m); !strings.Contains(s, "instructions: counting") {
		t.Fatalf("counting not said:\n%s", s)
	}
	res := perfpkg.DecideInstructions("valgrind-3.19.0", nil, []uint64{848883809, 849355388, 849442305}, []uint64{849000000, 849100000, 849200000}, 0)
	m = apply(m, engine.InstructionsDone{Result: &res})
	s := view(m)
	if !strings.Contains(s, "instructions ×0.9997 ±0.066%") || !strings.Contains(s, "decides nothing") || strings.Contains(s, "explain") || strings.Contains(s, "counting") {
		t.Fatalf("result:\n%s", s)
	}
	grew := perfpkg.DecideInstructions("v", nil, []uint64{100, 100, 100}, []uint64{110, 110, 110}, 0)
	if s := view(apply(m, engine.InstructionsDone{Result: &grew})); !strings.Contains(s, "instructions ×1.1000 ±0.000% > 1.03: explain") {
		t.Fatalf("growth:\n%s", s)
	}
	if s := view(apply(m, engine.InstructionsDone{Unavailable: "valgrind is not installed"})); !strings.Contains(s, "instructions: not measured (valgrind is not installed") {
		t.Fatalf("unavailable:\n%s", s)
	}
	if s := view(apply(m, engine.InstructionsDone{Failed: "instructions/b1-c1/baseline-01 (baseline): exited with status 1"})); !strings.Contains(s, "instructions: not counted") || !strings.Contains(s, "(instructions/b1-c1/baseline-01 (baseline): exited with status 1") || !strings.Contains(s, "decides nothing)") {
		t.Fatalf("failed:\n%s", s)
	}
}

// A desk row is never timed: the pane says so instead of "pairs 0/60 · gate ≤ 1.05", a gate
// that will not run.
func TestADeskRowsPaneSaysItIsNotTimed(t *testing.T) {
	m := New(theme.NewStyles(true, false), 60, 5, 1.05)
	m.SetDeskBuild("desk build, not the release artifact")
	m.SetSize(46, 6)
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "PERFORMANCE") || !strings.Contains(v, "not timed") || !strings.Contains(v, "desk build, not the release") ||
		strings.Contains(v, "pairs 0/60") || strings.Contains(v, "gate") {
		t.Errorf("desk pane:\n%s", v)
	}
}

// While byte parity refuses the stage (an UNSTABLE arm), no pair will arrive: the pane says why
// instead of "pair ratios are plotted here as pairs arrive"; new repetitions (a rebuild) or a
// parity that passes take the refusal back.
func TestARefusedStageSaysWhyNotThatPairsWillArrive(t *testing.T) {
	m := New(theme.NewStyles(true, false), 60, 5, 1.05)
	m.SetSize(60, 6)
	refuse := engine.StageVerdict{Stage: engine.StageParity, Verdict: verdict.Blocked, Reason: "baseline is UNSTABLE: parity and performance are refused until its entropy leak is fixed"}
	m, _ = m.Update(refuse)
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "PERFORMANCE") || !strings.Contains(v, "not run") || !strings.Contains(v, "baseline is UNSTABLE") || strings.Contains(v, "plotted here") {
		t.Errorf("refused pane:\n%s", v)
	}
	m, _ = m.Update(engine.StageStarted{Stage: engine.StageDeterminism})
	if v := ansi.Strip(m.View()); strings.Contains(v, "not run") || !strings.Contains(v, "plotted here as pair") {
		t.Errorf("after new repetitions started:\n%s", v)
	}
	m, _ = m.Update(refuse)
	m, _ = m.Update(engine.StageVerdict{Stage: engine.StageParity, Verdict: verdict.Pass, Reason: "byte-identical"})
	if v := ansi.Strip(m.View()); strings.Contains(v, "not run") {
		t.Errorf("after parity passed:\n%s", v)
	}
}
