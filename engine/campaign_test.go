package engine

import (
	"kvparity/engine/run"
	"kvparity/internal/e2e"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// eventLog drains a campaign's channel in the background (as the UI does).
type eventLog struct {
	mu   sync.Mutex
	evs  []Event
	done chan struct{}
}

// openWithEmbeddedEngine creates a campaign of row in a test folder whose built-in arms replay
// with the real embedded engine (kvparity built from this module), closed when the test ends,
// its events drained into the returned log.
func openWithEmbeddedEngine(t *testing.T, row *Row) (*Campaign, *eventLog) {
	t.Helper()
	opts := testOptions(t, filepath.Join(t.TempDir(), "c"))
	opts.BuiltinPath = e2e.Binary(t)
	c, err := OpenOrCreate(row, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, drain(c)
}

func drain(c *Campaign) *eventLog {
	l := &eventLog{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		for ev := range c.Events() {
			l.mu.Lock()
			l.evs = append(l.evs, ev)
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *eventLog) all() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.evs)
}

// waitFor polls until pred holds over the events so far.
func (l *eventLog) waitFor(t *testing.T, what string, pred func([]Event) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if pred(l.all()) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; events: %v", what, l.all())
}

func eventsOf[T Event](evs []Event) []T {
	var out []T
	for _, e := range evs {
		if v, ok := e.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// tinyTestRow is a row whose arms are the fake replay (this test binary) with variants.
func tinyTestRow(baseVariant, candVariant string) *Row {
	r := TinyRow(baseVariant, candVariant)
	r.Trace = TraceSpec{Path: "generated:conversation?seed=7&requests=20", Count: 20}
	r.Replay.Args = []string{"--serving-mode", "aggregated", "--num-workers", "2"}
	return r
}

func testOptions(t *testing.T, dir string) Options {
	return Options{Dir: dir, BuiltinPath: testBinary(t), PollInterval: 20 * time.Millisecond,
		Settle: 100 * time.Millisecond, Warn: func(s string) { t.Log("warning:", s) }, Perf: PerfOptions{LoadWindow: 50 * time.Millisecond}}
}

func testBinary(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// openTest opens (or creates) a campaign of row in dir with the test options and pumps its
// events; it is closed when the test ends (closing it earlier is fine: Close is idempotent).
func openTest(t *testing.T, row *Row, dir string) (*Campaign, *eventLog) {
	t.Helper()
	c, err := OpenOrCreate(row, testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, drain(c)
}

// runDeterminism creates a campaign, runs the determinism stage to its end and closes it.
func runDeterminism(t *testing.T, row *Row, dir string) (Summary, []Event) {
	t.Helper()
	c, log := openTest(t, row, dir)
	if err := ctl(c).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	s := c.Summary()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	<-log.done
	return s, log.all()
}

func verdicts(evs []Event) map[string]string {
	m := map[string]string{}
	for _, v := range eventsOf[StageVerdict](evs) {
		m[string(v.Stage)+"/"+string(v.Arm)] = string(v.Verdict)
	}
	return m
}

func TestIdenticalArmsStableAndParityPass(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	s, evs := runDeterminism(t, tinyTestRow("", ""), dir)
	v := verdicts(evs)
	if v["determinism/baseline"] != "STABLE" || v["determinism/candidate"] != "STABLE" || v["parity/"] != "PASS" {
		t.Fatalf("verdicts %v", v)
	}
	if got := semanticExit(s); got != 0 {
		t.Fatalf("exit code %d, summary %+v", got, s)
	}
	digests := plainDigests(evs)
	if len(digests) != 4 {
		t.Fatalf("%d digests, want 4 (2 repetitions x 2 arms)", len(digests))
	}
	if n := len(eventsOf[DigestReady](evs)) - len(digests); n != 2 {
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
	var starts []RunStarted
	for _, st := range eventsOf[RunStarted](evs) {
		if st.Kind == KindRepetition {
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
	}
	if len(eventsOf[CoverageReady](evs)) != 4 {
		t.Errorf("want evidence for every repetition")
	}
	if len(eventsOf[RunProgress](evs)) == 0 {
		t.Errorf("no progress events from the side channel")
	}
	for _, f := range []string{"row.toml", "host.json", "artifacts.json", "journal.jsonl", "trace/window.jsonl", "trace/checksums.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("campaign file %s: %v", f, err)
		}
	}
}

func TestLeakRandomUUIDIsUnstableAndRefusesParityAndPerf(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	s, evs := runDeterminism(t, tinyTestRow("", "leak-random-uuid"), dir)
	v := verdicts(evs)
	if v["determinism/baseline"] != "STABLE" || v["determinism/candidate"] != "UNSTABLE" || v["parity/"] != "BLOCKED" {
		t.Fatalf("verdicts %v", v)
	}
	blocked := eventsOf[RowBlocked](evs)
	if len(blocked) == 0 || !strings.Contains(blocked[0].Reason, "candidate is UNSTABLE") {
		t.Fatalf("want a clear RowBlocked naming the unstable arm, got %v", blocked)
	}
	if semanticExit(s) != 1 {
		t.Fatalf("exit code %d, want 1 (an unstable revision fails the row)", semanticExit(s))
	}
	// Every repetition report of the unstable arm is kept for the diff.
	for _, r := range s.Arms[Candidate].Runs {
		if r.Report == "" {
			t.Errorf("%s: report of the unstable arm was deleted", r.Run)
		}
	}
	c, err := Open(dir, testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	drain(c)
	defer c.Close()
	err = c.perfAllowed()
	if err == nil || !strings.Contains(err.Error(), "candidate is UNSTABLE") {
		t.Fatalf("perf must be refused for an unstable arm, got %v", err)
	}
}

func TestSemanticVariantFailsParityAndKeepsBothReports(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	s, evs := runDeterminism(t, tinyTestRow("", "fifo-preemption"), dir)
	v := verdicts(evs)
	if v["determinism/baseline"] != "STABLE" || v["determinism/candidate"] != "STABLE" || v["parity/"] != "FAIL" {
		t.Fatalf("verdicts %v", v)
	}
	if semanticExit(s) != 1 {
		t.Fatalf("exit code %d, want 1", semanticExit(s))
	}
	for _, arm := range []Arm{Baseline, Candidate} {
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
			row := tinyTestRow("", tc.variant)
			if tc.timeout > 0 {
				row.Determinism.Timeout = Duration{tc.timeout}
			}
			dir := filepath.Join(t.TempDir(), "c")
			s, evs := runDeterminism(t, row, dir)
			v := verdicts(evs)
			if v["determinism/baseline"] != "STABLE" || v["determinism/candidate"] != "BLOCKED" || v["parity/"] != "BLOCKED" {
				t.Fatalf("verdicts %v", v)
			}
			if !strings.Contains(s.Arms[Candidate].Reason, tc.want) {
				t.Fatalf("candidate reason %q does not say %q", s.Arms[Candidate].Reason, tc.want)
			}
			if semanticExit(s) != 2 {
				t.Fatalf("exit code %d, want 2 (blocked)", semanticExit(s))
			}
			// Nothing else lost: the baseline's digests are recorded.
			for _, r := range s.Arms[Baseline].Runs {
				if r.Digest == "" {
					t.Errorf("baseline %s lost its digest", r.Run)
				}
			}
			var fin []RunFinished
			for _, f := range eventsOf[RunFinished](evs) {
				if f.Arm == Candidate && f.Kind == KindRepetition {
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
	c, log := openTest(t, tinyTestRow("", ""), dir)
	if err := ctl(c).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	if err := ctl(c).StartDeterminism(); err == nil {
		t.Fatal("a second stage started while one runs")
	}
	log.waitFor(t, "a run to start", func(evs []Event) bool { return len(eventsOf[RunStarted](evs)) > 0 })
	pid := eventsOf[RunStarted](log.all())[0].PID
	start := time.Now()
	c.StopStage()
	c.Wait()
	if time.Since(start) > 10*time.Second {
		t.Fatal("StopStage did not kill the replay")
	}
	if err := syscallKill0(pid); err == nil {
		t.Fatalf("replay %d still alive after StopStage", pid)
	}
	log.waitFor(t, "StageStopped", func(evs []Event) bool { return len(eventsOf[StageStopped](evs)) > 0 })
	stopped := eventsOf[StageStopped](log.all())
	if len(stopped) != 1 || !stopped[0].Cancelled {
		t.Fatalf("StageStopped %v", stopped)
	}
	c.Close()
}

func TestOpenRefusesADifferentRow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, _ := openTest(t, tinyTestRow("", ""), dir)
	c.Close()
	_, err := OpenOrCreate(tinyTestRow("", "fifo-preemption"), testOptions(t, dir))
	if err == nil || !strings.Contains(err.Error(), "frozen from a different row") {
		t.Fatalf("got %v", err)
	}
}

func TestTraceChecksumIsVerified(t *testing.T) {
	row := tinyTestRow("", "")
	c, err := Create(row, testOptions(t, filepath.Join(t.TempDir(), "c")))
	if err != nil {
		t.Fatal(err)
	}
	drain(c)
	c.Close()
	// For a generated trace the row's sha256 is of the window.
	row.Trace.SHA256 = c.Info().TraceSHA256
	c, err = Create(row, testOptions(t, filepath.Join(t.TempDir(), "c")))
	if err != nil {
		t.Fatalf("the window's own checksum was refused: %v", err)
	}
	drain(c)
	c.Close()
	row.Trace.SHA256 = strings.Repeat("0", 64)
	_, err = Create(row, testOptions(t, filepath.Join(t.TempDir(), "c")))
	if err == nil || !strings.Contains(err.Error(), "[trace] sha256: the generated window") {
		t.Fatalf("got %v", err)
	}
}

// plainDigests are the digests of the protocol's plain repetitions (not of perturbed ones).
func plainDigests(evs []Event) []DigestReady {
	var out []DigestReady
	for _, d := range eventsOf[DigestReady](evs) {
		if !strings.Contains(string(d.Run), "-perturbed") && !strings.Contains(string(d.Run), "-alone-") {
			out = append(out, d)
		}
	}
	return out
}
