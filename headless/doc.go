// Package headless is the run driver: it runs a row's campaign without a terminal, the stages
// one after the other, a progress line per meaningful event on stderr, and the summary on
// stdout (the shared JSON schema with --json). Its exit status is the verdict, read from
// campaignreport.Assess like every other surface. `kvparity run` and the matrix's local rows
// call Run directly (with typed Options, never argv). `kvparity investigate` calls Investigate:
// stage 7 on a campaign that has run, its findings printed.
//
// It imports driver for the shared step (driver.Run: a campaign run to its report) and its
// build printer, engine to run the campaign and read its events, engine/determinism for stages 2
// and 4, engine/fixturestage for stage 6's fixtures, engine/perf for stage 7's timed pairs, engine/instructions for the instruction count, engine/stages for the watch mode's rerun of the determinism stage after a rebuild,
// engine/investigate for stage 7's investigation (kvparity investigate), engine/run for the CPU
// sets its progress lines name, campaignreport for the verdicts (so a run says what the report
// says) and the arms' preflight words, and verdict for the document and exit statuses.
package headless
