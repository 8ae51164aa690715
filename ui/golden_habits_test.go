package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	fx "kvparity/diffview/difftest"
	"kvparity/engine"
)

// leakedUUID is the candidate's request uuid in uuidScript: 36 characters, whole in the diff.
const leakedUUID = "d7f32b93-6c4b-48da-8bd5-7b0f006054dc"

// uuidScript is a determinism stage whose candidate report differs in one request uuid
// (leaked entropy): parity FAIL, the reports kept on disk in dir.
func uuidScript(t *testing.T, dir string) []engine.Event {
	t.Helper()
	a := fx.Report(200, 20)
	b := fx.Clone(a)
	fx.Set(b, "/per_request/0/uuid", leakedUUID)
	pa, pb := filepath.Join(dir, "baseline-1.json"), filepath.Join(dir, "candidate-1.json")
	for p, r := range map[string]map[string]any{pa: a, pb: b} {
		if err := os.WriteFile(p, fx.Encode(r), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	evs := determinismScript(5000, 14)
	for i, ev := range evs {
		switch e := ev.(type) {
		case engine.DigestReady:
			e.ReportPath = pa
			if e.Arm == engine.Candidate {
				e.Digest, e.ReportPath = "c0ffee00"+goodDigest[8:], pb
			}
			evs[i] = e
		case engine.StageVerdict:
			if e.Stage == engine.StageParity {
				e.Verdict, e.Reason = "FAIL", "canonical reports differ (both reports kept)"
				evs[i] = e
			}
		}
	}
	return evs
}

// TestGoldenHabits drives the real program at 80×24 (issue 40, item 5): the first screen, the
// help scrolled to its top and its end, the stage's next step, a 36-character uuid whole in the
// diff, the verdicts overlay, and x's question on a running stage.
func TestGoldenHabits(t *testing.T) {
	f := newFake(testInfo(5000, 60))
	f.det = uuidScript(t, t.TempDir())
	f.perf = busyPerfScript() // never ends: x has a stage to ask about
	m := New(Options{Controller: f, Assess: f.assess, Clock: fixedClock, Intro: []string{
		"kvparity checks a Dynamo change against its baseline: the same KV replay outputs, byte for byte, and no slower",
		"campaign folder " + f.Dir() + " (journal, runs, exception records, report; kvparity open DIR resumes it)",
	}})
	tm := teatest.NewTestModel(t, &probedModel{settledModel{Model: m}}, teatest.WithInitialTermSize(80, 24))
	shot := func(name string, ok func(*settledModel) bool) {
		t.Helper()
		goldenFile(t, name, waitScreen(t, tm, name, ok))
	}
	shot("first-screen", func(m *settledModel) bool { return m.width == 80 })
	tm.Type("?")
	shot("help-top", func(m *settledModel) bool { return m.overlay == overlayHelp })
	tm.Type("G")
	shot("help-end", func(m *settledModel) bool { return m.overlay == overlayHelp && m.ov.AtBottom() })
	tm.Send(press("esc"))
	tm.Type("S")
	shot("determinism-done", func(m *settledModel) bool {
		return m.focus == focusDiff && m.diff.pane.Loaded() && m.assessed == m.assessN && m.next != ""
	})
	tm.Type("n")
	shot("diff-uuid", func(m *settledModel) bool { return strings.Contains(ansi.Strip(m.frame), "B \""+leakedUUID+"\"") })
	tm.Type("v")
	shot("verdicts", func(m *settledModel) bool { return m.overlay == overlayVerdicts })
	tm.Send(press("esc"))
	tm.Type("p")
	waitScreen(t, tm, "the perf stage", func(m *settledModel) bool { return m.stageRunning })
	tm.Type("x")
	shot("confirm-stop", func(m *settledModel) bool { return m.overlay == overlayConfirmStop })
	tm.Type("n")
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if hasCall(f.Calls(), "StopStage") {
		t.Fatalf("n kept the stage running; calls %v", f.Calls())
	}
}
