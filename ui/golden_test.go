package ui

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestGolden drives the real program (teatest) through a whole scripted campaign from the
// keyboard — g, wait for parity, p, wait for the perf verdict — and compares the final
// screen, ANSI stripped, with testdata/TestGolden/<size>.golden (go test -update rewrites).
func TestGolden(t *testing.T) {
	for _, sz := range [][2]int{{100, 30}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			f := newFake(testInfo(5000, 60))
			f.det = determinismScript(5000, 14)
			f.perf = perfScript(60)
			m := New(Options{Controller: f, Assess: f.assess, Clock: fixedClock})
			tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(sz[0], sz[1]))
			// The renderer writes only changed cells, so the output stream is not a place to look
			// for whole words; wait for the stage to be started and its events drained instead.
			drained := func(call string) {
				t.Helper()
				deadline := time.Now().Add(10 * time.Second)
				for !hasCall(f.Calls(), call) || len(f.ch) > 0 {
					if time.Now().After(deadline) {
						t.Fatalf("%s: events not consumed in time (calls %v)", call, f.Calls())
					}
					time.Sleep(10 * time.Millisecond)
				}
				time.Sleep(300 * time.Millisecond) // the last batch in flight and its frame tick
			}
			tm.Type("g")
			drained("StartDeterminism")
			tm.Type("p")
			drained("StartPerf")
			teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
				return bytes.Contains(b, []byte("bounds ["))
			}, teatest.WithDuration(5*time.Second))
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model)
			golden.RequireEqual(t, ansi.Strip(fm.View().Content))
			if got := f.Calls(); len(got) < 2 || got[0] != "StartDeterminism" || got[1] != "StartPerf" {
				t.Fatalf("keys should have started both stages, calls %v", got)
			}
		})
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
