package engine

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "report.json")
	if err := WriteFileAtomic(path, []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("written file: %v, mode %v; want 0644", err, st.Mode())
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(path, old, old)
	if err := WriteFileAtomic(path, []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); !st.ModTime().Equal(old) {
		t.Error("rewriting identical bytes touched the file")
	}
	if err := WriteFileAtomic(path, []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "two\n" {
		t.Errorf("content %q", got)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// The matrix writes job scripts and its kvparity copy executable; identical bytes under another
// mode are rewritten, so the mode asked for is the mode on disk.
func TestWriteFileAtomicModeSetsTheMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.sh")
	if err := writeFileAtomicMode(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("written script: %v, mode %v; want 0755", err, st.Mode())
	}
	if err := WriteFileAtomic(path, []byte("#!/bin/sh\n")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("same bytes at 0644: %v, mode %v; want 0644", err, st.Mode())
	}
}

func TestCreateSyncedRemovesAFailedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "window.jsonl")
	boom := errors.New("source vanished")
	err := createSynced(path, 0o644, func(w io.Writer) error {
		w.Write([]byte("half a wind"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the fill error", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the half-written file is still there: %v", err)
	}
}
