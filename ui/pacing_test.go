package ui

import (
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"kvparity/engine"
)

// flood runs the real program for d while a goroutine publishes one progress event per
// millisecond (plus whatever first), and returns how many frames were composed.
func flood(t *testing.T, d time.Duration, first ...engine.Event) int {
	t.Helper()
	f := newFake(testInfo(5000, 60))
	f.emit(first)
	tm := teatest.NewTestModel(t, New(Options{Controller: f, Assess: f.assess, Clock: fixedClock}), teatest.WithInitialTermSize(100, 30))
	start := time.Now()
	for i := 0; time.Since(start) < d; i++ {
		f.emit([]engine.Event{engine.RunProgress{Run: "det/baseline-1", VirtualTimeMs: float64(i), Completed: i % 5000,
			Total: 5000, Elapsed: time.Since(start)}, engine.LogLine{Run: "det/baseline-1", Line: fmt.Sprint(i)}})
		time.Sleep(time.Millisecond) // the behaviour under test: an event flood at one per millisecond
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	return tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model).renders
}

// floodFor is how long the pacing tests publish events: one second, half of one under -short.
// Their frame bounds scale with it.
func floodFor() time.Duration {
	if testing.Short() {
		return 500 * time.Millisecond
	}
	return time.Second
}

func TestFloodOfEventsIsDrawnAtMost30TimesASecond(t *testing.T) {
	start := engine.RunStarted{Run: "det/baseline-1", Arm: engine.Baseline, Kind: engine.KindRepetition, Repetition: 1, At: t0}
	d := floodFor()
	n := flood(t, d, start)
	t.Logf("%d frames composed in %s of ~%d events", n, d, 2*d.Milliseconds())
	// 30 paced frames a second, plus the first frame at the window size and a little slack for timers.
	if float64(n) > 30*d.Seconds()+6 {
		t.Fatalf("%d frames in %s of events: pacing is broken", n, d)
	}
	if float64(n) < 5*d.Seconds() {
		t.Fatalf("only %d frames: live progress is not being drawn", n)
	}
}

func TestWhileASampleRunsAtMostFourFramesASecond(t *testing.T) {
	sample := engine.RunStarted{Run: "perf/pair-001-baseline", Arm: engine.Baseline, Kind: engine.KindSample, Repetition: 1, At: t0}
	d := floodFor()
	n := flood(t, d, sample)
	t.Logf("%d frames composed in %s of events while a sample runs", n, d)
	if float64(n) > 4*d.Seconds()+3 {
		t.Fatalf("%d frames in %s while a sample runs; want about 4 a second", n, d)
	}
}
