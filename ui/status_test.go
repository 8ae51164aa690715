package ui

import (
	"errors"
	"strings"
	"testing"

	"kvparity/engine"
	engrun "kvparity/engine/run"
)

func TestRefusedActionIsAProblemInWords(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	f.perfErr = errors.New("determinism has not passed: candidate UNSTABLE")
	m := newTestModel(t, f, 100, 30)
	m, msgs := updateCmd(t, m, press("p"))
	m = feed(t, m, msgs)
	mustContain(t, screen(m), "start performance refused: determinism has not passed: candidate UNSTABLE")
}

func TestProblemsAreShownOnTheStatusLine(t *testing.T) {
	cases := []struct {
		name string
		ev   engine.Event
		want string
	}{
		{"replay error", engine.RunFinished{Run: "det/baseline-1", Arm: engine.Baseline, Kind: engine.KindRepetition,
			ExitCode: 101, Err: errors.New("exit status 101: thread 'main' panicked")},
			"replay error in det/baseline-1: exit status 101: thread 'main' panicked"},
		{"blocked row", engine.RowBlocked{Stage: engine.StageDeterminism, Reason: "metadata.replay_bench is false"},
			"row BLOCKED at the determinism stage: metadata.replay_bench is false"},
		{"stale artifact", engine.ArtifactChanged{Arm: engine.Candidate, Path: "/src/target/release/bench",
			OldSHA256: "aa", NewSHA256: "bb"}, "STALE: candidate binary changed after pinning"},
		{"row file changed", engine.ArtifactChanged{Path: "/rows/vllm.toml", OldSHA256: "aa", NewSHA256: "bb"},
			"STALE: the row file changed; this campaign keeps its frozen row.toml"},
		{"unstable", engine.StageVerdict{Stage: engine.StageDeterminism, Arm: engine.Candidate, Verdict: "UNSTABLE",
			Reason: "2 digests over 2 repetitions"}, "determinism candidate: UNSTABLE (2 digests over 2 repetitions)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(testInfo(5000, 60))
			m := newTestModel(t, f, 120, 30)
			m = update(t, m, eventsMsg{events: []engine.Event{c.ev}})
			lines := strings.Split(screen(m), "\n")
			if !strings.Contains(lines[3], c.want) {
				t.Fatalf("status line %q lacks %q", lines[3], c.want)
			}
		})
	}
}

func TestEscDismissesAProblem(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m = update(t, m, eventsMsg{events: []engine.Event{engine.RunFinished{Run: "det/baseline-1", Err: errors.New("boom")}}})
	if !m.status.problem {
		t.Fatal("a replay error should be a problem")
	}
	m = update(t, m, press("esc"))
	if m.status.problem {
		t.Fatal("esc should dismiss the problem")
	}
}

func TestStopKeySaysWhatItDoes(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m = update(t, m, press("x"))
	mustContain(t, screen(m), "no stage is running")
	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStarted{Stage: engine.StageDeterminism}}})
	m = update(t, m, press("x"))
	m = update(t, m, press("y"))
	mustContain(t, screen(m), "stopping the determinism stage")
}

func TestRepinRefreshesArtifactsThroughACommand(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 140, 30)
	f.info.Artifacts[engine.Candidate] = engine.ArtifactInfo{Arm: engine.Candidate, Revision: "e4f5a6b7c8d9",
		SHA256: "beef0123456789", Size: 9_500_000, TextSize: 4_227_858}
	m, msgs := updateCmd(t, m, eventsMsg{events: []engine.Event{engine.ArtifactChanged{Arm: engine.Candidate,
		Path: "/src/bench", OldSHA256: "9a8b", NewSHA256: "beef0123456789", Repinned: true}}})
	m = feed(t, m, msgs)
	s := screen(m)
	mustContain(t, s, "sha256 beef0123")
	mustContain(t, s, "the candidate binary was rebuilt: re-pinned and rerunning")
}

func TestFooterFollowsStageState(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	last := func(m Model) string { l := strings.Split(screen(m), "\n"); return l[len(l)-1] }
	if s := last(m); !strings.Contains(s, "S determinism") || strings.Contains(s, "x stop stage") || !strings.HasSuffix(strings.TrimRight(s, " "), "? help · q quit") {
		t.Fatalf("idle footer %q", s)
	}
	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStarted{Stage: engine.StageDeterminism}}})
	if s := last(m); strings.Contains(s, "S determinism") || !strings.Contains(s, "x stop stage") {
		t.Fatalf("running footer %q", s)
	}
}

func TestReopenedHistoryEndsRunsThatNeverFinished(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 100, 30)
	m = update(t, m, eventsMsg{events: []engine.Event{
		engine.RunStarted{Run: "det/baseline-1", Arm: engine.Baseline, Kind: engine.KindRepetition, Repetition: 1, At: t0},
		engine.RunStarted{Run: "perf/pair-003-baseline", Arm: engine.Baseline, Kind: engine.KindSample, Repetition: 3, At: t0},
		engine.HistoryReplayed{Records: 2},
	}})
	if m.live() {
		t.Fatal("runs cut off by a previous session are not live")
	}
	s := screen(m)
	mustContain(t, s, "interrupted; S reruns it")
	mustContain(t, s, "campaign reopened: 2 journal records replayed")
}

// Issue 25: a campaign another kvparity writes is followed read-only; the status line says so
// before any other mark, with the writer's pid, and says when the writer has ended.
func TestFollowedWriterIsMarkedReadOnly(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	m := newTestModel(t, f, 240, 30)
	holder := engrun.Holder{Owner: engrun.Owner{PID: 4242}, Command: []string{"kvparity", "run", "--stage", "perf"}}
	m = update(t, m, eventsMsg{events: []engine.Event{engine.FollowedWriter{Holder: holder},
		engine.RowBlocked{Stage: engine.StagePerf, Reason: "pair 1 was invalidated 10 times in a row"}}})
	m = update(t, m, eventsMsg{events: []engine.Event{engine.StageStopped{Stage: engine.StagePerf}}})
	s := screen(m)
	mustContain(t, s, "READ-ONLY: following kvparity pid 4242; its stages are shown live, stage keys are refused")
	if strings.Index(s, "READ-ONLY") > strings.Index(s, "BLOCKED: perf stage") {
		t.Errorf("the READ-ONLY mark stands after the BLOCKED mark:\n%s", s)
	}
	m = update(t, m, eventsMsg{events: []engine.Event{engine.FollowedWriter{Holder: holder, Ended: true}}})
	mustContain(t, screen(m), "READ-ONLY: the kvparity it followed (pid 4242) has ended")
}
