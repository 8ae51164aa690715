package engine

import (
	"kvparity/engine/journal"
	"kvparity/engine/run"
	"kvparity/internal/layout"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestJournalWriteFailureStopsTheStageAndKeepsWhatWasRecorded(t *testing.T) {
	if testing.Short() {
		t.Skip("a determinism stage of fake replays that each sleep 200 ms")
	}
	t.Setenv("KVPARITY_FAKE_SLEEP_MS", "200")
	dir := filepath.Join(t.TempDir(), "c")
	c, log := openTest(t, tinyTestRow("", ""), dir)
	if err := ctl(c).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	log.waitFor(t, "a first digest", func(evs []Event) bool { return len(eventsOf[DigestReady](evs)) > 0 })
	// The disk fills up: every later write fails.
	c.journal.Refuse(errFullDisk)
	c.Wait()
	log.waitFor(t, "RowBlocked", func(evs []Event) bool { return len(eventsOf[RowBlocked](evs)) > 0 })
	b := eventsOf[RowBlocked](log.all())[0]
	if !strings.Contains(b.Reason, "no space left on device") {
		t.Fatalf("RowBlocked %+v", b)
	}
	recs, _, err := journal.Read[Record](filepath.Join(dir, layout.FileJournal), journal.RefuseDamage)
	if err != nil {
		t.Fatal(err)
	}
	ends := 0
	for _, r := range recs {
		if r.Type == RecRunEnd && r.Digest != "" {
			ends++
		}
	}
	if ends == 0 {
		t.Fatal("the repetition recorded before the failure was lost")
	}
}

func TestProgressIsElapsedOnlyWithoutASideChannel(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a fake replay that sleeps 1.3 s")
	}
	var got []RunProgress
	r := &run.Runner{Observer: runEvents(func(e Event) {
		if p, ok := e.(RunProgress); ok {
			got = append(got, p)
		}
	}), PollInterval: 50 * time.Millisecond}
	t.Setenv("KVPARITY_FAKE_SLEEP_MS", "1300")
	res := r.Run(t.Context(), run.Spec{ID: "x", Binary: testBinary(t), Dir: filepath.Join(t.TempDir(), "run"),
		Args: []string{fakeTrace(t)}}, nil)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(got) == 0 || got[0].Total != 0 || got[0].Elapsed <= 0 {
		t.Fatalf("progress %+v", got)
	}
}

func TestUnavailableCPUsAreRefused(t *testing.T) {
	opts := testOptions(t, filepath.Join(t.TempDir(), "c"))
	opts.CPUs = []int{4095}
	if _, err := Create(tinyTestRow("", ""), opts); err == nil || !strings.Contains(err.Error(), "CPU 4095 is not available") {
		t.Fatalf("got %v", err)
	}
}

var errFullDisk = &os.PathError{Op: "write", Path: "journal.jsonl", Err: syscall.ENOSPC}
