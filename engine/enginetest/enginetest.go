package enginetest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kvparity/engine"
	"kvparity/engine/determinism"
	"kvparity/engine/journal"
	"kvparity/engine/replaytest"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// Main is a stage package's TestMain: the test binary plays the fake replay when a test
// started it as one, and otherwise runs the tests with its children (the runs) fakes.
func Main(m *testing.M) {
	if code, ok := replaytest.Main(); ok {
		os.Exit(code)
	}
	os.Setenv(replaytest.Env, "1")
	os.Exit(m.Run())
}

// Row is a row whose arms are the fake replay (this test binary) with variants.
func Row(baseVariant, candVariant string) *engine.Row {
	r := engine.TinyRow(baseVariant, candVariant)
	r.Trace = engine.TraceSpec{Path: "generated:conversation?seed=7&requests=20", Count: 20}
	r.Replay.Args = []string{"--serving-mode", "aggregated", "--num-workers", "2"}
	return r
}

// Options are a test campaign's options in dir: the test binary as the built-in engine, fast
// polling and settling, warnings logged.
func Options(t *testing.T, dir string) engine.Options {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return engine.Options{Dir: dir, BuiltinPath: exe, PollInterval: 20 * time.Millisecond,
		Settle: 100 * time.Millisecond, Warn: func(s string) { t.Log("warning:", s) }, Perf: engine.PerfOptions{LoadWindow: 50 * time.Millisecond}}
}

// Open opens (or creates) a campaign of row in dir with the test options and drains its
// events; it is closed when the test ends (closing it earlier is fine: Close is idempotent).
func Open(t *testing.T, row *engine.Row, dir string) (*engine.Campaign, *Log) {
	t.Helper()
	c, err := engine.OpenOrCreate(row, Options(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, Drain(c)
}

// A Log holds a campaign's events, drained in the background as the UI does.
type Log struct {
	mu   sync.Mutex
	evs  []engine.Event
	Done chan struct{} // closed when the campaign closed its channel
}

// Drain starts draining c's events.
func Drain(c *engine.Campaign) *Log {
	l := &Log{Done: make(chan struct{})}
	go func() {
		defer close(l.Done)
		for ev := range c.Events() {
			l.mu.Lock()
			l.evs = append(l.evs, ev)
			l.mu.Unlock()
		}
	}()
	return l
}

// All is every event so far.
func (l *Log) All() []engine.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.evs)
}

// WaitFor polls until pred holds over the events so far.
func (l *Log) WaitFor(t *testing.T, what string, pred func([]engine.Event) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if pred(l.All()) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; events: %v", what, l.All())
}

// EventsOf are the events of type T, in order.
func EventsOf[T engine.Event](evs []engine.Event) []T {
	var out []T
	for _, e := range evs {
		if v, ok := e.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// RunDeterminism creates a campaign in dir, runs the determinism stage to its end and closes it.
func RunDeterminism(t *testing.T, row *engine.Row, dir string) (engine.Summary, []engine.Event) {
	t.Helper()
	c, log := Open(t, row, dir)
	if err := determinism.Start(c.Host()); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	s := c.Summary()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	<-log.Done
	return s, log.All()
}

// Verdicts are the stage verdicts published, by "stage/arm" ("parity/" for parity).
func Verdicts(evs []engine.Event) map[string]string {
	m := map[string]string{}
	for _, v := range EventsOf[engine.StageVerdict](evs) {
		m[string(v.Stage)+"/"+string(v.Arm)] = string(v.Verdict)
	}
	return m
}

// PlainDigests are the plain repetitions' digests (not the perturbed ones').
func PlainDigests(evs []engine.Event) []engine.DigestReady {
	var out []engine.DigestReady
	for _, d := range EventsOf[engine.DigestReady](evs) {
		if !strings.Contains(string(d.Run), "-perturbed") && !strings.Contains(string(d.Run), "-alone-") {
			out = append(out, d)
		}
	}
	return out
}

// SemanticExit is the exit status of `kvparity run --stage determinism` for a summary's
// campaign (no exception records in engine tests): stage 8's rules over the folded journal.
func SemanticExit(s engine.Summary) int {
	recs, _, err := journal.Read[engine.Record](filepath.Join(s.Dir, layout.FileJournal), journal.RefuseDamage)
	if err != nil {
		return -1
	}
	row, err := engine.LoadRow(filepath.Join(s.Dir, layout.FileRow))
	if err != nil {
		return -1
	}
	in := engine.FoldJournal(recs, row).Inputs(s.Dir)
	in.SemanticOnly = true
	return verdict.Decide(in).ExitCode
}
