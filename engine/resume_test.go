package engine

import (
	"fmt"
	"kvparity/engine/journal"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kvparity/engine/replaytest"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// runCampaignEnv makes the test binary a headless campaign process (for the SIGKILL test):
// it opens or creates the tiny campaign in that directory and runs the determinism stage.
const runCampaignEnv = "KVPARITY_TEST_CAMPAIGN"

func runCampaignChild(dir string) int {
	os.Unsetenv(runCampaignEnv) // its replays are fakes, not campaigns
	os.Setenv(replaytest.Env, "1")
	exe, _ := os.Executable()
	c, err := OpenOrCreate(tinyTestRow("", ""), Options{Dir: dir, BuiltinPath: exe, PollInterval: 20 * time.Millisecond,
		Warn: func(s string) { fmt.Fprintln(os.Stderr, "warning:", s) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	go func() {
		for range c.Events() {
		}
	}()
	if err := ctl(c).StartDeterminism(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	c.Wait()
	code := semanticExit(c.Summary())
	c.Close()
	return code
}

// processesUnder lists live processes whose command line mentions dir.
func processesUnder(dir string) []string {
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), dir) {
			found = append(found, p)
		}
	}
	return found
}

// countRecords counts journal records of a type per run.
func runEnds(t *testing.T, dir string) map[RunID]int {
	t.Helper()
	j, err := journal.Open[Record](filepath.Join(dir, layout.FileJournal), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	m := map[RunID]int{}
	for _, r := range j.Records() {
		if r.Type == RecRunEnd {
			m[r.Run]++
		}
	}
	return m
}

func TestSIGKILLMidStageResumesWithoutLosingOrDuplicating(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a campaign in a child process, kills it and resumes in another (fake replays sleep 700 ms)")
	}
	dir := filepath.Join(t.TempDir(), "c")
	child := exec.Command(testBinary(t))
	child.Env = append(os.Environ(), runCampaignEnv+"="+dir, replaytest.Env+"=0", "KVPARITY_FAKE_SLEEP_MS=700")
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once at least one repetition is recorded and the stage is not finished.
	deadline := time.Now().Add(60 * time.Second)
	var before map[RunID]int
	for {
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatal("no repetition finished in time")
		}
		time.Sleep(30 * time.Millisecond)
		if _, err := os.Stat(filepath.Join(dir, layout.FileJournal)); err != nil {
			continue
		}
		if before = runEnds(t, dir); len(before) >= 1 {
			break
		}
	}
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	// Its replays die with it (Pdeathsig) instead of running on unrecorded.
	deadline = time.Now().Add(5 * time.Second)
	for len(processesUnder(dir)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("replays outlived the killed campaign process: %v", processesUnder(dir))
		}
		time.Sleep(20 * time.Millisecond)
	}
	before = runEnds(t, dir)
	if len(before) >= 4 {
		t.Skip("the stage finished before the kill landed")
	}

	// Resume in a fresh process of the same kind: it must finish with every repetition once.
	again := exec.Command(testBinary(t))
	again.Env = append(os.Environ(), runCampaignEnv+"="+dir, replaytest.Env+"=0", "KVPARITY_FAKE_SLEEP_MS=50")
	out, err := again.CombinedOutput()
	if err != nil {
		recs, _ := os.ReadFile(filepath.Join(dir, layout.FileJournal))
		t.Fatalf("resumed campaign: %v\n%s\n%s", err, out, recs)
	}
	after := runEnds(t, dir)
	for run, n := range after {
		if n != 1 {
			t.Errorf("%s recorded %d times", run, n)
		}
	}
	for run := range before {
		if after[run] != 1 {
			t.Errorf("finished repetition %s lost on resume", run)
		}
	}
	c, err := Open(dir, testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	drain(c)
	defer c.Close()
	s := c.Summary()
	for _, arm := range []Arm{Baseline, Candidate} {
		if s.Arms[arm].Verdict != "STABLE" || len(s.Arms[arm].Runs) != 2 {
			t.Fatalf("%s after resume: %+v", arm, s.Arms[arm])
		}
	}
	if p := c.History().Parity(); p.Verdict != verdict.Pass {
		t.Fatalf("parity after resume: %+v", p)
	}
}
