// Package consistency holds the end-to-end checks that every surface of a campaign — the exit
// status, run --json, report.json, report.md, the workbench header, diff --campaign and
// matrix.json — says the same verdict. They run every shipped row's campaign in several states,
// minutes of replays: the rows are split in two halves (Half), this package's tests running one
// and e2e/consistency/otherrows the other, so each gets go test's per-package time.
//
// Its non-test code is the check both halves share (OneVerdictEverywhere and the readers of each
// surface), so it imports what the surfaces are made of: e2e to build and run kvparity;
// campaignreport for Assess (the report's verdicts) and the matrix document; diffview/diagnose
// for diff --campaign's JSON; engine for rows, journal records and opening a campaign;
// engine/stages and ui to drive the real workbench model and read its header; exceptions for
// the records that cover fifo-preemption; internal/layout for the campaign's file names;
// verdict for the words; bubbletea and x/ansi to feed that model and strip its colours.
package consistency
