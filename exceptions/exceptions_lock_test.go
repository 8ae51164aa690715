package exceptions

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kvparity/e2e"
	"kvparity/internal/layout"
	"kvparity/internal/procgroup"
)

// putMany saves n new records tagged who-i and deletes the record drop (when not "").
func putMany(dir, who string, n int, drop string) error {
	for i := range n {
		r := validRecord("/summary/" + who + "_" + strconv.Itoa(i))
		r.Disposition = who + "-" + strconv.Itoa(i)
		if _, err := PutException(dir, r); err != nil {
			return err
		}
		if i == n/2 && drop != "" {
			if err := DeleteException(dir, drop); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkAll says which of the records the writers saved are missing, and whether drop is gone.
func checkAll(t *testing.T, dir string, drop string, writers []string, n int) {
	t.Helper()
	recs, err := LoadExceptions(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		if r.ID == drop {
			t.Errorf("the deleted record %s is back", drop)
		}
		got = append(got, r.Disposition)
	}
	for _, w := range writers {
		for i := range n {
			if d := w + "-" + strconv.Itoa(i); !slices.Contains(got, d) {
				t.Errorf("record %s lost (%d records in the file)", d, len(recs))
			}
		}
	}
}

// Two writers in one process (the workbench saving while another goroutine deletes) lose
// nothing: each load-change-save holds the lock.
func TestExceptionsConcurrentGoroutinesLoseNothing(t *testing.T) {
	dir := t.TempDir()
	seed, err := PutException(dir, validRecord("/seed"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 25
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for w, who := range []string{"a", "b"} {
		drop := ""
		if w == 1 {
			drop = seed.ID
		}
		wg.Go(func() { errs[w] = putMany(dir, who, n, drop) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkAll(t, dir, seed.ID, []string{"a", "b"}, n)
}

// TestExceptionsHelperProcess is one of the writer processes of the next test (it does
// nothing unless that test starts it).
func TestExceptionsHelperProcess(t *testing.T) {
	dir, who := os.Getenv("KVPARITY_EXC_DIR"), os.Getenv("KVPARITY_EXC_WHO")
	if dir == "" {
		t.Skip("a helper process of TestExceptionsConcurrentProcessesLoseNothing")
	}
	n, _ := strconv.Atoi(os.Getenv("KVPARITY_EXC_N"))
	if err := putMany(dir, who, n, os.Getenv("KVPARITY_EXC_DROP")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Two kvparity processes saving records of one campaign at once lose none, and a delete in
// one of them stays deleted.
func TestExceptionsConcurrentProcessesLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two processes (not under -short)")
	}
	dir := t.TempDir()
	seed, err := PutException(dir, validRecord("/seed"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 30
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for w, who := range []string{"p", "q"} {
		cmd := procgroup.Command(ctx, os.Args[0], "-test.run=^TestExceptionsHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "KVPARITY_EXC_DIR="+dir, "KVPARITY_EXC_WHO="+who, "KVPARITY_EXC_N="+strconv.Itoa(n))
		if w == 0 {
			cmd.Env = append(cmd.Env, "KVPARITY_EXC_DROP="+seed.ID)
		}
		wg.Go(func() {
			out, err := cmd.CombinedOutput()
			outs[w], errs[w] = string(out), err
		})
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v\n%s", w, err, outs[w])
		}
	}
	checkAll(t, dir, seed.ID, []string{"p", "q"}, n)
}

// A save waits for the holder, and one held past lockWait is refused naming the holder; the
// file is untouched.
func TestExceptionsLockNamesItsHolder(t *testing.T) {
	dir := t.TempDir()
	if _, err := PutException(dir, validRecord("/seed")); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockExceptions(dir)
	if err != nil {
		t.Fatal(err)
	}
	holder, _ := os.ReadFile(dir + "/" + layout.FileExceptionsLock)
	if !strings.HasPrefix(string(holder), "pid "+strconv.Itoa(os.Getpid())+" (") {
		t.Fatalf("the lock file names %q", holder)
	}
	done := make(chan error, 1)
	go func() { _, err := PutException(dir, validRecord("/waits")); done <- err }()
	select {
	case err := <-done:
		t.Fatalf("saved while the lock was held: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	unlock()
	if err := <-done; err != nil {
		t.Fatalf("after the holder let go: %v", err)
	}
	if recs, _ := LoadExceptions(dir); len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}

	// Held for longer than a save takes: refused, naming the holder.
	defer func(w time.Duration) { lockWait = w }(lockWait)
	lockWait = time.Second
	f, err := os.OpenFile(dir+"/"+layout.FileExceptionsLock, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	f.Truncate(0)
	f.WriteAt([]byte("pid 4242 (kvparity open c) since 2026-12-01T00:00:00Z\n"), 0)
	before, _ := os.ReadFile(dir + "/" + layout.FileExceptions)
	err = DeleteException(dir, "whatever")
	if err == nil || !strings.Contains(err.Error(), "exceptions.lock is still held after 1s by pid 4242 (kvparity open c) since 2026-12-01T00:00:00Z") {
		t.Fatalf("a hung holder: %v", err)
	}
	if after, _ := os.ReadFile(dir + "/" + layout.FileExceptions); string(after) != string(before) {
		t.Fatal("the records changed under another holder's lock")
	}
}

// Issue 42: on a campaign folder nobody can write (a read-only mount, no write permission),
// saving or deleting an exception record says it cannot be written, naming the folder and why,
// and leaves the records as they were.
func TestExceptionsOnAnUnwritableFolderSayTheyCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	kept, err := PutException(dir, validRecord("/summary/kept"))
	if err != nil {
		t.Fatal(err)
	}
	why := e2e.ReadOnly(t, dir)
	want := "exception records cannot be saved: campaign folder " + dir + " cannot be written (" + why + ")"
	if _, err := PutException(dir, validRecord("/summary/new")); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("save on an unwritable folder: %v, want %q", err, want)
	}
	if err := DeleteException(dir, kept.ID); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("delete on an unwritable folder: %v, want %q", err, want)
	}
	if recs, err := LoadExceptions(dir); err != nil || len(recs) != 1 || recs[0].ID != kept.ID {
		t.Errorf("the records changed: %+v %v", recs, err)
	}
}
