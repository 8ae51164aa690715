// Package enginetest opens campaigns for the tests of engine's stage packages and of the
// packages above them: a tiny row whose arms are the fake replay (engine/replaytest, the test
// binary itself), test options (fast polling and settling), and a log that drains a campaign's
// events as the workbench does. engine's own tests keep theirs: they cannot import a package
// that imports engine.
//
// It imports engine for the campaigns it opens, engine/replaytest for the fake replay a test
// binary plays, engine/determinism to run the determinism stage a later stage needs first, and
// engine/journal, internal/layout and verdict to decide a campaign's semantic exit status from
// its journal as stage 8 does.
package enginetest
