package headless

import (
	"errors"
	"strings"
	"testing"
	"time"

	"kvparity/engine"
	"kvparity/verdict"
)

// progressText runs printProgress over evs and returns what it printed.
func progressText(evs []engine.Event, verbose bool) string {
	ch := make(chan engine.Event, len(evs))
	for _, ev := range evs {
		ch <- ev
	}
	close(ch)
	var b strings.Builder
	printProgress(ch, &b, verbose)
	return b.String()
}

// col is a run's id in the progress lines' 28-wide column, after their two-space indent.
func col(run string) string { return "  " + run + strings.Repeat(" ", 28-len(run)) }

// The progress lines of a resumed run: nothing of the recorded history is printed again (the
// events before HistoryReplayed), then one line per run started, finished or failed, the stage
// verdicts per arm and across arms, and a blocked row; progress at most once per 2 s a run;
// replay log lines only with --verbose.
func TestProgressLines(t *testing.T) {
	evs := []engine.Event{
		// Recorded by an earlier session: replayed to the engine's state, not printed.
		engine.RunStarted{Run: "det/baseline-1", PID: 11, CPUs: []int{1}},
		engine.StageVerdict{Stage: engine.StageDeterminism, Arm: engine.Baseline, Verdict: verdict.Unstable, Reason: "old"},
		engine.HistoryReplayed{Records: 12},
		engine.RunStarted{Run: "det/baseline-2", Arm: engine.Baseline, PID: 4242, CPUs: []int{2, 3}},
		engine.RunProgress{Run: "det/baseline-2", Completed: 50, Total: 200, VirtualTimeMs: 12345, Elapsed: 1530 * time.Millisecond},
		engine.RunProgress{Run: "det/baseline-2", Completed: 60, Total: 200, VirtualTimeMs: 13000, Elapsed: 1600 * time.Millisecond}, // within 2 s
		engine.LogLine{Run: "det/baseline-2", Line: "INFO replaying"},
		engine.RunProgress{Run: "det/candidate-2", Elapsed: 2600 * time.Millisecond}, // no total: elapsed only
		engine.RunFinished{Run: "det/baseline-2", Elapsed: 1234567 * time.Microsecond},
		engine.RunFinished{Run: "det/candidate-2", ExitCode: 3, Err: errors.New("det/candidate-2: exited with status 3: Error: boom")},
		engine.DigestReady{Run: "det/baseline-2", Digest: "ab12", FixedPoint: "/summary/wall_time_ms"},
		engine.StageVerdict{Stage: engine.StageDeterminism, Arm: engine.Baseline, Verdict: verdict.Stable, Reason: "2 repetitions, one digest"},
		engine.StageVerdict{Stage: engine.StageParity, Verdict: verdict.Pass, Reason: "byte-identical canonical reports"},
		engine.ArtifactChanged{Path: "/rows/r.toml", OldSHA256: "0123456789abcdef", NewSHA256: "fedcba9876543210"},
		engine.RowBlocked{Stage: engine.StagePerf, Reason: "the timing field is missing"},
		engine.StageStarted{Stage: engine.StagePerf}, // says nothing of its own
	}
	want := "resuming: 12 journal records; finished repetitions are not rerun\n" +
		col("det/baseline-2") + " started  pid 4242 · cpu 2-3\n" +
		col("det/baseline-2") + "  25%     50/200 requests · vt 12.3 s · 1.5s\n" +
		col("det/candidate-2") + " running  3s\n" +
		col("det/baseline-2") + " done     1.23s\n" +
		col("det/candidate-2") + " ✗ det/candidate-2: exited with status 3: Error: boom\n" +
		col("det/baseline-2") + " digest   ab12 (harness output not canonical at /summary/wall_time_ms)\n" +
		"determinism baseline: STABLE — 2 repetitions, one digest\n" +
		"parity: PASS — byte-identical canonical reports\n" +
		"row file changed: /rows/r.toml sha256 0123456789ab → fedcba987654 (re-pinned: false)\n" +
		"BLOCKED (perf): the timing field is missing\n"
	if got := progressText(evs, false); got != want {
		t.Errorf("printed\n%s\nwant\n%s", got, want)
	}
	verbose := progressText(evs, true)
	if !strings.Contains(verbose, col("det/baseline-2")+" | INFO replaying\n") {
		t.Errorf("--verbose does not print the replay's log line:\n%s", verbose)
	}
	// A fresh campaign has no history: the first line is the first run's.
	if got := progressText([]engine.Event{engine.HistoryReplayed{}, engine.RunStarted{Run: "det/baseline-1", PID: 7, CPUs: []int{0}}}, false); got != col("det/baseline-1")+" started  pid 7 · cpu 0\n" {
		t.Errorf("fresh campaign printed %q", got)
	}
}
