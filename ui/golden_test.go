package ui

import (
	"bytes"
	"fmt"
	"kvparity/engine"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestGolden drives the real program (teatest) through a whole scripted campaign from the
// keyboard — S, wait for parity, p, wait for the perf verdict — and compares the final
// screen, ANSI stripped, with testdata/TestGolden/<size>.golden (go test -update rewrites).
func TestGolden(t *testing.T) {
	for _, sz := range [][2]int{{100, 30}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			f := newFake(testInfo(5000, 60))
			f.perf = perfScript(60)
			tm := runBothStages(t, f, sz)
			teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
				return bytes.Contains(b, []byte("bounds ["))
			}, teatest.WithDuration(5*time.Second))
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*settledModel).Model
			golden.RequireEqual(t, ansi.Strip(fm.View().Content))
			if got := f.Calls(); len(got) < 2 || got[0] != "StartDeterminism" || got[1] != "StartPerf" {
				t.Fatalf("keys should have started both stages, calls %v", got)
			}
		})
	}
}

// runBothStages starts the real program on f's scripted campaign (the default determinism
// script, f's perf script) at size sz and presses S, then p, each once its stage's events are
// drawn.
func runBothStages(t *testing.T, f *fakeController, sz [2]int) *teatest.TestModel {
	t.Helper()
	f.det = determinismScript(5000, 14)
	m := New(Options{Controller: f, Assess: f.assess, Clock: fixedClock})
	tm := teatest.NewTestModel(t, &settledModel{Model: m}, teatest.WithInitialTermSize(sz[0], sz[1]))
	settled := settler(t, tm, f)
	tm.Type("S")
	settled("StartDeterminism", len(f.det), 1)
	tm.Type("p")
	settled("StartPerf", len(f.det)+len(f.perf), 2)
	return tm
}

// settler waits until the program has made the Controller call and applied exactly `events`
// engine events, at least `actions` call outcomes and the last assessment, and has drawn them:
// the renderer writes only changed cells, so the output stream is not a place to look for
// whole words.
func settler(t *testing.T, tm *teatest.TestModel, f *fakeController) func(call string, events, actions int) {
	return func(call string, events, actions int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !hasCall(f.Calls(), call) || !isSettled(tm, events, actions) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: events not consumed in time (calls %v)", call, f.Calls())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// settledModel wraps the workbench to count what it has applied: engine events, Controller
// call outcomes and assessments. A settledQuery, answered in order with every other message,
// tells the test whether the program has caught up and drawn it.
type settledModel struct {
	Model
	events, actions int
	assessed        int // the newest assessment applied (Model.assessN when current)
	uiSaved         int // ui-state.json saves answered (the fake campaign folder does not exist)
}

type settledQuery struct {
	events, actions int
	reply           chan bool
}

func (s *settledModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case settledQuery:
		msg.reply <- s.events == msg.events && s.actions >= msg.actions && s.assessed == s.assessN && !s.pace.dirty
		return s, nil
	case eventsMsg:
		s.events += len(msg.events)
	case actionDoneMsg:
		s.actions++
	case uiStateSavedMsg:
		s.uiSaved++
	case verdictsMsg:
		if msg.n == s.assessN {
			s.assessed = msg.n
		}
	}
	m, cmd := s.Model.Update(msg)
	s.Model = m.(Model)
	return s, cmd
}

// isSettled asks the running program whether it has applied exactly `events` engine events and
// at least `actions` Controller call outcomes, holds the newest assessment and has drawn them all
// (no stale frame).
func isSettled(tm *teatest.TestModel, events, actions int) bool {
	q := settledQuery{events: events, actions: actions, reply: make(chan bool, 1)}
	tm.Send(q)
	select {
	case ok := <-q.reply:
		return ok
	case <-time.After(time.Second):
		return false
	}
}

// TestGoldenQuitClosesController checks the q path through the real program: the controller is
// closed (children stopped) before the program ends.
func TestGoldenQuitClosesController(t *testing.T) {
	f := newFake(testInfo(200, 4))
	tm := teatest.NewTestModel(t, New(Options{Controller: f, Assess: f.assess, Clock: fixedClock}), teatest.WithInitialTermSize(100, 30))
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if !hasCall(f.Calls(), "Close") {
		t.Fatalf("quit must close the controller; calls %v", f.Calls())
	}
}

// TestGoldenBusyMachine drives the perf stage on a busy machine (the same script as the perf
// pane's model test, through the real program): the pair that needed six attempts, the
// invalidations with their dominant cause, the attempts the rerun pair has left, the time
// estimate and the plain "too busy" statement, at 110×34 and 80×24.
func TestGoldenBusyMachine(t *testing.T) {
	for _, sz := range [][2]int{{110, 34}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			f := newFake(testInfo(5000, 20))
			f.perf = busyPerfScript()
			tm := runBothStages(t, f, sz)
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*settledModel).Model
			golden.RequireEqual(t, ansi.Strip(fm.View().Content))
		})
	}
}

// busyPerfScript is a perf stage on a loaded machine, stopped mid-way: pair 1 invalidated five
// times by competing load, two valid pairs, pair 3's candidate invalidated by throttling and
// its second attempt running.
func busyPerfScript() []engine.Event {
	evs := []engine.Event{engine.StageStarted{Stage: engine.StagePerf}, engine.PerfSummary{Total: 20, MaxInvalidations: 10, WarmupsDone: 5, WarmupsTotal: 5}}
	for a := 1; a <= 5; a++ {
		evs = append(evs, engine.SampleInvalidated{Pair: 1, Attempt: a, Reason: fmt.Sprintf(
			"perf/pair-001-baseline-a%d: competing load on CPU 1: 300 ms of 900 ms busy was not the sample (limit 45 ms)", a),
			Causes: []string{"competing load on CPU 1"}})
	}
	for p := 1; p <= 2; p++ {
		for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
			id := engine.RunID(fmt.Sprintf("perf/pair-%03d-%s", p, arm))
			evs = append(evs, engine.RunStarted{Run: id, Arm: arm, Kind: engine.KindSample, Repetition: p, At: t0},
				engine.RunFinished{Run: id, Arm: arm, Kind: engine.KindSample, Elapsed: 2 * time.Second},
				engine.SampleDone{Run: id, Arm: arm, Index: p, Attempt: 1, Ms: 1000})
		}
		evs = append(evs, engine.PairDone{Pair: p, BaselineFirst: p%2 == 0, BaselineMs: 1000, CandidateMs: 1010, Ratio: 1.01, Done: p, Total: 20})
	}
	return append(evs,
		engine.SampleInvalidated{Pair: 3, Attempt: 1, Reason: "perf/pair-003-candidate-a1: thermal throttling during the sample: package +1",
			Causes: []string{"thermal throttling during the sample"}},
		engine.RunStarted{Run: "perf/pair-003-baseline-a2", Arm: engine.Baseline, Kind: engine.KindSample, Repetition: 3, At: t0})
}
