package instructions_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"kvparity/engine"
	"kvparity/engine/enginetest"
	"kvparity/engine/instructions"
	"kvparity/engine/replaytest"
	"kvparity/engine/stages"
	"kvparity/verdict"
)

// The test binary plays the fake replay (enginetest.Main) and, started as "valgrind", the fake
// callgrind.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "valgrind" {
		os.Exit(fakeValgrind(os.Args[1:]))
	}
	enginetest.Main(m)
}

// fakeValgrind is callgrind as the instruction instrument runs it (valgrind --tool=callgrind
// --callgrind-out-file=F ... BINARY ARGS): it writes a profile whose Ir total is 1,000,000, or
// KVPARITY_FAKE_IR when set (KVPARITY_FAKE_IR_CANDIDATE for a candidate's artifact), then runs
// the fake replay with ARGS so the timing line is written as a real run's.
func fakeValgrind(args []string) int {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Println("valgrind-3.19.0-fake")
		return 0
	}
	out, i := "", 0
	for ; i < len(args) && strings.HasPrefix(args[i], "--"); i++ {
		if v, ok := strings.CutPrefix(args[i], "--callgrind-out-file="); ok {
			out = v
		}
	}
	if out == "" || i >= len(args) {
		fmt.Fprintln(os.Stderr, "fake valgrind: no --callgrind-out-file or no program")
		return 1
	}
	ir := uint64(1_000_000)
	if v, err := strconv.ParseUint(os.Getenv("KVPARITY_FAKE_IR"), 10, 64); err == nil {
		ir = v
	}
	if v, err := strconv.ParseUint(os.Getenv("KVPARITY_FAKE_IR_CANDIDATE"), 10, 64); err == nil && strings.HasPrefix(filepath.Base(args[i]), "candidate-") {
		ir = v
	}
	rest := args[i+1:]
	if err := os.WriteFile(out, fmt.Appendf(nil, "# callgrind format\nevents: Ir\nsummary: %d\ntotals: %d\n", ir, ir), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fake valgrind:", err)
		return 1
	}
	return replaytest.Replay(rest)
}

// withFakeValgrind puts the fake callgrind first on PATH for the test.
func withFakeValgrind(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	copyExecutable(t, filepath.Join(dir, "valgrind"))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// The instrument counts each arm in separate processes, alternating, records every count and
// the result in the journal (a reopened campaign publishes it again and never recounts), and
// changes no verdict.
func TestInstructionStageCountsRecordsAndDecidesNothing(t *testing.T) {
	withFakeValgrind(t)
	t.Setenv("KVPARITY_FAKE_IR_CANDIDATE", "1100000")
	row := enginetest.Row("", "")
	row.Perf.InstructionsRuns = 3
	dir := filepath.Join(t.TempDir(), "c")
	c, log := enginetest.Open(t, row, dir)
	if err := stages.New(c).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	before := c.History().Inputs(dir)
	if err := instructions.Start(c.Host(), 0); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	r := c.History().Instructions()
	if r == nil {
		t.Fatalf("no result; events %v", enginetest.EventsOf[engine.RowBlocked](log.All()))
	}
	if len(r.Baseline.Counts) != 3 || r.Baseline.Median != 1_000_000 || r.Candidate.Median != 1_100_000 || !r.Explain || r.Tool != "valgrind-3.19.0-fake" {
		t.Fatalf("result %+v", r)
	}
	var order []string
	for _, rr := range c.History().Runs() {
		if rr.Start != nil && rr.Start.Kind == engine.KindInstructions {
			order = append(order, string(rr.Start.Run))
			if rr.End == nil || rr.End.Error != "" || len(rr.Start.CPUs) != 1 {
				t.Errorf("run %s: %+v", rr.Start.Run, rr.End)
			}
		}
	}
	want := "instructions/b1-c1/baseline-01 instructions/b1-c1/candidate-01 instructions/b1-c1/baseline-02 instructions/b1-c1/candidate-02 instructions/b1-c1/baseline-03 instructions/b1-c1/candidate-03"
	if strings.Join(order, " ") != want {
		t.Errorf("runs %v, want alternating arms", order)
	}
	if b, a := verdict.Decide(before), verdict.Decide(c.History().Inputs(dir)); !reflect.DeepEqual(a, b) {
		t.Errorf("the counts changed a verdict: %+v → %+v", b, a)
	}
	c.Close()

	// Reopened: the result is published again from the journal, and a new start recounts nothing.
	c2, log2 := enginetest.Open(t, row, dir)
	log2.WaitFor(t, "the recorded result replayed", func(evs []engine.Event) bool { return len(enginetest.EventsOf[engine.InstructionsDone](evs)) > 0 })
	n := len(c2.History().Runs())
	if err := instructions.Start(c2.Host(), 0); err != nil {
		t.Fatal(err)
	}
	c2.Wait()
	if len(c2.History().Runs()) != n {
		t.Error("a decided count was recounted")
	}
}

// Without valgrind the stage says so and records nothing.
func TestInstructionStageWithoutValgrind(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	row := enginetest.Row("", "")
	dir := filepath.Join(t.TempDir(), "c")
	c, log := enginetest.Open(t, row, dir)
	if err := instructions.Start(c.Host(), 1); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	log.WaitFor(t, "engine.InstructionsDone", func(evs []engine.Event) bool { return len(enginetest.EventsOf[engine.InstructionsDone](evs)) > 0 })
	done := enginetest.EventsOf[engine.InstructionsDone](log.All())
	if len(done) != 1 || done[0].Result != nil || !strings.Contains(done[0].Unavailable, "valgrind is not installed") {
		t.Fatalf("%+v", done)
	}
	if c.History().Instructions() != nil || len(enginetest.EventsOf[engine.RowBlocked](log.All())) != 0 {
		t.Error("a result or a block without valgrind")
	}
}

// A counted run whose profile has no count gives no figure: the failure names the run, is
// recorded (and said again on reopen), and blocks nothing: the instrument decides nothing.
func TestInstructionStageFailureNamesTheRunAndBlocksNothing(t *testing.T) {
	withFakeValgrind(t)
	t.Setenv("KVPARITY_FAKE_IR", "0")
	dir := filepath.Join(t.TempDir(), "c")
	c, log := enginetest.Open(t, enginetest.Row("", ""), dir)
	if err := stages.New(c).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	before := verdict.Decide(c.History().Inputs(dir))
	if err := instructions.Start(c.Host(), 1); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	log.WaitFor(t, "the failure", func(evs []engine.Event) bool {
		for _, d := range enginetest.EventsOf[engine.InstructionsDone](evs) {
			if d.Failed != "" {
				return true
			}
		}
		return false
	})
	why := c.History().InstructionsFailure()
	if !strings.Contains(why, "instructions/b1-c1/baseline-01") || !strings.Contains(why, "counted no instruction") {
		t.Fatalf("failure %q", why)
	}
	if b := enginetest.EventsOf[engine.RowBlocked](log.All()); len(b) != 0 {
		t.Errorf("the instrument's failure blocked the row: %+v", b)
	}
	if after := verdict.Decide(c.History().Inputs(dir)); !reflect.DeepEqual(after, before) {
		t.Errorf("the instrument's failure changed a verdict: %+v → %+v", before, after)
	}
	c.Close()
	_, log2 := enginetest.Open(t, enginetest.Row("", ""), dir)
	log2.WaitFor(t, "the failure said again on reopen", func(evs []engine.Event) bool {
		for _, d := range enginetest.EventsOf[engine.InstructionsDone](evs) {
			if d.Failed == why {
				return true
			}
		}
		return false
	})
}

// The desk loop: after a rebuild re-pins an arm and determinism passes again, a row declaring
// instructions_runs counts the new generation once per arm beside the verdict.
func TestWatchCountsInstructionsAfterDeterminism(t *testing.T) {
	if testing.Short() {
		t.Skip("two determinism stages of fake replays, then a counted run per arm")
	}
	withFakeValgrind(t)
	row, src := pathRow(t)
	row.Perf.InstructionsRuns = 3
	dir := filepath.Join(t.TempDir(), "c")
	c, log := enginetest.Open(t, row, dir)
	if err := stages.New(c).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if err := stages.New(c).SetWatch(true); err != nil {
		t.Fatal(err)
	}
	defer stages.New(c).SetWatch(false)
	rebuild(t, filepath.Join(src, "cand_bench"))
	log.WaitFor(t, "the rebuilt candidate's instruction count", func(evs []engine.Event) bool {
		for _, d := range enginetest.EventsOf[engine.InstructionsDone](evs) {
			if d.Result != nil && d.Result.Key == "b1-c2" {
				return true
			}
		}
		return false
	})
	r := c.History().Instructions()
	if r == nil || r.Key != "b1-c2" || len(r.Baseline.Counts) != 1 || len(r.Candidate.Counts) != 1 {
		t.Fatalf("%+v", r)
	}
	// It came after the repinned generation's parity verdict.
	var parity, counted int
	for i, e := range log.All() {
		if v, ok := e.(engine.StageVerdict); ok && v.Stage == engine.StageParity {
			parity = i
		}
		if s, ok := e.(engine.StageStarted); ok && s.Stage == engine.StageInstructions {
			counted = i
		}
	}
	if counted < parity {
		t.Errorf("the count started (event %d) before the rerun's parity verdict (event %d)", counted, parity)
	}
}

// copyExecutable copies the test binary to path (a fake valgrind, or a path arm's binary).
func copyExecutable(t *testing.T, path string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// pathRow is a row whose arms are copies of the test binary in a source folder the watcher
// watches (as engine's watch tests make it).
func pathRow(t *testing.T) (*engine.Row, string) {
	t.Helper()
	src := t.TempDir()
	for _, name := range []string{"base_bench", "cand_bench"} {
		copyExecutable(t, filepath.Join(src, name))
	}
	r := enginetest.Row("", "")
	r.Baseline = engine.ArmSpec{Revision: "a1b2c3d4", Binary: filepath.Join(src, "base_bench"), Features: []string{"replay-bench"}}
	r.Candidate = engine.ArmSpec{Revision: "e4f5a6b7", Binary: filepath.Join(src, "cand_bench"), Features: []string{"replay-bench"}}
	return r, src
}

// rebuild changes a binary's bytes the way a build does (it stays runnable).
func rebuild(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("rebuilt")
	f.Close()
}
