package engine

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

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
