// Package headless runs a row's campaign without a terminal: the stages one after the other,
// a progress line per meaningful event on stderr, and the summary on stdout (the shared JSON
// schema with --json). Its exit status is the verdict, read from campaignreport.Assess like
// every other surface. `kvparity run` and the matrix's local rows call Run directly.
// `kvparity qualify` calls Qualify: stage 3's capacity search in a campaign of the row, its
// probes printed as they end, its result and the frozen row written into the campaign.
//
// It imports engine to run the campaign and read its events, engine/determinism for stages 2
// and 4, engine/stages for the watch mode's rerun of the determinism stage after a rebuild,
// engine/investigate for stage 7's investigation (kvparity investigate), engine/qualify for stage 3's search, engine/run for the CPU sets its progress lines name, campaignreport for the verdicts
// (so a run says what the report says), verdict for the document and exit statuses, and
// internal/atomicfile and internal/layout to write the qualification's files under their names.
package headless
