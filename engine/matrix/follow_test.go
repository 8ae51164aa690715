package matrix

import (
	"context"
	"fmt"
	"kvparity/engine"
	"kvparity/engine/journal"
	"kvparity/internal/layout"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fsnotify wakes the follower long before its (here: hour-long) poll would.
func TestDirWatcherWakesOnJournalWrite(t *testing.T) {
	dir := t.TempDir()
	w := newDirWatcher([]string{dir}, time.Hour)
	if !w.notify {
		t.Skip("fsnotify cannot watch the test folder on this filesystem")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// No wait for run to start: newDirWatcher added the watch, so the kernel queues the events.
	go w.run(ctx)
	if err := os.WriteFile(filepath.Join(dir, "unrelated.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, layout.FileJournal), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.wake:
	case <-time.After(10 * time.Second):
		t.Fatal("no wake-up after a journal write")
	}
}

// Where fsnotify cannot watch (a folder that does not exist stands in for a filesystem without
// inotify), polling alone wakes the follower, at a quarter of the configured period.
func TestDirWatcherFallsBackToPolling(t *testing.T) {
	w := newDirWatcher([]string{filepath.Join(t.TempDir(), "absent")}, 200*time.Millisecond)
	if w.notify || w.poll != 50*time.Millisecond {
		t.Fatalf("notify %v poll %s, want polling every 50ms", w.notify, w.poll)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.run(ctx)
	select {
	case <-w.wake:
	case <-time.After(10 * time.Second):
		t.Fatal("polling never woke the follower")
	}
}

// BenchmarkFollowJournal measures reading and folding a row journal from its start (what the
// matrix does when it starts following a finished row): 1,000 records per op.
func BenchmarkFollowJournal(b *testing.B) {
	path := filepath.Join(b.TempDir(), layout.FileJournal)
	j, err := journal.Open[engine.Record](path, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 500 {
		run := engine.RunID(fmt.Sprintf("perf/pair-%03d-baseline", i))
		j.Append(engine.Record{Type: engine.RecRunStart, Run: run, Kind: engine.KindSample, Arm: engine.Baseline, Index: i, CPUs: []int{1}})
		j.Append(engine.Record{Type: engine.RecRunEnd, Run: run, Kind: engine.KindSample, Arm: engine.Baseline, Index: i, ElapsedMs: 250})
	}
	j.Close()
	b.ResetTimer()
	for range b.N {
		tail := journal.NewTail[engine.Record](path)
		recs, _, err := tail.Read()
		if err != nil || len(recs) != 1000 {
			b.Fatalf("%d records, %v", len(recs), err)
		}
		f := newRowFold(RowStatus{}, engine.TinyRow("", ""))
		for _, r := range recs {
			f.add(r)
		}
	}
}
