package main

import (
	"bytes"
	"kvparity/e2e"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kvparity/verdict"
)

// A build stopped by a signal exits with the interrupted status (128+N), not the usage code,
// kills cargo's process group and leaves nothing in the build cache.
func TestBuildCancelledBySignalExitsInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kvparity and a fake cargo with go build")
	}
	bin := e2e.Binary(t)
	tools := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(tools, "cargo"), "./testdata/hangingcargo").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.Link(filepath.Join(tools, "cargo"), filepath.Join(tools, "rustc")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	row := filepath.Join(dir, "row.toml")
	os.WriteFile(row, []byte(`name = "cancel"
[baseline]
source = "crate:dynamo-bench@1.6.1"
features = ["replay-bench"]
[candidate]
source = "crate:dynamo-bench@1.6.1"
features = ["replay-bench"]
[trace]
path = "generated:conversation?seed=7&requests=10"
count = 10
[replay]
args = []
`), 0o644)
	cache, pids := filepath.Join(dir, "cache"), filepath.Join(dir, "pids")
	cmd := exec.Command(bin, "build", row)
	cmd.Env = append(os.Environ(), "PATH="+tools+string(os.PathListSeparator)+os.Getenv("PATH"), "KVPARITY_BUILD_CACHE="+cache, "HANGING_CARGO_PIDS="+pids)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, _ := os.ReadFile(pids); len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the fake cargo never started:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if want := verdict.ExitInterrupted(syscall.SIGTERM); code != want {
		t.Errorf("exit status %d, want %d (interrupted by SIGTERM)\n%s", code, want, stderr.String())
	}
	if !strings.Contains(stderr.String(), "cancelled") {
		t.Errorf("stderr does not say the build was cancelled:\n%s", stderr.String())
	}
	b, _ := os.ReadFile(pids)
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("fake cargo pid %d outlived the cancelled build", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	// Only the source's lineage stays (what cargo compiled, for the next build to continue
	// from): no entry names the cancelled build as built.
	des, _ := os.ReadDir(cache)
	for _, d := range des {
		if !strings.HasPrefix(d.Name(), "lineage-") {
			t.Errorf("the cancelled build left %s in the cache", d.Name())
		}
	}
}
