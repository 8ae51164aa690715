// Package engine runs parity campaigns: frozen rows, pinned artifacts and trace windows, the
// process runner with CPU pinning, the determinism and performance stages, the crash-safe
// journal, and artifact watching. It publishes typed events on a channel and never imports
// the UI.
//
// # Layout
//
//	row.go, row_default.go   Row TOML (DESIGN), validation naming the key, DefaultRow, TinyRow
//	campaign.go              Campaign: Create / Open / OpenOrCreate, Options, the stage slot
//	lock.go, owner.go        campaign.lock: one writer at a time, naming its holder (pid + start time)
//	follow.go                Open with Follow: a campaign another kvparity writes, followed live, read-only
//	row_frozen.go            the founding record's row checksum: an edited row.toml is refused
//	stage_records.go         stage_start / stage_end records: what ran, and why it stopped
//	artifact.go, repin.go    artifacts/ + artifacts.json, generations, VerifyPinned, stale sources
//	trace.go                 trace/window.jsonl + trace/checksums.json
//	journal.go               journal.jsonl: CRC32C per line, fsync per record, torn tail dropped
//	journal_tail.go          JournalTail: a reader that follows a journal without writing it
//	runner.go, tail.go       one replay process: argv, Setpgid, pinning, timeout, stderr, progress
//	cpus.go, host.go, numa.go CPU lists, host.json, each NUMA node's CPUs (host.json, placements)
//	patch.go                 the row's declared determinism patch (stage 1.3): copied, hashed, journaled
//	files.go                 fsync'd atomic writes, JSON files with errors naming file and offset
//	determinism.go           stage 2 + parity: repetitions, verdicts, report retention
//	outputs.go               a repetition's canonical report -> digest, fixed point, evidence
//	fold.go                  FoldJournal: the one reading of the journal (Open, Summary, the report)
//	summary.go               the folded journal as per-arm verdicts (headless output)
//	history.go               the journal replayed as events on Open
//	cleaned.go               a campaign cleaned by stage 9 opens read-only (errCleaned)
//	watch.go                 fsnotify + settle debounce -> stale, re-pin, rerun
//	stage_perf.go            StartPerf and perfAllowed (perf*.go run the stage: runPerf)
//
// # Adding a stage
//
// A stage is a function run on the campaign's single stage goroutine:
//
//  1. Start it through c.startStage(StageX, func(ctx) (cancelled bool)) from an exported
//     Start method (the stage itself may live in other files of this package, as runPerf
//     that StartPerf calls). Only one stage runs at a time; StopStage cancels ctx.
//  2. Call c.prepareArms() first (re-pins a rebuilt source, re-verifies every pinned copy and
//     the trace window): a binary is never reused after its source changed.
//  3. Build each process with c.RunSpec(id, arm, kind, index, attempt, canonical), set CPUs,
//     and run it with c.Runner().Run(ctx, spec, started). In started, Append a RecRunStart
//     record and only then Emit RunStarted; after the run, Append a RecRunEnd and then Emit.
//     Record first, publish second: the UI never shows what the journal does not hold.
//  4. Resume from the journal: fold c.Journal().Records() (FoldJournal gives pins, attempts,
//     verdicts on the current artifacts and the perf series) to find finished work (a run_start
//     without a run_end died in flight and is rerun as attempt+1; never rerun a finished one).
//     Stage-specific payloads go in Record.Data or new fields; register a RecordReplayers
//     entry so a reopened campaign re-publishes the stage's events.
//  5. A failing Append is a full disk: stop the stage (c.block) and keep what is recorded.
//     A failing replay is a product failure recorded in its run_end, never retried silently.
//  6. Decide with c.verdict(stage, arm, verdict, reason) in the DESIGN's verdict words;
//     Summary picks up the cross-arm verdicts recorded after the current pins, by stage, and
//     ExitCode maps them.
package engine
