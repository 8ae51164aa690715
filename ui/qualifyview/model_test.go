package qualifyview

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"kvparity/engine"
	"kvparity/engine/qualify"
	qualifydriver "kvparity/qualify"
	"kvparity/ui/theme"
)

func plain() theme.Styles { return theme.NewStyles(true, true) }

var t0 = time.Date(2026, 12, 6, 19, 0, 0, 0, time.UTC)

func probe(purpose string, arm engine.Arm, capacity, count int, class qualify.Class, ms float64) qualify.Probe {
	p := qualify.Probe{ProbeRun: engine.ProbeRun{ProbeRequest: engine.ProbeRequest{Arm: arm, Flag: qualify.DefaultFlag, Value: capacity, Purpose: purpose}, ElapsedMs: ms},
		Point: qualify.Point{Capacity: capacity, Count: count, Class: class}, Kind: "retractions"}
	if class != qualify.Stalled {
		p.Lifecycle = &qualify.Lifecycle{Readmitted: count, Completed: 5000, Requests: 5000, VirtualEndMs: 640458.9}
	} else {
		p.Kind, p.TimedOut = "", true
	}
	return p
}

// script is dynamo-bench 1.5.1's SGLang disaggregated qualification as it ran: a stall stepped
// around, bisected to 14 retractions at 20,480, confirmed, the candidate once.
func script() []qualifydriver.Progress {
	start := &qualify.Result{Flag: qualify.DefaultFlag, Band: qualify.Band{Min: 10, Max: 20}, Seed: 11264, Step: 256}
	ps := []qualify.Probe{
		probe("search", engine.Baseline, 11264, 66, qualify.Above, 2130), probe("search", engine.Baseline, 16896, 0, qualify.Stalled, 60020),
		probe("search", engine.Baseline, 17152, 28, qualify.Above, 2170), probe("search", engine.Baseline, 25856, 0, qualify.Below, 2520),
		probe("search", engine.Baseline, 21504, 4, qualify.Below, 2650), probe("search", engine.Baseline, 19456, 21, qualify.Above, 2200),
		probe("search", engine.Baseline, 20480, 14, qualify.InBand, 2610), probe("confirm", engine.Baseline, 20480, 14, qualify.InBand, 2280),
		probe("confirm", engine.Baseline, 20480, 14, qualify.InBand, 2480), probe("confirm", engine.Baseline, 20480, 14, qualify.InBand, 2300),
		probe("candidate", engine.Candidate, 20480, 0, qualify.Below, 2020),
	}
	out := []qualifydriver.Progress{{Row: "authoritative-sglang-disagg", Start: start}}
	for i := range ps {
		out = append(out, qualifydriver.Progress{Row: "authoritative-sglang-disagg", Running: &engine.RunStarted{Run: engine.RunID("qualify/probe-" + string(rune('a'+i))), At: t0}})
		out = append(out, qualifydriver.Progress{Row: "authoritative-sglang-disagg", Probe: &ps[i]})
	}
	res := &qualify.Result{Outcome: qualify.Qualified, Flag: qualify.DefaultFlag, Band: start.Band, Chosen: 20480,
		Why: "20480 blocks give 14 retractions (band 10–20); 4 fresh processes (the probe and 3 repetitions) gave one digest 09b5b40713ae and identical counters; the candidate at the same capacity gave 0 retractions (outside the band: a changed count is recorded, never tuned away; digest 18c42eee25f8)"}
	return append(out, qualifydriver.Progress{Row: "authoritative-sglang-disagg", Result: res})
}

func stateAfter(ps []qualifydriver.Progress) snapshot {
	var s snapshot
	for _, p := range ps {
		s.apply(p)
	}
	return s.clone()
}

func update(t *testing.T, m Model, msg tea.Msg) Model {
	t.Helper()
	next, _ := m.Update(msg)
	return next.(Model)
}

func screen(m Model) string { return ansi.Strip(m.render(m.width, m.height)) }

// While a probe runs the view says which and for how long; the ladder orders the baseline's
// probes by capacity with their classes; the end shows the outcome and its reason.
func TestProbesLiveThenTheOutcome(t *testing.T) {
	now = func() time.Time { return t0.Add(12 * time.Second) }
	defer func() { now = time.Now }()
	ps := script()
	m := New(plain(), nil)
	m.SetSize(110, 24)
	m = update(t, m, snapshotMsg(stateAfter(ps[:4]))) // the stall is running
	s := screen(m)
	for _, want := range []string{"QUALIFY authoritative-sglang-disagg · --num-gpu-blocks from 11264 · band 10–20 · step 256",
		"▸ probing qualify/probe-b · 12s", "ladder 11264 ▲66", "1   search    baseline  11264   66 retractions  above"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	m = update(t, m, snapshotMsg(stateAfter(ps)))
	m = update(t, m, doneMsg{Code: 0})
	s = screen(m)
	for _, want := range []string{"search over · 11 probes",
		"ladder 11264 ▲66 · 16896 ✕stall · 17152 ▲28 · 19456 ▲21 · 20480 ●14 · 21504 ▼4 · 25856 ▼0",
		"QUALIFIED: 20480 blocks give 14 retractions (band 10–20);", "   ", "11  candidate candidate 20480   0 retractions   below"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "probing") {
		t.Errorf("a finished qualification still says it is probing:\n%s", s)
	}
}

// The table follows the newest probe until a key scrolls it; the end key follows again.
func TestTableScrollsAndFollows(t *testing.T) {
	ps := script()
	m := New(plain(), nil)
	m.SetSize(110, 12) // 5 probe lines
	m = update(t, m, snapshotMsg(stateAfter(ps)))
	if m.top != 11-5 || !strings.Contains(screen(m), "11  candidate") {
		t.Fatalf("top %d:\n%s", m.top, screen(m))
	}
	m = update(t, m, tea.KeyPressMsg{Code: tea.KeyHome})
	if m.top != 0 || m.follow || !strings.Contains(screen(m), "1   search    baseline  11264") {
		t.Fatalf("home: top %d follow %v", m.top, m.follow)
	}
	m = update(t, m, snapshotMsg(stateAfter(ps)))
	if m.top != 0 {
		t.Fatalf("a new snapshot moved a scrolled table to %d", m.top)
	}
	m = update(t, m, tea.KeyPressMsg{Code: tea.KeyEnd})
	if m.top != 6 || !m.follow {
		t.Fatalf("end: top %d follow %v", m.top, m.follow)
	}
}

// An end without a result (a refused row, an interrupt) says so with its exit status.
func TestEndWithoutAResult(t *testing.T) {
	m := New(plain(), nil)
	m.SetSize(100, 20)
	m = update(t, m, doneMsg{Code: 3})
	if s := screen(m); !strings.Contains(s, "qualification ended without a result (exit 3): see stderr") {
		t.Fatalf("screen:\n%s", s)
	}
}

// The standalone program at a fixed size through the feed: the final screen, ANSI stripped,
// against testdata/TestGoldenQualify.golden (go test -update).
func TestGoldenQualify(t *testing.T) {
	now = func() time.Time { return t0.Add(3 * time.Second) }
	defer func() { now = time.Now }()
	f := NewFeed()
	m := New(plain(), f)
	m.Standalone = true
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 24))
	for _, p := range script() {
		f.Publish(p)
	}
	f.Finish(0)
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("QUALIFIED")) }, teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
	if fm.done == nil {
		t.Fatal("the end was not delivered")
	}
	golden.RequireEqual(t, ansi.Strip(fm.View().Content))
}

// A running probe's age is redrawn every second until the probe ends: a stall must not read
// "0s" for its whole minute.
func TestRunningProbeAgeTicks(t *testing.T) {
	ps := script()
	m := New(plain(), nil)
	next, cmd := m.Update(snapshotMsg(stateAfter(ps[:2])))
	m = next.(Model)
	if cmd == nil {
		t.Fatal("a probe started and no redraw was scheduled")
	}
	next, cmd = m.Update(tickMsg{run: m.state.Running})
	if cmd == nil {
		t.Fatal("the tick stopped while the probe still runs")
	}
	m = next.(Model)
	m = update(t, m, snapshotMsg(stateAfter(ps[:3]))) // the probe ended
	if _, cmd = m.Update(tickMsg{run: "qualify/probe-a"}); cmd != nil {
		t.Fatal("the tick went on after the probe ended")
	}
}
