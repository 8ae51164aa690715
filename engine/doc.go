// Package engine runs parity campaigns: frozen rows, pinned artifacts and trace windows, the
// process runner with CPU pinning, the crash-safe journal and its one fold, artifact watching,
// the one running stage and the host its stage packages reach it through (StageHost: the
// determinism stage is engine/determinism, the investigation engine/investigate, the fixtures
// engine/fixturestage, the performance stage's timed pairs engine/perf, the instruction count
// engine/instructions). It publishes typed events on a channel and
// never imports the UI, and it returns values: the words for people are headless's and campaignreport's.
//
// It imports engine/arm for each arm's kind (how its table is checked, its artifact built and
// pinned, the argv of its runs, their outputs and its footprint), engine/build to build the
// arms that name a source, engine/journal for the journal file
// its records live in (checksummed lines, the torn tail, the follower), engine/run to run every
// replay process (CPU sets, process groups, reaping) and to hold the campaign lock, engine/instrument for
// the performance stage's records its fold decodes (a sample's environment, the load preflight,
// CPU isolation, the footprint gate; engine/perf measures them) and the instruction count, engine/profile to read stage 7's
// profiles, engine/fixtures for stage 6's fixtures (traces, flags, lifecycle assertions; fixture_host.go folds their results, engine/fixturestage runs them), report to canonicalise a run's report and read its evidence and the trace, stats for
// the performance gate, verdict for the words every stage decides in, and internal/atomicfile,
// internal/digest, internal/layout, internal/pointer and internal/procgroup for atomic files,
// checksums, the campaign's file names, JSON pointers and process groups.
//
// # Layout
//
//	row.go, row_default.go   Row TOML (the guide's "The row file"), validation naming the key, DefaultRow, TinyRow
//	campaign.go              Campaign: Create / Open / OpenOrCreate, Options, the stage slot; what
//	                         it coordinates (the one running stage, the journal, the runner, the
//	                         events, the arms, the watch) and nothing a stage does
//	follow.go                Open with Follow: a campaign another kvparity writes, followed live, read-only
//	follow_ended.go          what a follower saw of its writer's end: its runs with no end record, still running or not
//	row_frozen.go            the founding record's row checksum: an edited row.toml is refused
//	stage_records.go         stage_start / stage_end records: what ran, and why it stopped
//	arms.go, repin.go        the campaign's arms: every pinned generation and the current one, the
//	                         repetitions added, a pinned copy re-verified, a changed source
//	                         marked stale and pinned again (the arms type, its own lock)
//	artifact.go              artifacts/ + artifacts.json: copying and hashing a pinned artifact
//	arm_kind.go, arm_build.go  each arm's kind (engine/arm); building the arms that name a source
//	trace.go                 trace/window.jsonl + trace/checksums.json
//	journal.go               journal.jsonl's Record and its core types; the file itself (CRC32C
//	                         per line, fsync per record, torn tail dropped, journal.Read with its
//	                         TailMode, journal.Tail following) is engine/journal's
//	records.go               record definitions: each type's payload, fold and replay; the core's
//	runspec.go               a run of an arm (RunSpec): engine/run's process and what the journal
//	                         records of it; the host's RecordedRun (run_start first) and EmitEnd
//	host.go                  host.json (CPUs and NUMA nodes from engine/run)
//	patch.go                 the row's declared determinism patch (stage 1.3): copied, hashed, journaled
//	files.go                 fsync'd atomic writes, JSON files with errors naming file and offset
//	determinism.go           stages 2 and 4's vocabulary and fold: ArmResult, the repetitions'
//	                         judgement, parity, verdict records (engine/determinism runs them)
//	outputs.go               a repetition's canonical report -> digest, fixed point, evidence
//	                         (the host's ReadRepetition)
//	history.go               History (FoldJournal): the one reader of records and its queries
//	progress.go              History's progress of the current phase (the matrix's live rows)
//	summary.go               the folded journal as per-arm verdicts (headless output)
//	replay.go                the journal replayed as events on Open (each definition's replay)
//	cleaned.go               a campaign cleaned by stage 9 opens read-only (errCleaned)
//	watch.go                 fsnotify + settle debounce -> stale, re-pin, rerun
//	stage_perf.go            the host's PerfAllowed; perf*.go are stage 7's vocabulary and fold: its records,
//	                         samples, pairs, result, events, the series as History answers
//	                         (perf_series.go; engine/perf runs the stage)
//	instructions.go          the instruction count's vocabulary: its stage, run kind, records and
//	                         fold (engine/instructions counts; a secondary measure deciding nothing)
//	investigation.go         stage 7's vocabulary: its stage, run kind, record, document and event
//	                         (engine/investigate runs it)
//	fixture_host.go          stage 6's vocabulary: its stage, run kind, record and fold
//	                         (engine/fixturestage runs it)
//	stage_host.go            StageHost: the campaign as a stage package sees it (Campaign.Host);
//	                         what only stages use is the host's (campaignHost), not Campaign's
//
// # Adding a stage
//
// A stage is a package of its own under engine/ (engine/investigate is one), a function of the
// campaign's StageHost (Campaign.Host): the core never imports it, and it registers nothing
// into the core. stage_recipe_test.go follows these steps with a tiny stage.
//
//  1. Name its vocabulary in the core, in one file of its own (investigation.go): its Stage,
//     its RunKind, its record kinds (below), the documents and events it publishes. That is
//     what the journal folds and the report and the workbench read; the work is the package's.
//  2. Export Start(h engine.StageHost, ...) error from the package, calling
//     h.Start(stage, func(ctx) (cancelled bool)): fn runs on the campaign's single stage
//     goroutine (only one stage runs at a time; StopStage cancels ctx), journaled and announced.
//  3. Call h.PrepareArms() first (re-pins a rebuilt source, re-verifies every pinned copy and
//     the trace window): a binary is never reused after its source changed.
//  4. Build each process with h.RunSpec(id, arm, kind, index, attempt, canonical), set its
//     CPUs, and run it with h.RecordedRun(ctx, spec, base, started): it journals base as the
//     run_start and only then emits RunStarted. After the run, h.Append(engine.EndRecord(base,
//     res)) and then h.EmitEnd. Record first, publish second: the UI never shows what the
//     journal does not hold.
//  5. Resume from the journal: ask h.History() (pins, attempts, NextAttempt, verdicts on the
//     current artifacts, Runs) for finished work (a run_start without a run_end died in flight
//     and is rerun as attempt+1; never rerun a finished one).
//  6. A failing Append is a full disk: stop the stage (h.Block) and keep what is recorded. A
//     failing replay is a product failure recorded in its run_end, never retried silently.
//  7. Decide with h.Verdict(stage, arm, verdict, reason) in package verdict's words; Summary
//     picks up the cross-arm verdicts recorded after the current pins, by stage, and ExitCode
//     maps them.
//  8. Let its callers start it with the campaign as its host: headless, the workbench's
//     Controller (engine/stages, one method calling Start with c.Host()), a driver. A stage
//     that follows another is chained by its caller (engine/stages' watch rerun starts
//     engine/determinism, then engine/instructions' AfterDeterminism), never by a hook in the
//     core. Give the package its room and arrows in imports_test.go and say why in its doc.go.
//  9. Test it in its own package: TestMain is enginetest.Main (the test binary plays the fake
//     replay of engine/replaytest); enginetest.Open a campaign of enginetest.Row, start the
//     stage, and read back what the fold and the events say.
//
// engine/perf follows these steps too, with its own samples run on h.Runner() (their start is
// journaled from the runner's callback) and the series asked of History (perf_series.go). A
// stage that follows another (engine/instructions' count after a watched rebuild's determinism
// stage) is chained by its caller (engine/stages' rerun), never by a hook in the core.
//
// # Adding a record kind
//
// A record kind is one file, the stage's own (as preflight.go, patch.go, perf_isolate.go):
//
//  1. Name it: const recX RecordType = "x" (a new word: the journal is read by older and newer
//     kvparity alike, and a reader skips a type it does not know).
//  2. Give its payload one Go type, written with Data: MarshalData(X{...}); a record without a
//     payload uses Record's own fields. Never reuse another kind's type for a different
//     meaning, and never change a field's JSON name: old journals must still fold.
//  3. Define it in an init func of that file: defineRecord(recX, fold, replay) with a payload,
//     definePlainRecord(recX, fold, replay) without one, or defineRunData(RecRunEnd, kinds,
//     fold) for the payload of a stage's run records. fold keeps what the record says in
//     kindState[S](h, recX), S being the file's own state type, and the file's query methods
//     on *History answer from it (readers never see records or payloads, only History's
//     answers); replay emits the events a reopened campaign re-publishes. History.Add decodes
//     the payload once (DecodePayload) and passes it typed to both; neither runs when it does
//     not decode. perf_isolate.go's load preflight (History.LoadCheck) is an example.
//  4. Test the fold and replay in the stage's test file (FoldJournal over hand-made records).
package engine
