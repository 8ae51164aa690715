package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestJournalTailReadsWholeRecordsOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileJournal)
	tail := journalTail{path: path}
	if recs, reset, err := tail.read(); err != nil || reset || len(recs) != 0 {
		t.Fatalf("no journal yet: %v %v %v", recs, reset, err)
	}
	j, err := OpenJournal(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, typ := range []RecordType{RecCampaign, RecPinned} {
		if _, err := j.Append(Record{Type: typ}); err != nil {
			t.Fatal(err)
		}
	}
	recs, _, err := tail.read()
	if err != nil || len(recs) != 2 || recs[0].Type != RecCampaign || recs[1].Seq != 2 {
		t.Fatalf("first read: %+v %v", recs, err)
	}
	// A record being written (no newline yet) is left for the next read.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`0000abcd {"seq":3,"type":"run_st`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if recs, _, err := tail.read(); err != nil || len(recs) != 0 {
		t.Fatalf("torn tail must not be read: %+v %v", recs, err)
	}
	// The engine drops the torn tail on resume and appends again: the file shrinks first.
	j.Close()
	j2, err := OpenJournal(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if _, err := j2.Append(Record{Type: RecRunStart, Run: "det/baseline-1"}); err != nil {
		t.Fatal(err)
	}
	recs, reset, err := tail.read()
	if err != nil || reset || len(recs) != 1 || recs[0].Run != "det/baseline-1" || recs[0].Seq != 3 {
		t.Fatalf("after resume: %+v reset %v %v", recs, reset, err)
	}
	// A recreated (shorter) journal makes the reader start over.
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, reset, _ := tail.read(); !reset {
		t.Fatal("a shrunk journal must reset the reader")
	}
}

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
	if err := os.WriteFile(filepath.Join(dir, FileJournal), []byte("x\n"), 0o644); err != nil {
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
	path := filepath.Join(b.TempDir(), FileJournal)
	j, err := OpenJournal(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 500 {
		run := RunID(fmt.Sprintf("perf/pair-%03d-baseline", i))
		j.Append(Record{Type: RecRunStart, Run: run, Kind: KindSample, Arm: Baseline, Index: i, CPUs: []int{1}})
		j.Append(Record{Type: RecRunEnd, Run: run, Kind: KindSample, Arm: Baseline, Index: i, ElapsedMs: 250})
	}
	j.Close()
	b.ResetTimer()
	for range b.N {
		tail := journalTail{path: path}
		recs, _, err := tail.read()
		if err != nil || len(recs) != 1000 {
			b.Fatalf("%d records, %v", len(recs), err)
		}
		f := newRowFold(RowStatus{}, TinyRow("", ""))
		for _, r := range recs {
			f.add(r)
		}
	}
}
