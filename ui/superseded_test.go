package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
)

// settleDiff feeds the commands' messages back until the diff pane has loaded what it was
// asked to open (two rounds: the open request, then the load).
func settleDiff(t *testing.T, m Model, msgs []tea.Msg) Model {
	t.Helper()
	// Loading a 5,000-request diff can take longer than a pump's 300 ms under the race detector
	// on a loaded machine (issue 42): wait for the loads, at the price of a blocked pump's wait.
	saved := cmdWait
	cmdWait = 5 * time.Second
	defer func() { cmdWait = saved }()
	for round := 0; round < 3 && len(msgs) > 0; round++ {
		var next []tea.Msg
		for _, msg := range msgs {
			var more []tea.Msg
			m, more = updateCmd(t, m, msg)
			next = append(next, more...)
		}
		msgs = next
	}
	return m
}

// diffTitle is the diff pane's title line on screen ("" when the pane is not drawn).
func diffTitle(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "DIFF") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// Issue 44, item B ("a stale diff"): the desk loop rebuilt the candidate, pinned generation 2
// and reran; the diff pane kept showing generation 1's differences, unmarked, even once the
// new generation passed. Now the rebuild marks the open diff stale at once, and the new
// generation's parity PASS clears it.
func TestARebuildSupersedesTheOpenDiff(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 110, 34)
	m, msgs := updateCmd(t, m, eventsMsg{events: semanticScript(t, t.TempDir())})
	m = settleDiff(t, m, msgs)
	before := diffTitle(screen(m))
	if !strings.Contains(before, "DIFF  base#1 ↔ cand#1") || !strings.Contains(before, "differing") {
		t.Fatalf("generation 1's parity FAIL opens its diff; title %q\n%s", before, screen(m))
	}

	// The candidate is rebuilt: generation 2 pinned, generation 1 stale, the stage reruns.
	rebuilt := engine.ArtifactChanged{Arm: engine.Candidate, Path: "/src/dynamo/target/release/offline_replay_bench",
		OldSHA256: "aa", NewSHA256: "bb", Repinned: true, OldGen: 1, NewGen: 2}
	m, _ = updateCmd(t, m, eventsMsg{events: []engine.Event{rebuilt}})
	if got := diffTitle(screen(m)); !strings.HasPrefix(got, "DIFF (generation 1, superseded by generation 2: rerunning)  base#1 ↔ cand#1") {
		t.Fatalf("after the rebuild the diff is not marked stale; title %q\n%s", got, screen(m))
	}

	// Generation 2 reruns and its reports match the baseline's: parity PASS.
	m, msgs = updateCmd(t, m, eventsMsg{events: determinismScript(5000, 14)})
	m = settleDiff(t, m, msgs)
	s := screen(m)
	if got := diffTitle(s); got != "DIFF  (none: baseline and candidate are byte-identical)" {
		t.Fatalf("after generation 2's parity PASS the diff pane still shows %q\n%s", got, s)
	}
	if strings.Contains(s, "differing") || strings.Contains(s, "preemption_mode") {
		t.Fatalf("generation 1's differences are still on screen:\n%s", s)
	}
}

// A rebuild that fails parity again: the new generation's diff replaces the old one; while a
// stale diff waits for its replacement the mark names the new generation's parity.
func TestARebuildThatStillDiffersReplacesTheDiff(t *testing.T) {
	dir := t.TempDir()
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 110, 34)
	m, msgs := updateCmd(t, m, eventsMsg{events: semanticScript(t, dir)})
	m = settleDiff(t, m, msgs)
	m, _ = updateCmd(t, m, eventsMsg{events: []engine.Event{engine.ArtifactChanged{Arm: engine.Candidate, Repinned: true, OldGen: 1, NewGen: 2}}})
	m, msgs = updateCmd(t, m, eventsMsg{events: semanticScript(t, dir)})
	m = settleDiff(t, m, msgs)
	// (The rerun's repetitions are second attempts: "·a2".)
	if got := diffTitle(screen(m)); !strings.HasPrefix(got, "DIFF  base#1·a2 ↔ cand#1·a2") || !strings.Contains(got, "differing") {
		t.Fatalf("generation 2's diff replaces generation 1's; title %q", got)
	}
	// Either arm's rebuild supersedes a diff that compares both.
	m.diff.Supersede(engine.Baseline, 1, 2, true)
	if got := diffTitle(screen(m)); !strings.Contains(got, "superseded") {
		t.Fatalf("the diff compares the baseline too: %q", got)
	}
	m.diff.SetParity("FAIL")
	if got := diffTitle(screen(m)); !strings.HasPrefix(got, "DIFF (generation 1, superseded by generation 2: parity FAIL)") {
		t.Fatalf("the new generation's verdict beside the stale mark: %q", got)
	}
}
