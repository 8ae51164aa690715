// Package e2e is the home of the end-to-end tests and their one harness. The suites, each a
// package of its own so that each gets go test's per-package time, are e2e/chaos (kills,
// signals and several writers on one campaign), e2e/realrow (the shipped real Dynamo rows)
// and e2e/consistency (every surface of a campaign says the same verdict). The harness is this
// package, and the tests of other packages that run kvparity as a user would use it too: one
// way to build the kvparity binary (Binary: once per test process under Main, its TestMain),
// to run it with an argv (Run, or Start for a process the test signals or kills), to make a
// campaign folder and a row file (CampaignDir, RowFile), and to wait on a condition with a
// deadline (WaitFor, Until), never for a fixed time. ReadOnly makes a folder unwritable as a
// read-only mount does, for the tests of every package that must refuse to write one.
//
// It imports only the standard library: a test hands it what it knows of kvparity (a row's
// encoding, a condition over its journal).
//
//	e2e.go       Binary, Main, Build, Run, Tail: the binary built once and run with an argv
//	process.go   Start, Proc: a kvparity the test signals, kills and waits for
//	wait.go      WaitFor, Until: conditions with deadlines
//	files.go     CampaignDir, RowFile
//	readonly.go  ReadOnly
package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var built struct {
	sync.Mutex
	main bool   // Main runs the package's tests: the binary is built once and removed after them
	dir  string // where it was built ("" before the first Binary under Main)
	bin  string
	err  error
}

// Main runs a test package's tests with its kvparity binary built once, on first use, for all
// of them, and removed when they end: TestMain calls os.Exit(e2e.Main(m)).
func Main(m *testing.M) int {
	built.Lock()
	built.main = true
	built.Unlock()
	code := m.Run()
	built.Lock()
	defer built.Unlock()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	return code
}

// Binary is the kvparity binary: built once per test process when the package's TestMain is
// Main, else into the test's folder (the compile is cached, so a second build only links).
func Binary(t testing.TB) string {
	t.Helper()
	built.Lock()
	defer built.Unlock()
	if !built.main {
		bin, err := Build(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return bin
	}
	if built.dir == "" && built.err == nil {
		if built.dir, built.err = os.MkdirTemp("", "kvparity-e2e-"); built.err == nil {
			built.bin, built.err = Build(built.dir)
		}
	}
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// Build builds kvparity into dir and returns its path: Binary's one way of building it, for a
// TestMain that needs the binary before its tests run (campaignreport's runs its fixture
// campaigns with it).
func Build(dir string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("the end-to-end tests build kvparity and need the go tool: %v", err)
	}
	bin := filepath.Join(dir, "kvparity")
	if out, err := exec.Command(goTool, "build", "-o", bin, "kvparity").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// Run runs the built binary with args and returns its exit status and output; it fails the
// test when kvparity cannot start or outlives timeout.
func Run(t testing.TB, bin string, timeout time.Duration, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	// A kvparity started by a test dies with the test (a go test timeout kills the test binary;
	// kvparity's own children, cargo included, die with kvparity through procgroup).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("kvparity %s: timed out after %s\nstderr:\n%s", strings.Join(args, " "), timeout, errb.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("kvparity %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// Tail is the last n lines of s, for failure messages quoting a command's output.
func Tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
