package chaos_test

import (
	"kvparity/e2e"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kvparity/engine"
	"kvparity/verdict"
)

// Issue 25, "the replay's own child keeps running": a replay that starts children of its own
// (one in its process group, one that left it with setsid) is running when kvparity gets
// SIGHUP or SIGTERM. kvparity records the interruption, the journal reads back whole, and no
// descendant of the replay survives.
func TestChaosSignalKillsTheReplaysOwnChildren(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real campaign")
	}
	for _, exe := range []string{"bash", "setsid"} {
		if _, err := exec.LookPath(exe); err != nil {
			t.Skipf("%s is not installed", exe)
		}
	}
	bin := e2e.Binary(t)
	for _, tc := range []struct {
		sig    syscall.Signal
		reason string
	}{{syscall.SIGHUP, "hangup signal received"}, {syscall.SIGTERM, "terminated signal received"}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			marker := "kvparity-replay-child-" + strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(int(tc.sig))
			t.Cleanup(func() { killByMarker(marker) })
			replay := filepath.Join(t.TempDir(), "offline_replay_bench")
			script := "#!/bin/bash\n" +
				"bash -c 'exec -a " + marker + "-group sleep 300' </dev/null >/dev/null 2>&1 &\n" +
				"setsid bash -c 'exec -a " + marker + "-setsid sleep 300' </dev/null >/dev/null 2>&1 &\n" +
				"exec -a " + marker + "-replay sleep 300\n"
			if err := os.WriteFile(replay, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			row := engine.TinyRow("", "")
			row.Name = "children"
			for _, a := range []*engine.ArmSpec{&row.Baseline, &row.Candidate} {
				a.Revision, a.Binary = "abcdef0", replay
			}
			rowFile := e2e.RowFile(t, row.Name+".toml", row)
			dir := e2e.CampaignDir(t, "c")
			p := e2e.Start(t, bin, "run", rowFile, "--campaign", dir, "--stage", "determinism")

			waitJournal(t, dir, "a running replay", aRunIsOpen)
			if !e2e.Until(time.Minute, func() bool { return len(liveByMarker(marker)) >= 3 }) {
				t.Fatalf("the replay and its two children never all ran: %v\n%s", liveByMarker(marker), p.Stderr())
			}
			t.Logf("before %s: %v", tc.sig, liveByMarker(marker))
			p.Signal(tc.sig) // kvparity alone, as the terminal or kill sends it
			if !p.Wait(30 * time.Second) {
				t.Fatalf("kvparity did not stop on %s", tc.sig)
			}
			if code := p.ExitCode(); code != verdict.ExitInconclusive {
				t.Errorf("kvparity stopped by %s mid-stage exited %d, want 2 (undecided)\n%s", tc.sig, code, e2e.Tail(p.Stderr(), 20))
			}
			e2e.Until(5*time.Second, func() bool { return len(liveByMarker(marker)) == 0 })
			if left := liveByMarker(marker); len(left) > 0 {
				t.Errorf("descendants of the replay outlived kvparity's %s: %v", tc.sig, left)
			}
			checkStoppedBy(t, dir, tc.reason)
		})
	}
}

// liveByMarker lists live (non-zombie) processes whose command line holds marker, as
// "pid cmdline".
func liveByMarker(marker string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmdline, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		out = append(out, filepath.Base(filepath.Dir(p))+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return out
}

// killByMarker kills what liveByMarker finds (the test's own leftovers, by pid).
func killByMarker(marker string) {
	for _, p := range liveByMarker(marker) {
		if pid, err := strconv.Atoi(strings.Fields(p)[0]); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
