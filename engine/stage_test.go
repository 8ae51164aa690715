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

func TestConcurrentRepetitionsRunOnDisjointCPUs(t *testing.T) {
	if testing.Short() {
		t.Skip("a determinism stage of fake replays that each sleep 300 ms")
	}
	if len(run.AllowedCPUs()) < 2 {
		t.Skip("needs two CPUs")
	}
	t.Setenv("KVPARITY_FAKE_SLEEP_MS", "300")
	dir := filepath.Join(t.TempDir(), "c")
	runDeterminism(t, tinyTestRow("", ""), dir)
	// The journal brackets each process: its run_start is recorded after the process started
	// and its run_end before its CPU is handed to the next run, so two runs that shared a CPU
	// at the same time would have overlapping brackets.
	type span struct {
		cpu        int
		start, end time.Time
	}
	spans := map[RunID]*span{}
	recs, _, err := journal.Read[Record](filepath.Join(dir, layout.FileJournal), journal.RefuseDamage)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Kind != KindRepetition {
			continue // the preflight probes and perturbed repetitions share every CPU on purpose
		}
		switch r.Type {
		case RecRunStart:
			spans[r.Run] = &span{cpu: r.CPUs[0], start: r.At}
		case RecRunEnd:
			spans[r.Run].end = r.At
		}
	}
	overlapped := false
	for a, x := range spans {
		for b, y := range spans {
			if a < b && x.start.Before(y.end) && y.start.Before(x.end) {
				overlapped = true
				if x.cpu == y.cpu {
					t.Errorf("%s and %s ran at the same time on CPU %d", a, b, x.cpu)
				}
			}
		}
	}
	if !overlapped {
		t.Error("no two repetitions ran concurrently on a multi-core host")
	}
}

func TestAddAndRerunRepetition(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, _ := openTest(t, tinyTestRow("", ""), dir)
	if err := ctl(c).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if err := ctl(c).AddRepetition(Candidate); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	s := c.Summary()
	if runs := s.Arms[Candidate].Runs; len(runs) != 3 || runs[2].Run != "det/candidate-3" || s.Arms[Candidate].Verdict != "STABLE" {
		t.Fatalf("after AddRepetition: %+v", s.Arms[Candidate])
	}
	if err := ctl(c).RerunRepetition("det/baseline-1"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	s = c.Summary()
	if r := s.Arms[Baseline].Runs[0]; r.Run != "det/baseline-1-a2" || r.Attempt != 2 || r.Digest == "" {
		t.Fatalf("after RerunRepetition: %+v", r)
	}
	if semanticExit(s) != 0 {
		t.Fatalf("summary %+v", s)
	}
	if err := ctl(c).RerunRepetition("det/nothing-1"); err == nil {
		t.Fatal("rerun of an unknown run accepted")
	}
	// The added repetition survives a reopen.
	c.Close()
	c2, err := Open(dir, testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	drain(c2)
	defer c2.Close()
	if n := len(c2.Summary().Arms[Candidate].Runs); n != 3 {
		t.Fatalf("%d candidate repetitions after reopen, want 3", n)
	}
}

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
