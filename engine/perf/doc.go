// Package perf is protocol stage 7's timed pairs, the paired performance gate: checksums, the
// footprint gate, the balanced schedule, warmups, the pairs (each sample pinned to the measured
// CPU and its environment watched), stats.Analyze, in that order, resumed from the journal. It
// runs through the campaign's engine.StageHost (Start, or Run inside a started stage); the
// vocabulary (the stage, the run kinds, the records, their fold and the perf series as History
// answers, PerfResult, the events) is the core's, which the summary, the report and the
// workbench read.
//
// It imports engine for the host and that vocabulary, engine/instrument for the measures (a
// sample's monitor, telemetry and invalidation rules, its timing record, the load preflight,
// CPU isolation, the footprint gate), engine/run for the runner's affinity refusal and the
// CPUs a forced violation moves a sample to, report for a timed sample's work fingerprint,
// stats for the schedule and the analysis, verdict for the words it decides in, and
// internal/atomicfile and internal/layout for the exports and the campaign's file names.
package perf
