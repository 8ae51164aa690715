package determinism_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"kvparity/engine"
	"kvparity/engine/determinism"
	"kvparity/engine/enginetest"
	"kvparity/engine/journal"
	"kvparity/engine/run"
	"kvparity/internal/layout"
)

func TestIdenticalArmsStableAndParityPass(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	s, evs := enginetest.RunDeterminism(t, enginetest.Row("", ""), dir)
	v := enginetest.Verdicts(evs)
	if v["determinism/baseline"] != "STABLE" || v["determinism/candidate"] != "STABLE" || v["parity/"] != "PASS" {
		t.Fatalf("verdicts %v", v)
	}
	if got := enginetest.SemanticExit(s); got != 0 {
		t.Fatalf("exit code %d, summary %+v", got, s)
	}
	digests := enginetest.PlainDigests(evs)
	if len(digests) != 4 {
		t.Fatalf("%d digests, want 4 (2 repetitions x 2 arms)", len(digests))
	}
	if n := len(enginetest.EventsOf[engine.DigestReady](evs)) - len(digests); n != 2 {
		t.Fatalf("%d perturbed digests, want 2 (one per arm)", n)
	}
	for _, d := range digests {
		if d.Digest != digests[0].Digest || len(d.Digest) != 64 {
			t.Fatalf("digest %q differs from %q", d.Digest, digests[0].Digest)
		}
		// Matching full reports are deleted, but for the baseline's first: the reference a
		// later generation of the candidate (watch mode) is diffed against.
		_, err := os.Stat(d.ReportPath)
		if reference := d.Run == "det/baseline-1"; reference != (err == nil) {
			t.Errorf("report %s: kept %v (stat err %v), want kept only for the baseline's first repetition", d.ReportPath, err == nil, err)
		}
	}
	// Every repetition ran pinned to exactly one CPU, read back from /proc.
	var starts []engine.RunStarted
	for _, st := range enginetest.EventsOf[engine.RunStarted](evs) {
		if st.Kind == engine.KindRepetition {
			starts = append(starts, st)
		}
	}
	if len(starts) != 4 {
		t.Fatalf("%d repetitions started, want 4", len(starts))
	}
	for _, st := range starts {
		if len(st.CPUs) != 1 || !slices.Contains(run.AllowedCPUs(), st.CPUs[0]) {
			t.Errorf("%s pinned to %v", st.Run, st.CPUs)
		}
		// The event names the build it ran (the diff pane tells repetitions of one build by it).
		if st.Gen != 1 {
			t.Errorf("%s started with generation %d, want 1", st.Run, st.Gen)
		}
	}
	if len(enginetest.EventsOf[engine.CoverageReady](evs)) != 4 {
		t.Errorf("want evidence for every repetition")
	}
	if len(enginetest.EventsOf[engine.RunProgress](evs)) == 0 {
		t.Errorf("no progress events from the side channel")
	}
	for _, f := range []string{"row.toml", "host.json", "artifacts.json", "journal.jsonl", "trace/window.jsonl", "trace/checksums.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("campaign file %s: %v", f, err)
		}
	}
}

func TestSemanticVariantFailsParityAndKeepsBothReports(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	s, evs := enginetest.RunDeterminism(t, enginetest.Row("", "fifo-preemption"), dir)
	v := enginetest.Verdicts(evs)
	if v["determinism/baseline"] != "STABLE" || v["determinism/candidate"] != "STABLE" || v["parity/"] != "FAIL" {
		t.Fatalf("verdicts %v", v)
	}
	if enginetest.SemanticExit(s) != 1 {
		t.Fatalf("exit code %d, want 1", enginetest.SemanticExit(s))
	}
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		if s.Arms[arm].Runs[0].Report == "" {
			t.Errorf("%s report deleted although parity failed", arm)
		}
	}
}

func TestReplayFailuresAreRowErrorsAndLoseNothingElse(t *testing.T) {
	if testing.Short() {
		t.Skip("four determinism stages on the fake replay, one waiting out a 1.5 s timeout")
	}
	cases := []struct {
		variant string
		timeout time.Duration
		want    string
	}{
		{"exit-nonzero", 0, "exited with status 3: Error: the fake replay failed on purpose"},
		{"hang", 1500 * time.Millisecond, "hung past its timeout of 1.5s and was killed"},
		{"malformed", 0, "malformed report"},
		{"no-replay-bench", 0, "replay_bench"},
	}
	for _, tc := range cases {
		t.Run(tc.variant, func(t *testing.T) {
			row := enginetest.Row("", tc.variant)
			if tc.timeout > 0 {
				row.Determinism.Timeout = engine.Duration{Duration: tc.timeout}
			}
			dir := filepath.Join(t.TempDir(), "c")
			s, evs := enginetest.RunDeterminism(t, row, dir)
			v := enginetest.Verdicts(evs)
			if v["determinism/baseline"] != "STABLE" || v["determinism/candidate"] != "BLOCKED" || v["parity/"] != "BLOCKED" {
				t.Fatalf("verdicts %v", v)
			}
			if !strings.Contains(s.Arms[engine.Candidate].Reason, tc.want) {
				t.Fatalf("candidate reason %q does not say %q", s.Arms[engine.Candidate].Reason, tc.want)
			}
			if enginetest.SemanticExit(s) != 2 {
				t.Fatalf("exit code %d, want 2 (blocked)", enginetest.SemanticExit(s))
			}
			// Nothing else lost: the baseline's digests are recorded.
			for _, r := range s.Arms[engine.Baseline].Runs {
				if r.Digest == "" {
					t.Errorf("baseline %s lost its digest", r.Run)
				}
			}
			var fin []engine.RunFinished
			for _, f := range enginetest.EventsOf[engine.RunFinished](evs) {
				if f.Arm == engine.Candidate && f.Kind == engine.KindRepetition {
					fin = append(fin, f)
				}
			}
			if len(fin) != 2 || fin[0].Err == nil {
				t.Fatalf("candidate RunFinished %v", fin)
			}
			if tc.variant == "hang" && !fin[0].TimedOut {
				t.Errorf("hang not marked TimedOut: %+v", fin[0])
			}
		})
	}
}

func TestStopStageKillsRunsAndResumeReruns(t *testing.T) {
	t.Setenv("KVPARITY_FAKE_SLEEP_MS", "20000")
	dir := filepath.Join(t.TempDir(), "c")
	c, log := enginetest.Open(t, enginetest.Row("", ""), dir)
	if err := determinism.Start(c.Host()); err != nil {
		t.Fatal(err)
	}
	if err := determinism.Start(c.Host()); err == nil {
		t.Fatal("a second stage started while one runs")
	}
	log.WaitFor(t, "a run to start", func(evs []engine.Event) bool { return len(enginetest.EventsOf[engine.RunStarted](evs)) > 0 })
	pid := enginetest.EventsOf[engine.RunStarted](log.All())[0].PID
	start := time.Now()
	c.StopStage()
	c.Wait()
	if time.Since(start) > 10*time.Second {
		t.Fatal("StopStage did not kill the replay")
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("replay %d still alive after StopStage", pid)
	}
	log.WaitFor(t, "StageStopped", func(evs []engine.Event) bool { return len(enginetest.EventsOf[engine.StageStopped](evs)) > 0 })
	stopped := enginetest.EventsOf[engine.StageStopped](log.All())
	if len(stopped) != 1 || !stopped[0].Cancelled {
		t.Fatalf("StageStopped %v", stopped)
	}
	c.Close()
}

func TestConcurrentRepetitionsRunOnDisjointCPUs(t *testing.T) {
	if testing.Short() {
		t.Skip("a determinism stage of fake replays that each sleep 300 ms")
	}
	if len(run.AllowedCPUs()) < 2 {
		t.Skip("needs two CPUs")
	}
	t.Setenv("KVPARITY_FAKE_SLEEP_MS", "300")
	dir := filepath.Join(t.TempDir(), "c")
	enginetest.RunDeterminism(t, enginetest.Row("", ""), dir)
	// The journal brackets each process: its run_start is recorded after the process started
	// and its run_end before its CPU is handed to the next run, so two runs that shared a CPU
	// at the same time would have overlapping brackets.
	type span struct {
		cpu        int
		start, end time.Time
	}
	spans := map[engine.RunID]*span{}
	recs, _, err := journal.Read[engine.Record](filepath.Join(dir, layout.FileJournal), journal.RefuseDamage)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Kind != engine.KindRepetition {
			continue // the preflight probes and perturbed repetitions share every CPU on purpose
		}
		switch r.Type {
		case engine.RecRunStart:
			spans[r.Run] = &span{cpu: r.CPUs[0], start: r.At}
		case engine.RecRunEnd:
			spans[r.Run].end = r.At
		}
	}
	overlapped := false
	for a, x := range spans {
		for b, y := range spans {
			if a < b && x.start.Before(y.end) && y.start.Before(x.end) {
				overlapped = true
				if x.cpu == y.cpu {
					t.Errorf("%s and %s ran at the same time on CPU %d", a, b, x.cpu)
				}
			}
		}
	}
	if !overlapped {
		t.Error("no two repetitions ran concurrently on a multi-core host")
	}
}

func TestAddAndRerunRepetition(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, _ := enginetest.Open(t, enginetest.Row("", ""), dir)
	if err := determinism.Start(c.Host()); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if err := determinism.AddRepetition(c.Host(), engine.Candidate); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	s := c.Summary()
	if runs := s.Arms[engine.Candidate].Runs; len(runs) != 3 || runs[2].Run != "det/candidate-3" || s.Arms[engine.Candidate].Verdict != "STABLE" {
		t.Fatalf("after AddRepetition: %+v", s.Arms[engine.Candidate])
	}
	if err := determinism.RerunRepetition(c.Host(), "det/baseline-1"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	s = c.Summary()
	if r := s.Arms[engine.Baseline].Runs[0]; r.Run != "det/baseline-1-a2" || r.Attempt != 2 || r.Digest == "" {
		t.Fatalf("after RerunRepetition: %+v", r)
	}
	if enginetest.SemanticExit(s) != 0 {
		t.Fatalf("summary %+v", s)
	}
	if err := determinism.RerunRepetition(c.Host(), "det/nothing-1"); err == nil {
		t.Fatal("rerun of an unknown run accepted")
	}
	// The added repetition survives a reopen.
	c.Close()
	c2, err := engine.Open(dir, enginetest.Options(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	enginetest.Drain(c2)
	defer c2.Close()
	if n := len(c2.Summary().Arms[engine.Candidate].Runs); n != 3 {
		t.Fatalf("%d candidate repetitions after reopen, want 3", n)
	}
}
func TestMain(m *testing.M) { enginetest.Main(m) }
