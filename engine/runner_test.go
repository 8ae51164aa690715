package engine

import (
	"os"
	"path/filepath"
	"testing"
)

func fakeTrace(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "trace.jsonl")
	os.WriteFile(p, []byte("{\"timestamp\":0}\n{\"timestamp\":1}\n"), 0o644)
	return p
}

// A pressure record the replay announces on its progress side channel is published while the
// run is live: before its RunFinished (its evidence repeats it, by ordinal, after).
func TestPressureEventsArriveBeforeTheRunEnds(t *testing.T) {
	_, evs := runDeterminism(t, tinyTestRow("", ""), t.TempDir())
	first, finished := map[RunID]int{}, map[RunID]int{}
	for i, e := range evs {
		switch e := e.(type) {
		case PressureEvent:
			if _, ok := first[e.Run]; !ok {
				first[e.Run] = i
			}
		case RunFinished:
			finished[e.Run] = i
		}
	}
	if len(finished) == 0 {
		t.Fatal("no run finished")
	}
	for run, end := range finished {
		at, ok := first[run]
		if !ok || at > end {
			t.Errorf("%s: first PressureEvent at %d (%v), RunFinished at %d", run, at, ok, end)
		}
	}
}
