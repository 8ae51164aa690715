// Package campaignreport writes a campaign's final report (protocol stage 8), the matrix report
// over several rows' campaigns, and cleans a campaign up (stage 9).
//
// Everything is read from what the campaign recorded: the journal, the frozen row, host.json,
// artifacts.json, trace/checksums.json, the lifecycle evidence files, exceptions.jsonl and the
// focused diffs. Nothing is measured again and no clock is read, so `kvparity report DIR` on a
// finished campaign reproduces the same bytes, before and after `kvparity clean DIR`.
//
// It never opens the campaign with engine.Open: that re-verifies the pinned binaries and the
// trace window, which stage 9 deletes once their checksums are recorded.
//
// It imports engine for what the campaign recorded, engine/journal to read the journal once
// (refusing damage), engine/matrix for the matrix report's rows, engine/instrument for the footprint
// gate's figures, engine/fixtures for stage 6's fixture results, engine/run for the CPU sets and
// NUMA nodes the report names and the campaign lock clean takes, diffview for the focused diff,
// diffview/diagnose for its diagnosis (diffs/*.json as kvparity diff --json writes it),
// exceptions for the exception records and their coverage, stats for the perf figures, report
// for the lifecycle evidence and product metrics, verdict for Decide, internal/layout for the
// campaign's file names and internal/atomicfile to write the reports.
//
// # Layout
//
//	model.go      report.json's types
//	load.go       the campaign's files, read and checked, naming the file on error; the journal
//	              read by engine/journal (refusing damage) and folded by engine.FoldJournal (the engine's own rules, no copy of them here)
//	semantic.go   the semantic verdict: parity, lifecycle rules, focused diffs, exception records
//	diff_semantic.go  kvparity diff --campaign's semantic section: the campaign's verdict as its
//	              report states it, or a diff's own against a folder's exception records
//	statements.go skipped or unsupported coverage, stated plainly
//	build.go      the Report assembled from the folded journal
//	instructions.go  the instruction counts the report states: the campaign's own, else those of
//	              the campaign nested in it (DIR/instructions: a Slurm matrix's job of their own)
//	              when it counted the same artifacts, trace window and frozen row
//	markdown.go, markdown_sections.go   report.md
//	mdsafe.go     how a value from outside (row file, exception records, journal, replay output)
//	              is written into report.md, summary.md and matrix.md: escaped or fenced for where
//	              it lands, so that a document pasted into a pull request runs, links, shows and
//	              mentions nothing of a value's making (hostile_test.go renders them with GFM)
//	plot.go       unicode sparklines, bars, pressure over virtual time
//	write.go      Write / WriteReport / Build: report.md, report.json (and diffs/*.json)
//	matrix.go     BuildMatrixReport / WriteMatrixReport: matrix.json and matrix.md from the
//	              rows' statuses (the matrix driver hands its writer to engine/matrix's Options.Report)
//	clean.go      Clean: the stage-9 policy, the plan and its execution
//	clean_text.go the plan printed for people
package campaignreport
