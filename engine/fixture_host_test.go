package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/engine/fixtures"
	"kvparity/verdict"
)

// Stage 6 on the embedded engine: every fixture runs once per arm as its own journaled
// process, asserts its lifecycle, is journaled, and is never rerun on the same artifacts.
func TestFixturesStageOnTheEmbeddedEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kvparity and replays the fixtures with the embedded engine")
	}
	row := tinyTestRow("", "")
	row.Fixtures.Names = fixtures.Names()
	c, log := openWithEmbeddedEngine(t, row)
	dir := c.Dir()
	if err := c.StartFixtures(); err != nil {
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
	if ev := c.History().coverage(dir); ev.Verdict == verdict.Fail {
		t.Errorf("coverage with every fixture asserted: %+v", ev)
	}
	runs := len(c.History().runs)
	if err := c.StartFixtures(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if n := len(c.History().runs); n != runs {
		t.Errorf("a second stage reran fixtures already judged: %d runs, then %d", runs, n)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	<-log.done
	done := 0
	for _, ev := range log.all() {
		if _, ok := ev.(FixtureDone); ok {
			done++
		}
	}
	if done != 2*len(fixtures.Names()) {
		t.Errorf("%d FixtureDone events", done)
	}
	// Reopened, the journal folds to the same results.
	c2, err := OpenOrCreate(row, testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if got := c2.Summary().Fixtures; len(got) != len(s.Fixtures) {
		t.Errorf("reopened: %d results", len(got))
	}
}

func TestRowFixturesAreValidated(t *testing.T) {
	base := strings.Replace(designRow, "[canonical]", "[fixtures]\nnames = %s\n\n[canonical]", 1)
	for _, c := range []struct{ names, err string }{
		{`["router-queue", "scale-to-zero"]`, ""},
		{`["router-queue", "queue"]`, `row.toml: [fixtures] names[1]: "queue" is not a stage-6 fixture (known: router-queue, preemption-edge, handoff-vllm, handoff-sglang, scale-to-zero)`},
		{`["handoff-vllm", "handoff-vllm"]`, `row.toml: [fixtures] names[1]: "handoff-vllm" is named twice`},
	} {
		_, err := ParseRow([]byte(strings.Replace(base, "%s", c.names, 1)), "row.toml")
		if (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("%s: %v, want %q", c.names, err, c.err)
		}
	}
	if _, err := ParseRow([]byte(strings.Replace(designRow, "[canonical]", "[fixtures]\nnamez = []\n\n[canonical]", 1)), "row.toml"); err == nil || !strings.Contains(err.Error(), "namez") {
		t.Errorf("unknown key: %v", err)
	}
}

// A failed stage-6 fixture is missing lifecycle evidence: the semantic verdict's coverage
// fails naming the fixture and the arm; a refused one decides nothing.
func TestFailedFixtureIsMissingLifecycleEvidence(t *testing.T) {
	row := TinyRow("", "")
	row.Fixtures.Names = []string{"router-queue", "scale-to-zero"}
	rec := func(f fixtures.Result) Record {
		return Record{Type: recFixture, Stage: StageFixtures, Arm: Arm(f.Arm), Gen: 1, Data: marshalData(f)}
	}
	h := FoldJournal([]Record{
		rec(fixtures.Result{Fixture: "router-queue", Arm: "candidate", Gen: 1, Verdict: verdict.Fail, Reason: "0 of 9 queued placements released"}),
		rec(fixtures.Result{Fixture: "scale-to-zero", Arm: "candidate", Gen: 1, Verdict: verdict.Blocked, Reason: "unsupported"}),
	}, row)
	ev := h.coverage(t.TempDir())
	if ev.Verdict != verdict.Fail || ev.Reason != "candidate stage-6 fixture router-queue: 0 of 9 queued placements released" {
		t.Fatalf("coverage = %+v", ev)
	}
}
