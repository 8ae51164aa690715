package engine

import (
	"kvparity/e2e"
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
	err = c.Host().PerfAllowed()
	if err == nil || !strings.Contains(err.Error(), "candidate is UNSTABLE") {
		t.Fatalf("perf must be refused for an unstable arm, got %v", err)
	}
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
