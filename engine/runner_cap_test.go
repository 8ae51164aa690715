package engine

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The campaign's own files are never written through a symbolic link either: a perf folder
// or the trace window replaced by one is refused, naming it.
func TestCampaignFilesRefuseLinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.Symlink(outside, filepath.Join(root, "perf"))
	if err := WriteJSONFile(filepath.Join(root, "perf", "result.json"), map[string]int{"x": 1}); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Fatalf("perf through a link: %v", err)
	}
	os.Symlink(filepath.Join(outside, "window.jsonl"), filepath.Join(root, "window.jsonl"))
	if err := createSynced(filepath.Join(root, "window.jsonl"), 0o644, func(io.Writer) error { return nil }); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Fatalf("window through a link: %v", err)
	}
	if es, _ := os.ReadDir(outside); len(es) != 0 {
		t.Fatalf("wrote outside: %v", es)
	}
}
