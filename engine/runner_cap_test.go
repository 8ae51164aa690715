package engine

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A replay flooding its output is capped: the run folder keeps the first outputCap bytes and a
// note, kvparity's memory does not grow with it, and the run fails saying so.
func TestRunnerCapsAFloodingReplay(t *testing.T) {
	dd, err := exec.LookPath("dd")
	if err != nil {
		t.Skip("no dd")
	}
	dir := filepath.Join(t.TempDir(), "runs", "flood")
	r := &runner{}
	res := r.run(context.Background(), runSpec{id: "det/flood", binary: dd,
		args: []string{"if=/dev/zero", "of=/dev/stderr", "bs=1048576", "count=80", "status=none"}, dir: dir}, nil)
	if res.err == nil || !strings.Contains(res.err.Error(), "wrote more than 64 MiB to stderr (16777216 bytes dropped") {
		t.Fatalf("error %v", res.err)
	}
	st, _ := os.Stat(filepath.Join(dir, "stderr"))
	if st == nil || st.Size() > outputCap+200 || st.Size() < outputCap {
		t.Fatalf("stderr kept %v bytes", st)
	}
}

// A run folder replaced by a symbolic link is refused, naming the link; nothing is written
// through it.
func TestRunnerRefusesALinkedRunFolder(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, "runs"), 0o755)
	os.Symlink(outside, filepath.Join(root, "runs", "det"))
	r := &runner{}
	res := r.run(context.Background(), runSpec{id: "det/x", binary: "/bin/true", dir: filepath.Join(root, "runs", "det", "x"), root: root}, nil)
	if res.err == nil || !strings.Contains(res.err.Error(), "is a symbolic link") || !strings.Contains(res.err.Error(), filepath.Join(root, "runs", "det")) {
		t.Fatalf("error %v", res.err)
	}
	if es, _ := os.ReadDir(outside); len(es) != 0 {
		t.Fatalf("wrote outside the campaign: %v", es)
	}
}

// The campaign's own files are never written through a symbolic link either: a perf folder
// or the trace window replaced by one is refused, naming it.
func TestCampaignFilesRefuseLinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.Symlink(outside, filepath.Join(root, "perf"))
	if err := writeJSONFile(filepath.Join(root, "perf", "result.json"), map[string]int{"x": 1}); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
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
