// Package stages is a campaign with its stages: the engine.Controller the workbench drives
// (ui's one seam), each Start method calling its stage package with the campaign as the
// stage's host. It sits above the stage packages so that the core never starts one: the core
// coordinates (the one running stage, the journal, the runner, the events), the stages do the
// work, and whoever drives a campaign (headless, the workbench through this package, a driver)
// calls the stage. A new stage (engine/doc.go's "Adding a stage") gets its Start method here
// when the workbench starts it; one that follows another is chained here too (SetWatch's rerun
// starts the determinism stage and then the instruction count after it).
//
// It imports engine for the campaign it wraps, engine/determinism for stages 2 and 4 (the
// repetitions, parity, and the rerun after a watched rebuild), engine/instructions for the
// instruction count the watch's rerun starts after that determinism stage, engine/perf for
// stage 7's timed pairs and engine/investigate for stage 7's investigation.
package stages
