package determinism

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"kvparity/engine"
	"kvparity/ui/keys"
	"kvparity/ui/theme"
)

func apply(m Model, evs ...engine.Event) Model {
	for _, ev := range evs {
		m, _ = m.Update(ev)
	}
	return m
}

func started(arm engine.Arm, rep int, id engine.RunID) engine.RunStarted {
	return engine.RunStarted{Run: id, Arm: arm, Kind: engine.KindRepetition, Repetition: rep, At: time.Unix(0, 0)}
}

func view(m Model) string { return ansi.Strip(m.View()) }

func TestRepetitionsAreOrderedByArmThenIndex(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	m = apply(m, started(engine.Candidate, 1, "c1"), started(engine.Baseline, 2, "b2"), started(engine.Baseline, 1, "b1"))
	var got []string
	for _, r := range m.Repetitions() {
		got = append(got, Label(r.Arm, r.Index))
	}
	if strings.Join(got, " ") != "base#1 base#2 cand#1" {
		t.Fatalf("order %v", got)
	}
}

func TestRerunReplacesTheLineAndCountsAttempts(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	m = apply(m, started(engine.Baseline, 1, "b1"),
		engine.RunFinished{Run: "b1", Err: errors.New("exit status 1")},
		started(engine.Baseline, 1, "b1-a2"),
		engine.RunFinished{Run: "b1-a2", Elapsed: 2 * time.Second},
		engine.DigestReady{Run: "b1-a2", Arm: engine.Baseline, Repetition: 1, Digest: "abcdef0123"})
	reps := m.Repetitions()
	if len(reps) != 1 || reps[0].attempts != 2 || reps[0].State != Done || reps[0].Run != "b1-a2" {
		t.Fatalf("rerun should replace the line: %+v", reps)
	}
	s := view(m.sized(60, 5))
	if !strings.Contains(s, "base#1·a2") || !strings.Contains(s, "abcdef…") {
		t.Fatalf("view:\n%s", s)
	}
}

func TestDigestMismatchWithinAnArmIsMarked(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	m = apply(m, started(engine.Candidate, 1, "c1"), started(engine.Candidate, 2, "c2"),
		engine.RunFinished{Run: "c1"}, engine.RunFinished{Run: "c2"},
		engine.DigestReady{Run: "c1", Digest: "aaaaaaaa"}, engine.DigestReady{Run: "c2", Digest: "bbbbbbbb"},
		engine.StageVerdict{Stage: engine.StageDeterminism, Arm: engine.Candidate, Verdict: "UNSTABLE"})
	s := view(m.sized(60, 5))
	if !strings.Contains(s, "bbbbbb… ≠cand#1") || !strings.Contains(s, "cand UNSTABLE") {
		t.Fatalf("an unstable arm must be visible:\n%s", s)
	}
}

func TestFailedAndStoppedRunsSayWhy(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	m = apply(m, started(engine.Baseline, 1, "b1"), started(engine.Baseline, 2, "b2"),
		engine.RunFinished{Run: "b1", ExitCode: 101, Err: errors.New("malformed report: /summary missing")},
		engine.RunFinished{Run: "b2", ExitCode: -1, Signal: "killed"})
	s := view(m.sized(70, 5))
	if !strings.Contains(s, "✗ malformed report: /summary missing") || !strings.Contains(s, "■ stopped (killed)") {
		t.Fatalf("view:\n%s", s)
	}
}

func TestStageStartClearsOldVerdicts(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	m = apply(m, engine.StageVerdict{Stage: engine.StageParity, Verdict: "FAIL"},
		engine.StageStarted{Stage: engine.StageDeterminism})
	if m.Parity().Verdict != "" {
		t.Fatal("a new determinism run must not show the previous parity verdict")
	}
}

func (m Model) sized(w, h int) Model { m.SetSize(w, h); return m }

// The digested count is out of the repetitions the stage will run, known when it starts: it
// never grows its total as repetitions start (0/4 → 1/4 → 4/4, not 0/2 → 1/3 → 4/4).
func TestDigestedTotalIsKnownFromTheStart(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	m.SetSize(90, 8)
	m = apply(m, engine.StageStarted{Stage: engine.StageDeterminism, Repetitions: map[engine.Arm]int{engine.Baseline: 2, engine.Candidate: 2}})
	if s := view(m); !strings.Contains(s, "0/4 digested") {
		t.Fatalf("at the start:\n%s", s)
	}
	m = apply(m, started(engine.Baseline, 1, "b1"), started(engine.Candidate, 1, "c1"))
	if s := view(m); !strings.Contains(s, "0/4 digested") {
		t.Fatalf("two running:\n%s", s)
	}
	m = apply(m, engine.RunFinished{Run: "b1", Arm: engine.Baseline, Kind: engine.KindRepetition},
		engine.DigestReady{Run: "b1", Arm: engine.Baseline, Repetition: 1, Digest: "abcdef0123"}, started(engine.Baseline, 2, "b2"))
	if s := view(m); !strings.Contains(s, "1/4 digested") {
		t.Fatalf("one digested:\n%s", s)
	}
	// Without a start that says so (an old journal), the lines started so far are the total.
	old := apply(New(theme.NewStyles(true, false), keys.Default()), started(engine.Baseline, 1, "b1"))
	if old.Total() != 1 {
		t.Fatalf("total %d", old.Total())
	}
}

// Between the replay reaching 100% (or ending) and its digest, the line says "digesting", not a
// stuck "⟳ 100%".
func TestFinishedRunSaysDigestingUntilItsDigest(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	m.SetSize(90, 6)
	m = apply(m, started(engine.Baseline, 1, "b1"),
		engine.RunProgress{Run: "b1", VirtualTimeMs: 60_000, Completed: 50, Total: 100, Elapsed: time.Second})
	if s := view(m); !strings.Contains(s, " 50%") || strings.Contains(s, "digesting") {
		t.Fatalf("half way:\n%s", s)
	}
	m = apply(m, engine.RunProgress{Run: "b1", VirtualTimeMs: 120_000, Completed: 100, Total: 100, Elapsed: 2 * time.Second})
	if s := view(m); !strings.Contains(s, "⟳ digesting") || strings.Contains(s, "100%") {
		t.Fatalf("all requests replayed:\n%s", s)
	}
	m = apply(m, engine.RunFinished{Run: "b1", Arm: engine.Baseline, Kind: engine.KindRepetition, Elapsed: 2 * time.Second})
	if s := view(m); !strings.Contains(s, "⟳ digesting") {
		t.Fatalf("process ended, no digest yet:\n%s", s)
	}
	m = apply(m, engine.DigestReady{Run: "b1", Arm: engine.Baseline, Repetition: 1, Digest: "abcdef0123"})
	if s := view(m); strings.Contains(s, "digesting") || !strings.Contains(s, "✓ abcdef") {
		t.Fatalf("digested:\n%s", s)
	}
}

// A run that starts is selected (so the pressure and lifecycle panes show it live) unless the
// user chose a line or another live run is selected.
func TestSelectionFollowsTheLiveRun(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	m = apply(m, started(engine.Baseline, 1, "b1"), started(engine.Candidate, 1, "c1"))
	if r, _ := m.Selected(); r.Run != "b1" {
		t.Fatalf("selected %s while b1 runs", r.Run)
	}
	m = apply(m, engine.RunFinished{Run: "b1", Arm: engine.Baseline, Kind: engine.KindRepetition},
		engine.DigestReady{Run: "b1", Arm: engine.Baseline, Repetition: 1, Digest: "ab"}, started(engine.Baseline, 2, "b2"))
	if r, _ := m.Selected(); r.Run != "b2" {
		t.Fatalf("selected %s, want the newly started b2", r.Run)
	}
}

// Perturbed repetitions get their own lines after the arm's plain ones, labelled by their
// variations; one whose digest differs from the plain digest is marked; the title says how
// the preflight judged the arms.
func TestPerturbedLinesAndPreflight(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	pert := func(id engine.RunID, variation string, try int) engine.RunStarted {
		return engine.RunStarted{Run: id, Arm: engine.Candidate, Kind: engine.KindPerturbed, Repetition: try, Variation: variation, At: time.Unix(0, 0)}
	}
	done := func(id engine.RunID, digest string) []engine.Event {
		return []engine.Event{engine.RunFinished{Run: id, Elapsed: time.Second}, engine.DigestReady{Run: id, Arm: engine.Candidate, Digest: digest}}
	}
	m = apply(m, engine.PreflightDone{Preflight: engine.Preflight{Arm: engine.Baseline, SingleCore: true, MainShare: 0.62, CPUsPerRun: 1}},
		engine.PreflightDone{Preflight: engine.Preflight{Arm: engine.Candidate, SingleCore: true, MainShare: 0.51, CPUsPerRun: 1}},
		started(engine.Candidate, 1, "c1"), started(engine.Candidate, 2, "c2"))
	m = apply(m, append(done("c1", "aaaaaa11"), done("c2", "aaaaaa11")...)...)
	m = apply(m, pert("det/candidate-perturbed", "set", 1))
	m = apply(m, done("det/candidate-perturbed", "bbbbbb22")...)
	m = apply(m, pert("det/candidate-alone-tz-1", "tz", 1), pert("det/candidate-alone-all-cores-1", "all-cores", 1))
	m = apply(m, done("det/candidate-alone-tz-1", "aaaaaa11")...)
	var got []string
	for _, r := range m.Repetitions() {
		got = append(got, LineLabel(r))
	}
	if strings.Join(got, " ") != "cand#1 cand#2 cand~all cand~tz cand~all-cores" {
		t.Fatalf("lines %v", got)
	}
	s := view(m.sized(80, 9))
	for _, want := range []string{
		"2/2 digested · 1 CPU/run",
		"cand~all", "bbbbbb… ≠cand#1",
		"2/2 digested", // the plain repetitions: perturbed lines are counted apart
	} {
		if !strings.Contains(s, want) {
			t.Errorf("view lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "aaaaaa… ≠") {
		t.Errorf("an agreeing perturbed line is marked:\n%s", s)
	}
	// The verdict line names what triggers the second digest.
	m = apply(m, engine.StageVerdict{Stage: engine.StageDeterminism, Arm: engine.Candidate, Verdict: "UNSTABLE",
		Finding: "differs only with all-cores: thread-order dependent"})
	if s := view(m.sized(120, 9)); !strings.Contains(s, "cand UNSTABLE (differs only with all-cores: thread-order dependent)") {
		t.Errorf("verdict line lacks the finding:\n%s", s)
	}
}

// A pane too short for every line cuts the ones that matter last: at 80×24 with the diff pane
// open it has two lines for five repetitions, and they are the UNSTABLE candidate's (the
// selected one and the one it differs from), with the title saying how many are hidden and
// how to see them. A disagreeing digest is never marked ✓.
func TestShortPaneKeepsTheUnstableArmsLinesAndSaysWhatItHides(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	var evs []engine.Event
	for _, r := range []struct {
		arm    engine.Arm
		rep    int
		id     engine.RunID
		digest string
	}{{engine.Baseline, 1, "b1", "aaaaaaaa"}, {engine.Baseline, 2, "b2", "aaaaaaaa"}, {engine.Baseline, 3, "b3", "aaaaaaaa"},
		{engine.Candidate, 1, "c1", "cccccccc"}, {engine.Candidate, 2, "c2", "dddddddd"}} {
		evs = append(evs, started(r.arm, r.rep, r.id), engine.RunFinished{Run: r.id},
			engine.DigestReady{Run: r.id, Arm: r.arm, Repetition: r.rep, Digest: r.digest})
	}
	evs = append(evs, engine.StageVerdict{Stage: engine.StageDeterminism, Arm: engine.Candidate, Verdict: "UNSTABLE"})
	m = apply(m, evs...)
	// The user selects base#1: it stays, and the candidate's lines take the other row.
	m.Focus()
	m, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyHome})
	s := view(m.sized(40, 5)) // title, three lines, verdict
	for _, want := range []string{"+2 more (z zooms)", "base#1", "cand#1", "cand#2", "≠ dddddd… ≠cand#1", "≠ cccccc… ≠cand#2"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "base#2") || strings.Contains(s, "base#3") {
		t.Errorf("a STABLE arm's other lines go first:\n%s", s)
	}
	if strings.Contains(s, "✓ cccccc") || strings.Contains(s, "✓ dddddd") {
		t.Errorf("a digest that disagrees with its arm is never ✓:\n%s", s)
	}
	if !strings.Contains(s, "✓ aaaaaa") {
		t.Errorf("an agreeing digest keeps its ✓:\n%s", s)
	}
	// Every line fits: nothing is said hidden.
	if s := view(m.sized(40, 8)); strings.Contains(s, "more (") {
		t.Errorf("nothing is hidden at 8 rows:\n%s", s)
	}
	// A click on the second drawn line selects what is drawn there.
	m = m.sized(40, 5)
	m.ClickAt(2)
	if r, _ := m.Selected(); r.Run != "c1" {
		t.Errorf("click on line 2 selected %s, want c1", r.Run)
	}
}

// A started repetition keeps the generation its event names: one arm's repetitions of one
// generation ran one build, which is how the diff pane knows two of them are repetitions.
func TestRepetitionKeepsItsGeneration(t *testing.T) {
	m := New(theme.NewStyles(true, false), keys.Default())
	m, _ = m.Update(engine.RunStarted{Run: "det/baseline-1-g2", Arm: engine.Baseline, Kind: engine.KindRepetition, Repetition: 1, Gen: 2})
	reps := m.Repetitions()
	if len(reps) != 1 || reps[0].Gen != 2 {
		t.Fatalf("repetitions %+v, want one of generation 2", reps)
	}
}
