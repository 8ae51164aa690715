package ui

import (
	"strings"
	"testing"

	"kvparity/engine"
	engrun "kvparity/engine/run"
)

// Issue 25, deliverable 2 (open follows live, read-only): while the workbench follows another
// kvparity's campaign, and after that writer ended, its footer offers only the keys that work
// on a follower. The stage keys (x g p), rerun, add repetition and watch are refused by the
// engine (or, for x, would stop nothing: the stage is the writer's), so they are not offered;
// x says why it is refused instead of "stopping the running stage", and q does not warn that it
// stops replays this workbench does not run.
func TestFollowerFooterOffersOnlyWhatWorks(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 240, 30)
	footer := func(m Model) string { l := strings.Split(screen(m), "\n"); return l[len(l)-1] }
	writerKeys := []string{"x stop stage", "g determinism", "p perf", "r rerun", "w watch", "+ add repetition"}
	// The same footer, this workbench the writer: the keys are there to be left out.
	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStarted{Stage: engine.StagePerf}}})
	for _, k := range []string{"x stop stage", "r rerun", "w watch"} {
		if !strings.Contains(footer(m), k) {
			t.Fatalf("the writer's own footer has no %q: %q", k, footer(m))
		}
	}

	f = newFake(testInfo(5000, 60))
	m = newTestModel(t, f, 240, 30)
	holder := engrun.Holder{Owner: engrun.Owner{PID: 4242}, Command: []string{"kvparity", "run", "--stage", "perf"}}
	m = update(t, m, eventsMsg{events: []engine.Event{engine.FollowedWriter{Holder: holder}, engine.StageStarted{Stage: engine.StagePerf}}})
	check := func(when string) {
		t.Helper()
		s := footer(m)
		for _, k := range writerKeys {
			if strings.Contains(s, k) {
				t.Errorf("%s: the footer offers %q, which a follower refuses: %q", when, k, s)
			}
		}
		for _, k := range []string{"tab pane", "d diff", "z zoom pane"} {
			if !strings.Contains(s, k) {
				t.Errorf("%s: the footer lost %q: %q", when, k, s)
			}
		}
		if !strings.HasSuffix(strings.TrimRight(s, " "), "? help · q quit") {
			t.Errorf("%s: the footer does not end in help and quit: %q", when, s)
		}
	}
	check("following a running stage")

	m, _ = updateCmd(t, m, press("x"))
	if hasCall(f.Calls(), "StopStage") {
		t.Error("x on a follower asked the engine to stop a stage it does not run")
	}
	s := screen(m)
	mustContain(t, s, "stop stage refused: kvparity pid 4242 runs this campaign's stages")
	if strings.Contains(s, "stopping the running stage") {
		t.Errorf("x on a follower says it stops the stage:\n%s", s)
	}
	m = update(t, m, press("q"))
	if m.overlay == overlayConfirmQuit {
		t.Error("q on a follower asks to confirm stopping replays it does not run")
	}

	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStopped{Stage: engine.StagePerf}, engine.FollowedWriter{Holder: holder, Ended: true}}})
	check("after the writer ended")
	m = update(t, m, press("x"))
	mustContain(t, screen(m), "stop stage refused: this workbench followed kvparity pid 4242, which has ended")
}

// A campaign opened read-only (followed, or cleaned) names no key that would resume its
// stages when its journal is replayed: no stage resumes here.
func TestReadOnlyReopenNamesNoResumeKeys(t *testing.T) {
	info := testInfo(5000, 60)
	info.ReadOnly = "campaign c is being written by kvparity pid 4242"
	m := newTestModel(t, newFake(info), 240, 30)
	m = update(t, m, eventsMsg{events: []engine.Event{engine.HistoryReplayed{Records: 2}}})
	s := screen(m)
	mustContain(t, s, "campaign reopened: 2 journal records replayed · read-only: no stage resumes here")
	if strings.Contains(s, "resumes the determinism stage") {
		t.Errorf("a read-only campaign names the keys that resume its stages:\n%s", s)
	}
}
