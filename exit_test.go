package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"kvparity/verdict"
)

// failingWriter refuses every write, as a closed pipe or a full disk would.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// Every command's error paths exit with a named status, and none of them with FAIL's: a
// missing input is verdict.ExitUsage, kvparity failing at its own work is verdict.ExitError.
// Each registered command must have a case here, so a new command cannot skip the rule.
func TestExitStatusOfEveryCommandsErrorPaths(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.toml")
	_, diffA, diffB := writeReports(t) // two canonical reports that differ
	nowhere := filepath.Join(dir, "nowhere")
	cases := []struct {
		args   []string
		stdout io.Writer // nil: a buffer
		want   int
		says   string
	}{
		{args: []string{"run", missing}, want: verdict.ExitUsage, says: "missing.toml"},
		{args: []string{"run", "--frobnicate"}, want: verdict.ExitUsage, says: "flag provided but not defined"},
		{args: []string{"build", missing}, want: verdict.ExitUsage, says: "missing.toml"},
		{args: []string{"bisect", missing, "--good", "a", "--bad", "b"}, want: verdict.ExitUsage, says: "missing.toml"},
		{args: []string{"workbench", missing}, want: verdict.ExitUsage, says: "missing.toml"},
		{args: []string{"open", nowhere}, want: verdict.ExitUsage, says: "nowhere is not a campaign directory"},
		{args: []string{"report", nowhere}, want: verdict.ExitUsage, says: "nowhere"},
		{args: []string{"report"}, want: verdict.ExitUsage, says: "usage: kvparity report"},
		{args: []string{"clean", nowhere}, want: verdict.ExitUsage, says: "nowhere"},
		{args: []string{"investigate", nowhere}, want: verdict.ExitUsage, says: "nowhere"},
		{args: []string{"diff", missing, missing}, want: verdict.ExitUsage, says: "missing.toml"},
		{args: []string{"canon", missing}, want: verdict.ExitUsage, says: "missing.toml"},
		{args: []string{"exceptions", "delete", nowhere, "x1"}, want: verdict.ExitUsage, says: "kvparity exceptions:"},
		{args: []string{"matrix", missing}, want: verdict.ExitUsage, says: "--campaign DIR is required"},
		{args: []string{"cache", "prune", "--max", "0"}, want: verdict.ExitUsage, says: "give a size above zero"},
		{args: []string{"init-row", "-o", filepath.Join(nowhere, "row.toml")}, want: verdict.ExitUsage, says: "nowhere"},
		{args: []string{"gen-trace", "-o", filepath.Join(nowhere, "t.jsonl")}, want: verdict.ExitUsage, says: "nowhere"},
		{args: []string{"qualify", missing}, want: verdict.ExitUsage, says: "missing.toml"},
		{args: []string{"qualify", "--band", "20-10x", "--row", "tiny"}, want: verdict.ExitUsage, says: "--band"},
		{args: []string{"trace", "add", missing}, want: verdict.ExitUsage, says: "missing.toml"},
		{args: []string{"trace"}, want: verdict.ExitUsage, says: "usage: kvparity trace add"},
		// The output cannot be written: kvparity's failure, not the input's, and not a FAIL.
		{args: []string{"diff", diffA, diffB}, stdout: failingWriter{}, want: verdict.ExitError, says: "no space left on device"},
		{args: []string{"diff", "--json", diffA, diffB}, stdout: failingWriter{}, want: verdict.ExitError, says: "no space left on device"},
		{args: []string{"gen-trace", "--requests", "10"}, stdout: failingWriter{},
			want: verdict.ExitError, says: "no space left on device"},
		// kvparity replay stands in for offline_replay_bench, so it keeps the bench's statuses
		// (clap's 2 for a command-line error, 1 for any other): the harness reads them as the
		// Rust binary's.
		{args: []string{"replay", "--frobnicate"}, want: 2, says: "error:"},
		{args: []string{"replay", missing}, want: 1, says: "Error:"},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.args[0]] = true
		var out, errb bytes.Buffer
		stdout := c.stdout
		if stdout == nil {
			stdout = &out
		}
		code := dispatch(c.args, stdout, &errb)
		if code != c.want || !strings.Contains(errb.String(), c.says) {
			t.Errorf("kvparity %s: exit %d, stderr %q; want exit %d mentioning %q", strings.Join(c.args, " "), code, errb.String(), c.want, c.says)
		}
	}
	for name := range commands {
		if !covered[name] {
			t.Errorf("command %q has no error path in this test", name)
		}
	}
	var out, errb bytes.Buffer
	if code := dispatch([]string{"help"}, &out, &errb); code != verdict.ExitPass {
		t.Errorf("kvparity help: exit %d, want %d", code, verdict.ExitPass)
	}
}

// A signal's stop exits with the shell's status for that signal, from verdict; a context
// cancelled otherwise is no interruption.
func TestExitStatusOfAnInterruption(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(signalStop{syscall.SIGTERM})
	if code, ok := interruptedExit(ctx); !ok || code != 143 || code != verdict.ExitInterrupted(syscall.SIGTERM) {
		t.Errorf("stopped by SIGTERM: exit %d (ok %v), want 143", code, ok)
	}
	ctx, cancel = context.WithCancelCause(context.Background())
	cancel(nil)
	if code, ok := interruptedExit(ctx); ok {
		t.Errorf("cancelled without a signal: exit %d reported as an interruption", code)
	}
}
