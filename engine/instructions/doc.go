// Package instructions is the instruction-count instrument's stage: each arm's timed region
// counted by callgrind in a predeclared number of separate processes (alternating arms, on the
// measured CPU), every count and the result journaled. It is a secondary, deterministic measure
// beside stage 7's wall-clock gate and decides nothing. It runs through the campaign's
// engine.StageHost; its vocabulary (the stage, the run kind, the records, their fold and
// History.Instructions) is the core's, which the summary, the report and the workbench read.
// Its callers start it: headless (--stage instructions and all), bisect, and the workbench's
// Controller after a watched rebuild's determinism stage (AfterDeterminism).
//
// It imports engine for the host and that vocabulary, engine/instrument for callgrind (finding
// it, its argv, reading its count) and the decision over the counts, and report for a counted
// run's work fingerprint.
package instructions
