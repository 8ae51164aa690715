// Package bisect is the bisect driver: it finds the first commit of a checkout's first-parent
// history that broke a row: its parity (semantic), its determinism, its speed (perf), or its
// instruction count (instructions: one callgrind count per arm, usable on a busy machine). The
// row's candidate is a git: checkout; every probed commit is built through the normal build path
// (engine.BuildArms, so a checkout's commits compile incrementally in its lineage and are cached
// by commit) and run as a campaign of its own, DIR/probe-<sha12>, whose baseline is the --good
// commit built the same way, with the row's own determinism stage (and performance stage for the
// perf judge).
//
// A probe is judged from the campaign's verdicts as every surface computes them (driver.Run:
// campaignreport.Assess, so the exception records given apply and an explained change is not bad).
// A commit that does not build, and a probe whose verdict is INCONCLUSIVE, BLOCKED or not decided,
// is skipped, never guessed, like `git bisect skip`. Every step is appended to DIR/bisect.jsonl
// (an engine/journal file of engine Records, as campaigns keep theirs) before the next starts, so
// a bisect killed mid-way resumes where it was: recorded steps are neither rebuilt nor rerun, and
// an interrupted probe's campaign resumes itself.
//
// A driver above the report (beside headless and matrix), it runs each probe's campaign to its
// report through the shared step (driver.Run) and prints its steps for people (Printer).
//
// It imports driver for the shared step and the build printer; engine for rows, campaigns, builds
// and the records; engine/determinism to run a probe's determinism stage; engine/perf to run a probe's timed pairs for the perf judge; engine/instructions to run its instruction judge's count; engine/journal for the journal file itself; engine/instrument for the instruction
// judge's count (InstructionResult) and for finding valgrind before the first probe; exceptions to
// validate the exception records copied into each probe; diffview and diffview/diagnose for the
// first divergence and the causes of the first bad commit's focused diff; verdict for the words,
// the document's schema version and the exit codes; internal/layout for the campaign's file names
// and internal/atomicfile for the copied records.
//
//	bisect.go   Options, Run: the search over the first-parent history
//	probe.go    one probe: build, campaign, judgment
//	journal.go  bisect.jsonl's records
//	printer.go  Printer: the steps and builds on stderr, as kvparity bisect prints them
//	git.go      the history and the commits' descriptions, read with git
//	result.go   Result, its text and JSON
package bisect
