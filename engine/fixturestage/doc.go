// Package fixturestage is protocol stage 6: the row's [fixtures] (engine/fixtures) run on each
// arm's pinned binary, one journaled process each (run kind "fixture", in runs/fixture/...),
// their lifecycles asserted and each result journaled as a fixture_result record. It runs
// through the campaign's engine.StageHost; the vocabulary (the stage, the run kind, the record,
// its fold and History.Fixtures) is the core's, which the summary and the report read. A
// fixture result never changes the campaign's verdicts.
//
// It imports engine for the host and that vocabulary, engine/arm for the process a fixture
// runs (its own trace and args, the arm kind's argv and canonical report), engine/fixtures for
// the fixtures and their runner, and internal/layout for the runs folder's name.
package fixturestage
