package engine

import (
	"fmt"
	"strings"

	"kvparity/engine/fixtures"
)

// Protocol stage 6 (engine/fixtures): the row's [fixtures] run on each arm's pinned binary,
// one process each, their lifecycles asserted. This file is the stage's vocabulary and fold
// (engine/fixturestage runs it): a fixture's process is a run like any of the campaign
// (journaled run_start/run_end of kind "fixture", in runs/fixture/...), and each result is a
// fixture_result record that History.Fixtures, the summary (--json) and the report read. A fixture result never changes
// the campaign's verdicts; `kvparity run --stage fixtures` exits with the fixtures' worst.

// StageFixtures is stage 6's stage (events and journal).
const StageFixtures Stage = "fixtures"

// KindFixture is one fixture's replay.
const KindFixture RunKind = "fixture"

// RecFixture records one fixture's result on one arm's artifact (Data: fixtures.Result).
const RecFixture RecordType = "fixture_result"

// FixtureDone: a fixture was judged on one arm (live, or replayed on open).
type FixtureDone struct{ Result fixtures.Result }

func (FixtureDone) event() {}

// fixtureState is the journal's view of the stage: the latest result per fixture, arm and
// generation.
type fixtureState struct {
	results map[fixtureKey]fixtures.Result
}

type fixtureKey struct {
	name string
	arm  Arm
	gen  int
}

func fixtureResults(h *History) *fixtureState {
	s := kindState[fixtureState](h, RecFixture)
	if s.results == nil {
		s.results = map[fixtureKey]fixtures.Result{}
	}
	return s
}

func init() {
	defineRecord(RecFixture, func(h *History, r *Record, d *fixtures.Result) {
		fixtureResults(h).results[fixtureKey{d.Fixture, Arm(d.Arm), d.Gen}] = *d
	}, func(c *Campaign, h *History, r *Record, d *fixtures.Result) {
		c.emit(FixtureDone{Result: *d})
	})
}

// Fixtures are the results of the row's fixtures on the current artifacts, in the row's order
// and baseline first (nil when the row declares none or none ran yet).
func (h *History) Fixtures() []fixtures.Result {
	if h.row == nil || len(h.row.Fixtures.Names) == 0 {
		return nil
	}
	st := fixtureResults(h)
	var out []fixtures.Result
	for _, name := range h.row.Fixtures.Names {
		for _, arm := range []Arm{Baseline, Candidate} {
			if r, ok := st.results[fixtureKey{name, arm, max(h.Current[arm].Gen, 1)}]; ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// FixtureJudged says whether a fixture's result on an arm's artifact of generation gen is
// recorded (the fixtures stage never reruns it).
func (h *History) FixtureJudged(name string, arm Arm, gen int) bool {
	_, ok := fixtureResults(h).results[fixtureKey{name, arm, gen}]
	return ok
}

// validate checks the row's [fixtures] names (unknown or repeated names name the file and key).
func (s FixturesSpec) validate(file string) error {
	seen := map[string]bool{}
	for i, n := range s.Names {
		key := fmt.Sprintf("names[%d]", i)
		if _, ok := fixtures.Lookup(n); !ok {
			return &RowError{File: file, Table: "fixtures", Key: key, Msg: fmt.Sprintf("%q is not a stage-6 fixture (known: %s)", n, strings.Join(fixtures.Names(), ", "))}
		}
		if seen[n] {
			return &RowError{File: file, Table: "fixtures", Key: key, Msg: fmt.Sprintf("%q is named twice", n)}
		}
		seen[n] = true
	}
	return nil
}
