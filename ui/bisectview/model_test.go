package bisectview

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"kvparity/bisect"
	"kvparity/diffview"
	"kvparity/diffview/diagnose"
	"kvparity/engine"
	"kvparity/engine/build"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

func plain() theme.Styles { return theme.NewStyles(true, true) }

// history is the fixture's history (scripts/bisect-fixture.sh): eight commits after base,
// c4 does not build, c6 is the router's tie-break change.
func history() (bisect.Commit, []bisect.Commit) {
	subjects := []string{"kv-router: a comment line (the desk loop's edit)", "bench: a comment line", "kv-router: a comment line",
		"kv-router: a constant that does not compile", "kv-router: remove the constant that did not compile",
		"kv-router: a later worker of equal cost wins the tie", "bench: another comment line", "kv-router: another comment line"}
	cs := make([]bisect.Commit, len(subjects))
	for i, s := range subjects {
		cs[i] = bisect.Commit{SHA: fmt.Sprintf("c%d%s", i+1, strings.Repeat(fmt.Sprint(i+1), 39)), Subject: s, AuthorDate: fmt.Sprintf("2026-01-%02dT00:00:00+00:00", i+3)}
	}
	return bisect.Commit{SHA: strings.Repeat("b", 40), Subject: "base: the published 1.5.1 crates", AuthorDate: "2026-01-02T00:00:00+00:00"}, cs
}

func started(recorded ...bisect.Step) bisect.Progress {
	good, cs := history()
	return bisect.Progress{Commit: good.SHA, Phase: bisect.PhaseStarted, Started: &bisect.Started{Row: "fixture", Judge: bisect.JudgeSemantic,
		Repo: "/src/dynamo", Dir: "/b", Good: good, Commits: cs, Recorded: recorded, Range: bisect.Range{LastGood: -1, FirstBad: -1, Left: 1}}}
}

func step(n int, c bisect.Commit, o bisect.Outcome, why string) bisect.Step {
	s := bisect.Step{N: n, Commit: c.SHA, Subject: c.Subject, Outcome: o, Why: why, Seconds: 40,
		Build: &bisect.StepBuild{Seconds: 31, Incremental: true, Units: 4, ChangedFiles: 1}}
	if o != bisect.Skip {
		s.Campaign = "probe-" + c.Short()
	} else {
		s.Build = nil
	}
	return s
}

// script is a whole bisect of the fixture as bisect.Run reports it: c8 bad, c4 skipped (does
// not build), c5 good, c6 bad (the first bad one); c7 is left untried.
func script() ([]bisect.Progress, *bisect.Result) {
	good, cs := history()
	judged := func(s bisect.Step, lo, hi, left int) bisect.Progress {
		return bisect.Progress{Commit: s.Commit, Phase: bisect.PhaseJudged, Step: &s, Range: &bisect.Range{LastGood: lo, FirstBad: hi, Left: left}}
	}
	bad := "its canonical digest differs from the good commit's: 3 of 3 differing pointers are covered by no exception record (first: /per_request/0/routing_history/0/logical_worker_id)"
	s1 := step(1, cs[7], bisect.Bad, bad)
	s2 := step(2, cs[3], bisect.Skip, "does not build, not judged: error[E0308]: mismatched types · expected `u32`, found `&str` (cargo build exited 101)")
	s3 := step(3, cs[4], bisect.Good, "its canonical digest equals the good commit's (canonical reports are byte-identical: 8f2c1a0b9d3e)")
	s4 := step(4, cs[5], bisect.Bad, bad)
	ps := []bisect.Progress{started(),
		{Commit: good.SHA, Phase: bisect.PhaseBuilding, Build: &engine.BuildProgress{Arm: engine.Baseline, Progress: build.Progress{Phase: "cached"}}},
		{Commit: cs[7].SHA, Phase: bisect.PhaseBuilding},
		{Commit: cs[7].SHA, Phase: bisect.PhaseBuilding, Build: &engine.BuildProgress{Arm: engine.Candidate, Progress: build.Progress{Phase: "compiling", Units: 3, Current: "dynamo-kv-router v1.5.1", Elapsed: 20 * time.Second}}},
		{Commit: cs[7].SHA, Phase: bisect.PhaseRunning},
		{Commit: cs[7].SHA, Phase: bisect.PhaseRunning, Event: engine.RunStarted{Run: "det/candidate-1", Arm: engine.Candidate}},
		{Commit: cs[7].SHA, Phase: bisect.PhaseRunning, Event: engine.RunFinished{Run: "det/candidate-1", Arm: engine.Candidate}},
		{Commit: cs[7].SHA, Phase: bisect.PhaseRunning, Event: engine.StageVerdict{Stage: engine.StageDeterminism, Arm: engine.Candidate, Verdict: verdict.Stable}},
		{Commit: cs[7].SHA, Phase: bisect.PhaseRunning, Event: engine.StageVerdict{Stage: engine.StageParity, Verdict: verdict.Fail}},
		judged(s1, -1, 7, 3),
		judged(s2, -1, 7, 3),
		judged(s3, 4, 7, 2),
		judged(s4, 4, 5, 0),
	}
	c6 := cs[5]
	c6.DiffStat = " lib/kv-router/src/scheduling/selector/default.rs | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)"
	c5 := cs[4]
	r := &bisect.Result{Row: "fixture", Judge: bisect.JudgeSemantic, Dir: "/b", Good: good, Bad: cs[7], Commits: 8, Status: bisect.StatusFound,
		Reason:   c6.Short() + " is the first bad commit (" + bad + "); " + c5.Short() + " before it is good",
		FirstBad: &c6, LastGood: &c5, Steps: []bisect.Step{s1, s2, s3, s4}, Builds: 3, Campaign: "/b/probe-" + c6.Short(), ExitCode: verdict.ExitFail,
		Diagnosis: &bisect.Diagnosis{Differing: 3, First: &diffview.JSONFirst{Text: "t=12.5 ms · routing · /per_request/0/routing_history/0/logical_worker_id 0 → 1"},
			Causes: []diagnose.Signature{{Label: "equal-cost tie broken the other way", Explains: 3, Of: 3}}}}
	return ps, r
}

func update(t *testing.T, m Model, msg tea.Msg) (Model, tea.Cmd) {
	t.Helper()
	next, cmd := m.Update(msg)
	return next.(Model), cmd
}

func stateAfter(ps []bisect.Progress) snapshot {
	var s snapshot
	for _, p := range ps {
		s.apply(p)
	}
	return s
}

func TestStateFoldsTheBisect(t *testing.T) {
	ps, _ := script()
	_, cs := history()
	s := stateAfter(ps[:9])
	c8 := s.Commits[7]
	if s.Current != cs[7].SHA || c8.Phase != bisect.PhaseRunning || c8.Runs != 1 || c8.Run != "" || c8.Units != 3 || c8.Crate != "dynamo-kv-router v1.5.1" {
		t.Fatalf("c8 while its probe runs: %+v (current %s)", c8, s.Current)
	}
	if len(c8.Verdicts) != 2 || c8.Verdicts[0] != (decided{"candidate", verdict.Stable}) || c8.Verdicts[1] != (decided{"parity", verdict.Fail}) {
		t.Fatalf("verdicts so far: %+v", c8.Verdicts)
	}
	if s.Good.Build != "cached" || s.Good.Step != nil {
		t.Fatalf("the good ref: %+v", s.Good)
	}
	s = stateAfter(ps)
	if s.Steps != 4 || s.Current != "" || s.Range != (bisect.Range{LastGood: 4, FirstBad: 5, Left: 0}) {
		t.Fatalf("after the search: steps %d current %q range %+v", s.Steps, s.Current, s.Range)
	}
	for i, want := range []bisect.Outcome{"", "", "", bisect.Skip, bisect.Good, bisect.Bad, "", bisect.Bad} {
		if got := s.Commits[i].outcome(); got != want {
			t.Errorf("c%d: %q, want %q", i+1, got, want)
		}
	}
	// A resumed bisect: the recorded steps are drawn before anything runs.
	_, r := script()
	s = stateAfter([]bisect.Progress{started(r.Steps[:2]...)})
	if s.Steps != 2 || s.Commits[7].outcome() != bisect.Bad || s.Commits[3].outcome() != bisect.Skip {
		t.Fatalf("resumed: %+v", s)
	}
	// The snapshot is a copy: folding more does not change one handed out.
	snap := stateAfter(ps[:9]).clone()
	live := stateAfter(ps[:9])
	live.apply(bisect.Progress{Commit: cs[7].SHA, Phase: bisect.PhaseRunning, Event: engine.StageVerdict{Stage: engine.StageParity, Verdict: verdict.Pass}})
	if snap.Commits[7].Verdicts[1].Verdict != verdict.Fail {
		t.Fatal("a snapshot must not share the live state's slices")
	}
}

func TestRenderShowsStatesAndRange(t *testing.T) {
	ps, r := script()
	m := New(plain(), nil, nil)
	m, _ = update(t, m, snapshotMsg(stateAfter(ps[:9])))
	out := ansi.Strip(m.render(120, 20))
	for _, want := range []string{"BISECT 0 steps · ≤1 probe left · 8 commits bbbbbbbbbbbb..c88888888888 · judge semantic · fixture",
		"▸ ┃c88888888888  running", "candidate STABLE · parity FAIL · 1 run done", "good ref", "every probe's baseline"} {
		if !strings.Contains(out, want) {
			t.Errorf("while c8 runs, missing %q:\n%s", want, out)
		}
	}
	m, _ = update(t, m, snapshotMsg(stateAfter(ps)))
	m, _ = update(t, m, doneMsg{Result: r})
	out = ansi.Strip(m.render(120, 24))
	for _, want := range []string{"search over", "┃c66666666666  FIRST BAD", "c55555555555  good", "c44444444444  skip",
		"c77777777777  (bad)", "c33333333333  (good)", "found: c66666666666 is the first bad commit",
		"found: c66666666666 is the first bad commit, c55555555555 before it is good · 4 probes, 3 builds compiled",
		"first bad c66666666666 kv-router: a later worker of equal cost wins the tie · 1 file changed, 1 insertion(+)",
		"first divergence t=12.5 ms · routing · /per_request/0/routing_history/0/logical_worker_id 0 → 1 · cause: equal-cost",
		"bbbbbbbbbbbb  good ref  base: the published 1.5.1 crates", "every probe's baseline · cached build",
		"step 4 · built in 31 s, incremental (1 file, 4 units) · probe 40 s · /b/probe-c66666666666 (enter opens it)"} {
		if !strings.Contains(out, want) {
			t.Errorf("at the end, missing %q:\n%s", want, out)
		}
	}
	// The cursor went to the first bad commit (it followed the probes until then).
	if c, _ := m.selected(); c.Commit.SHA != r.FirstBad.SHA {
		t.Errorf("selected %s at the end", c.Commit.Short())
	}
	for i, l := range strings.Split(out, "\n") {
		if ansi.StringWidth(l) > 120 {
			t.Errorf("line %d is %d cells wide", i, ansi.StringWidth(l))
		}
	}
}

func TestEnterOpensAJudgedProbe(t *testing.T) {
	ps, _ := script()
	var opened []string
	m := New(plain(), nil, func(dir string) tea.Cmd { opened = append(opened, dir); return nil })
	m, _ = update(t, m, snapshotMsg(stateAfter(ps[:9])))
	enter := tea.KeyPressMsg{Code: tea.KeyEnter}
	m, _ = update(t, m, enter) // c8 is being probed
	if len(opened) != 0 || !strings.Contains(m.note, "is being probed") {
		t.Fatalf("a running probe must not be opened: %v %q", opened, m.note)
	}
	m, _ = update(t, m, snapshotMsg(stateAfter(ps)))
	m, _ = update(t, m, tea.KeyPressMsg{Code: tea.KeyHome})
	m, _ = update(t, m, enter) // c8: judged bad
	m, _ = update(t, m, tea.KeyPressMsg{Code: tea.KeyDown})
	m, _ = update(t, m, enter) // c7: never probed
	if !strings.Contains(m.note, "not probed") {
		t.Fatalf("c7: %q", m.note)
	}
	for range 3 {
		m, _ = update(t, m, tea.KeyPressMsg{Code: 'j', Text: "j"})
	}
	m, _ = update(t, m, enter) // c4: did not build
	if !strings.Contains(m.note, "did not build") {
		t.Fatalf("c4: %q", m.note)
	}
	m, _ = update(t, m, tea.KeyPressMsg{Code: tea.KeyEnd})
	m, _ = update(t, m, enter) // the good ref
	if !strings.Contains(m.note, "baseline") {
		t.Fatalf("the good ref: %q", m.note)
	}
	if len(opened) != 1 || opened[0] != "/b/probe-c88888888888" {
		t.Fatalf("opened %v", opened)
	}
	// Moving the cursor stops it following the probes.
	m, _ = update(t, m, snapshotMsg(stateAfter(ps[:9])))
	if c, _ := m.selected(); c.Commit.SHA == ps[8].Commit {
		t.Fatal("the cursor followed the probe after the user moved it")
	}
}

// The feed folds every Progress but hands over only the newest snapshot, and the end after it.
func TestFeedFoldsAndKeepsTheNewest(t *testing.T) {
	ps, r := script()
	f := NewFeed()
	for _, p := range ps {
		f.Publish(p)
	}
	f.Finish(r, nil)
	msg := f.Wait()()
	s, ok := msg.(snapshotMsg)
	if !ok || s.Steps != 4 {
		t.Fatalf("first message %T %+v", msg, msg)
	}
	if d, ok := f.Wait()().(doneMsg); !ok || d.Result != r {
		t.Fatalf("then the end, got %T", d)
	}
}

// The standalone program at a fixed size, the whole scripted bisect through the feed: the
// final screen, ANSI stripped, against testdata/TestGoldenBisect.golden (go test -update).
func TestGoldenBisect(t *testing.T) {
	ps, r := script()
	f := NewFeed()
	m := New(plain(), f, nil)
	m.Standalone = true
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 24))
	for _, p := range ps {
		f.Publish(p)
	}
	f.Finish(r, nil)
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("FIRST BAD")) }, teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	if _, ok := fm.ended(); !ok {
		t.Fatal("the end was not delivered")
	}
	golden.RequireEqual(t, ansi.Strip(fm.View().Content))
}
