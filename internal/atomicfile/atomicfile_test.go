package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteReplacesTheFileWithTheModeAskedFor(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "exceptions.jsonl")
	if err := Write(path, []byte("one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("stat %v, mode %v; want 0644", err, st.Mode())
	}
	if got, _ := os.ReadFile(path); string(got) != "two\n" {
		t.Errorf("content %q", got)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("temporary files left behind: %v", got)
	}
}

func TestWriteInTheWorkingDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := Write("row.toml", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile("row.toml"); string(got) != "x" {
		t.Errorf("content %q", got)
	}
}

func TestWriteFailureLeavesNoTemporaryFileAndTheTargetIntact(t *testing.T) {
	dir := t.TempDir()
	// A non-empty directory cannot be renamed over: the rename fails after the temporary
	// file was written and fsynced.
	target := filepath.Join(dir, "report.json")
	if err := os.MkdirAll(filepath.Join(target, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, []byte("new"), 0o644); err == nil {
		t.Fatal("renaming over a non-empty directory succeeded")
	}
	if got := entries(t, dir); len(got) != 1 || got[0] != "report.json" {
		t.Errorf("directory holds %v, want only the untouched target", got)
	}
	if st, err := os.Stat(filepath.Join(target, "keep")); err != nil || !st.IsDir() {
		t.Errorf("target changed: %v", err)
	}
	// A missing directory is an error, not a silent MkdirAll.
	if err := Write(filepath.Join(dir, "missing", "x"), []byte("x"), 0o644); err == nil {
		t.Error("Write created a missing directory")
	}
}

func TestUpdateCreatesFoldersAndLeavesIdenticalFilesAlone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "report.json")
	if err := Update(path, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("written file: %v, mode %v; want 0644", err, st.Mode())
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(path, old, old)
	if err := Update(path, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); !st.ModTime().Equal(old) {
		t.Error("rewriting identical bytes touched the file")
	}
	if err := Update(path, []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "two\n" {
		t.Errorf("content %q", got)
	}
	if got := entries(t, filepath.Dir(path)); len(got) != 1 {
		t.Errorf("temporary files left behind: %v", got)
	}
}

// The matrix writes job scripts and its kvparity copy executable; identical bytes under another
// mode are rewritten, so the mode asked for is the mode on disk.
func TestUpdateSetsTheMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.sh")
	if err := Update(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("written script: %v, mode %v; want 0755", err, st.Mode())
	}
	if err := Update(path, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("same bytes at 0644: %v, mode %v; want 0644", err, st.Mode())
	}
}

func TestInsideNoLinksRefusesALinkOnTheWay(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, "runs"), 0o755)
	if err := os.Symlink(outside, filepath.Join(root, "runs", "det")); err != nil {
		t.Fatal(err)
	}
	err := WriteIn(root, filepath.Join(root, "runs", "det", "baseline-1", "stdout"), []byte("x"), 0o644)
	if !errors.Is(err, errSymlink) || !strings.Contains(err.Error(), filepath.Join(root, "runs", "det")) {
		t.Fatalf("a linked run folder: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("wrote outside the campaign: %v", entries)
	}
	if err := WriteIn(root, filepath.Join(root, "report.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := InsideNoLinks(root, filepath.Join(root, "..", "x")); err == nil {
		t.Fatal("a path outside the root was accepted")
	}
}

// Unwritable tells a folder that cannot be written from any other failure.
func TestUnwritableNamesWhyAFolderCannotBeWritten(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&os.PathError{Op: "open", Path: "c/campaign.lock", Err: syscall.EROFS}, "read-only file system"},
		{&os.PathError{Op: "open", Path: "c/campaign.lock", Err: syscall.EACCES}, "permission denied"},
		{&os.PathError{Op: "open", Path: "c/campaign.lock", Err: syscall.EPERM}, "permission denied"},
		{&os.PathError{Op: "open", Path: "c/campaign.lock", Err: syscall.ENOSPC}, ""},
		{nil, ""},
	} {
		if got := Unwritable(tc.err); got != tc.want {
			t.Errorf("Unwritable(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
