package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	fx "kvparity/diffview/difftest"
	"kvparity/engine"
)

// semanticScript is a determinism stage whose candidate reports differ from the baseline's in
// a preemption-policy change (two metadata fields, two fields of every request, summary
// statistics): parity FAIL, the reports kept on disk in dir.
func semanticScript(t *testing.T, dir string) []engine.Event {
	t.Helper()
	a := fx.Report(200, 20)
	b := fx.Clone(a)
	fx.Set(b, "/metadata/engine_config/decode/preemption_mode", "fifo")
	fx.Set(b, "/metadata/engine_config/prefill/preemption_mode", "fifo")
	for i := 0; i < 200; i++ {
		fx.Shift(b, fmt.Sprintf("/per_request/%d/terminal_time_ms", i), 3)
		fx.Shift(b, fmt.Sprintf("/per_request/%d/e2e_latency_ms", i), 3)
	}
	for _, f := range []string{"completed_requests", "duration_ms", "mean_ttft_ms", "mean_e2e_latency_ms", "num_requests",
		"prefix_cache_reused_ratio", "total_input_tokens", "total_output_tokens"} {
		fx.Set(b, "/summary/"+f, fx.Int(7))
	}
	pa, pb := filepath.Join(dir, "baseline-1.json"), filepath.Join(dir, "candidate-1.json")
	if err := os.WriteFile(pa, fx.Encode(a), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, fx.Encode(b), 0o644); err != nil {
		t.Fatal(err)
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

// probeMsg asks the running program for a look at its model, in order with every other message.
type probeMsg struct {
	look  func(*settledModel) string
	reply chan string
}

type probedModel struct{ settledModel }

func (p *probedModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if q, ok := msg.(probeMsg); ok {
		q.reply <- q.look(&p.settledModel)
		return p, nil
	}
	_, cmd := p.settledModel.Update(msg)
	return p, cmd
}

// waitScreen waits until the drawn frame satisfies ok and returns it, ANSI stripped.
func waitScreen(t *testing.T, tm *teatest.TestModel, what string, ok func(*settledModel) bool) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		q := probeMsg{look: func(m *settledModel) string {
			if m.pace.dirty || !ok(m) {
				return ""
			}
			return ansi.Strip(m.frame)
		}, reply: make(chan string, 1)}
		tm.Send(q)
		select {
		case s := <-q.reply:
			if s != "" {
				return s
			}
		case <-time.After(time.Second):
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: not on screen in time", what)
	return ""
}

// TestGoldenDiff drives the real program through a parity FAIL and the diff pane from the
// keyboard: the zoomed diff grouped by field pattern, ? with the pane focused, the form's live
// coverage and the broad-record confirmation, at 110x34 and 80x24.
func TestGoldenDiff(t *testing.T) {
	for _, sz := range [][2]int{{110, 34}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			f := newFake(testInfo(5000, 60))
			f.det = semanticScript(t, t.TempDir())
			m := New(Options{Controller: f, Assess: f.assess, Clock: fixedClock})
			tm := teatest.NewTestModel(t, &probedModel{settledModel{Model: m}}, teatest.WithInitialTermSize(sz[0], sz[1]))
			tm.Type("S")
			waitScreen(t, tm, "the diff", func(m *settledModel) bool {
				return m.focus == focusDiff && m.diff.pane.Loaded() && m.assessed == m.assessN
			})
			tm.Type("fz")
			s := waitScreen(t, tm, "zoomed patterns", func(m *settledModel) bool { return m.zoomed && m.diff.pane.GroupedByPattern() && m.uiSaved == 1 })
			goldenFile(t, "zoomed-patterns", s)
			tm.Type("?")
			goldenFile(t, "help", waitScreen(t, tm, "help", func(m *settledModel) bool { return m.overlay == overlayHelp }))
			tm.Send(press("esc"))
			tm.Type("c") // cover the largest pattern: the form opens on it and counts
			goldenFile(t, "form-coverage", waitScreen(t, tm, "form", func(m *settledModel) bool { return m.diff.pane.FormCounted() }))
			tm.Send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
			tm.Type("/**")
			for _, v := range []string{"LIFO victim", "vLLM FIFO docs", "STABLE both", "TestFIFO", "none", "accepted"} {
				tm.Send(press("tab"))
				if v == "LIFO victim" {
					tm.Send(press("tab"))
					tm.Send(press("tab"))
				}
				tm.Type(v)
			}
			tm.Send(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl})
			goldenFile(t, "broad-confirm", waitScreen(t, tm, "confirmation", func(m *settledModel) bool { return m.diff.pane.Confirming() }))
			tm.Send(press("n"))
			tm.Send(press("esc"))
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
		})
	}
}

// goldenFile compares a screen with testdata/TestGoldenDiff/<size>/<name>.golden.
func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	t.Run(name, func(t *testing.T) { golden.RequireEqual(t, got) })
}
