package matrix

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kvparity/engine/run"
	"kvparity/internal/layout"
)

// Issue 25, deliverable 1 (one writer): the matrix's job record goes into a row's journal only
// under the campaign lock. While another writer holds the row's campaign, the matrix appends
// nothing and says why, naming the holder; once the lock is free, the record is appended.
func TestJobRecordTakesTheCampaignLock(t *testing.T) {
	src, dir := t.TempDir(), filepath.Join(t.TempDir(), "m")
	rows := []string{writeRowFile(t, src, "a")}
	var mu sync.Mutex
	var release func()
	t.Cleanup(func() {
		if release != nil {
			release()
		}
	})
	var log bytes.Buffer
	_, err := Run(context.Background(), Options{Dir: dir, RowFiles: rows, Poll: 20 * time.Millisecond, Log: &log,
		RunLocal: func(ctx context.Context, rowFile, rowDir string, out io.Writer) int {
			fakeRun(t, rowDir, 0, "PASS")
			// Another writer has the row's campaign when its job ends (a stray kvparity run).
			r, err := run.LockCampaign(rowDir)
			if err != nil {
				t.Error(err)
				return 3
			}
			mu.Lock()
			release = r
			mu.Unlock()
			return 0
		}})
	if err != nil {
		t.Fatal(err)
	}
	rowDir := filepath.Join(dir, "a")
	want := "recording the job end in the journal: campaign " + rowDir + " is being written by kvparity pid " + strconv.Itoa(os.Getpid())
	if !strings.Contains(log.String(), want) {
		t.Errorf("the matrix's log does not name the holder (%q):\n%s", want, log.String())
	}
	before, _ := os.ReadFile(filepath.Join(rowDir, layout.FileJournal))
	for _, r := range readAll(t, filepath.Join(rowDir, layout.FileJournal)) {
		if r.Type == RecMatrixJob {
			t.Fatalf("a job record was appended beside the holder: %+v", r)
		}
	}

	// Directly, as after any job end: refused with a *HeldError while held, appended after.
	j := JobRecord{Mode: "local", State: JobCompleted, Command: []string{"kvparity", "run"}, Submitted: time.Now(), Ended: time.Now()}
	err = appendJobRecord(rowDir, j)
	var held *run.HeldError
	if !errors.As(err, &held) || held.Holder.PID != os.Getpid() {
		t.Fatalf("appendJobRecord beside a held lock: %v, want a *HeldError naming pid %d", err, os.Getpid())
	}
	if after, _ := os.ReadFile(filepath.Join(rowDir, layout.FileJournal)); !bytes.Equal(after, before) {
		t.Error("a refused job record changed the journal")
	}
	mu.Lock()
	release()
	release = nil
	mu.Unlock()
	if err := appendJobRecord(rowDir, j); err != nil {
		t.Fatalf("appendJobRecord once the lock is free: %v", err)
	}
	n := 0
	for _, r := range readAll(t, filepath.Join(rowDir, layout.FileJournal)) {
		if r.Type == RecMatrixJob {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d job records in the journal, want 1", n)
	}
}
