package build

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// On real published sources (KVPARITY_DYNAMO_SRC=<a dynamo-bench package root with vendor/>),
// the extension applies and the patched files are what the build then compiles.
func TestExtensionOnRealSources(t *testing.T) {
	src := os.Getenv("KVPARITY_DYNAMO_SRC")
	if src == "" {
		t.Skip("KVPARITY_DYNAMO_SRC not set")
	}
	dir := t.TempDir()
	exec.Command("cp", "-a", filepath.Join(src, "offline_replay_bench.rs"), dir).Run()
	core := filepath.Join(dir, "core")
	os.MkdirAll(filepath.Join(core, "src/replay"), 0o755)
	for _, f := range []string{"replayer.rs", "mod.rs"} {
		exec.Command("cp", filepath.Join(src, "vendor", ReplayCrate, "src/replay", f), filepath.Join(core, "src/replay")).Run()
	}
	a, err := applyEdits(core, ReplayCrate, replayEdits)
	if err != nil {
		t.Fatal(err)
	}
	b, err := applyEdits(dir, "dynamo-bench", harnessEdits)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile("/tmp/exttest/"+filepath.Base(src)+".patch", []byte(unifiedPatch("x", append(a, b...))), 0o644)
}
