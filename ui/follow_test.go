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

// Issue 42: a follower whose writer was killed mid-stage (nothing recorded its end) says what
// it saw, never that it killed anything: the stage has no end record, the writer's process is
// gone, which of its runs have no end record and whether their process groups still run, and
// that the next writer's resume stops them. A stop its writer recorded is worded as the
// writer's, with the recorded cause.
func TestFollowerSaysWhatItSawWhenItsWriterDies(t *testing.T) {
	holder := engrun.Holder{Owner: engrun.Owner{PID: 4242}, Command: []string{"kvparity", "run", "--stage", "determinism"}}
	follow := func() Model {
		m := newTestModel(t, newFake(testInfo(5000, 60)), 240, 30)
		return update(t, m, eventsMsg{events: []engine.Event{engine.FollowedWriter{Holder: holder}, engine.StageStarted{Stage: engine.StageDeterminism}}})
	}
	m := follow()
	m = update(t, m, eventsMsg{events: []engine.Event{
		engine.StageStopped{Stage: engine.StageDeterminism, Cancelled: true, WriterGone: true},
		engine.FollowedWriter{Holder: holder, Ended: true, Unfinished: []engine.UnfinishedRun{
			{Run: "det/baseline-1", PGID: 5611, Running: []int{5611, 5620}},
			{Run: "det/candidate-1", PGID: 5612},
		}},
	}})
	log := m.logText()
	if strings.Contains(log, "killed") || strings.Contains(screen(m), "killed") {
		t.Errorf("the follower says runs were killed; it stopped nothing:\n%s", log)
	}
	for _, want := range []string{
		"determinism stage has no end record: kvparity pid 4242, which ran it, is gone",
		"kvparity pid 4242 has stopped writing this campaign: its process is gone (its lock file still names it); 2 runs it started have no end record, 1 still running (seen in /proc; not stopped here): the next writer's resume stops them",
		"det/baseline-1 has no end record; its process group 5611 still runs (pids 5611 5620): this workbench is read-only and stops nothing, the next writer's resume stops it",
		"det/candidate-1 has no end record; no process of its group 5612 runs",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	mustContain(t, screen(m), "kvparity pid 4242 has stopped writing this campaign: its process is gone")

	// Its writer released the lock with nothing left unfinished.
	m = follow()
	m = update(t, m, eventsMsg{events: []engine.Event{engine.FollowedWriter{Holder: holder, Ended: true, Released: true}}})
	mustContain(t, m.logText(), "kvparity pid 4242 has stopped writing this campaign: it released the campaign lock\n")

	// A stop the writer recorded: the writer's, with its recorded cause.
	m = follow()
	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStopped{Stage: engine.StageDeterminism, Cancelled: true, Reason: "terminated signal received"}}})
	log = m.logText()
	mustContain(t, log, "determinism stage stopped by kvparity pid 4242, which writes the campaign (its end record says: terminated signal received)")
	if strings.Contains(log, "were killed") {
		t.Errorf("the follower words its writer's recorded stop as its own kill:\n%s", log)
	}
}
