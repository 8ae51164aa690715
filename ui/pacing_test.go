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
		time.Sleep(time.Millisecond)
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	return tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(Model).renders
}

func TestFloodOfEventsIsDrawnAtMost30TimesASecond(t *testing.T) {
	start := engine.RunStarted{Run: "det/baseline-1", Arm: engine.Baseline, Kind: engine.KindRepetition, Repetition: 1, At: t0}
	n := flood(t, time.Second, start)
	t.Logf("%d frames composed in 1 s of ~2,000 events", n)
	// 30 paced frames, plus the first frame at the window size and a little slack for timers.
	if n > 36 {
		t.Fatalf("%d frames in one second of events: pacing is broken", n)
	}
	if n < 5 {
		t.Fatalf("only %d frames: live progress is not being drawn", n)
	}
}

func TestWhileASampleRunsAtMostFourFramesASecond(t *testing.T) {
	sample := engine.RunStarted{Run: "perf/pair-001-baseline", Arm: engine.Baseline, Kind: engine.KindSample, Repetition: 1, At: t0}
	n := flood(t, time.Second, sample)
	t.Logf("%d frames composed in 1 s of events while a sample runs", n)
	if n > 7 {
		t.Fatalf("%d frames in one second while a sample runs; want about 4", n)
	}
}
