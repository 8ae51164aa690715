// Package e2e holds what the end-to-end tests share: they build the kvparity binary and run it
// as a user would (its jobs exec it, its built-in arms replay with it), in more than one test
// package, so the root package's tests and the surfaces' agreement (package consistency) each
// get go test's per-package time. ReadOnly makes a folder unwritable as a read-only mount
// does, for the tests of every package that must refuse to write one.
package e2e

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Binary builds kvparity into the test's folder. Building per test keeps every file inside
// t.TempDir; the compile is cached, so a second build only links.
func Binary(t testing.TB) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the end-to-end tests build kvparity and need the go tool: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "kvparity")
	if out, err := exec.Command(goTool, "build", "-o", bin, "kvparity").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
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
