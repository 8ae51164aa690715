package fixturestage_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/e2e"
	"kvparity/engine"
	"kvparity/engine/enginetest"
	"kvparity/engine/fixtures"
	"kvparity/engine/fixturestage"
	"kvparity/verdict"
)

func TestMain(m *testing.M) { enginetest.Main(m) }

// Stage 6 on the embedded engine: every fixture runs once per arm as its own journaled
// process, asserts its lifecycle, is journaled, and is never rerun on the same artifacts.
func TestFixturesStageOnTheEmbeddedEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kvparity and replays the fixtures with the embedded engine")
	}
	row := enginetest.Row("", "")
	row.Fixtures.Names = fixtures.Names()
	opts := enginetest.Options(t, filepath.Join(t.TempDir(), "c"))
	opts.BuiltinPath = e2e.Binary(t)
	c, err := engine.OpenOrCreate(row, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	log := enginetest.Drain(c)
	dir := c.Dir()
	if err := fixturestage.Start(c.Host()); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	s := c.Summary()
	if len(s.Fixtures) != 2*len(fixtures.Names()) {
		t.Fatalf("%d results: %+v", len(s.Fixtures), s.Fixtures)
	}
	for _, r := range s.Fixtures {
		if r.Verdict != verdict.Pass || r.Status != fixtures.StatusAsserted || len(r.Facts) < 5 || r.Gen != 1 {
			t.Errorf("%s on the %s: %s %s %s", r.Fixture, r.Arm, r.Verdict, r.Status, r.Reason)
		}
		if _, err := os.Stat(filepath.Join(dir, r.Report)); err != nil || !strings.HasPrefix(r.Run, "fixture/"+r.Fixture+"/") {
			t.Errorf("%s: run %s, report %s: %v", r.Fixture, r.Run, r.Report, err)
		}
	}
	if ev := c.History().Inputs(dir).Evidence; ev.Verdict == verdict.Fail {
		t.Errorf("coverage with every fixture asserted: %+v", ev)
	}
	runs := len(c.History().Runs())
	if err := fixturestage.Start(c.Host()); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if n := len(c.History().Runs()); n != runs {
		t.Errorf("a second stage reran fixtures already judged: %d runs, then %d", runs, n)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	<-log.Done
	done := 0
	for _, ev := range log.All() {
		if _, ok := ev.(engine.FixtureDone); ok {
			done++
		}
	}
	if done != 2*len(fixtures.Names()) {
		t.Errorf("%d FixtureDone events", done)
	}
	// Reopened, the journal folds to the same results.
	c2, err := engine.OpenOrCreate(row, enginetest.Options(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if got := c2.Summary().Fixtures; len(got) != len(s.Fixtures) {
		t.Errorf("reopened: %d results", len(got))
	}
}
