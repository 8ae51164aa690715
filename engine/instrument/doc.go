// Package instrument holds the performance stage's instruments (protocol stage 7): what watches a
// sample while it runs and judges its environment, what reads its timing record, what keeps the
// measured CPU quiet, and the footprint gate. The stage itself (its schedule, warmups and pairs,
// their records, resume and the gate's verdict) is engine's: it is bound to the campaign's
// journal, events and verdicts, and it calls these.
//
// Only predeclared conditions may invalidate a pair: the sample's CPU affinity read back from
// /proc changed, competing load ran on the measured CPU, or a telemetry throttle counter rose
// (Invalidity). Everything else that goes wrong with a sample is a product failure, and a
// timing record that cannot be used is a TimingFault, never a discarded sample.
//
// A desk machine runs other work on the measured CPU; the invalidation rule then throws pairs
// away until the machine is quiet. Two aids, neither changing that rule:
//
//   - the load preflight (MeasureLoad, LoadCheck) measures, for a few seconds before the first
//     warmup, how busy the measured CPU is with other work, and says what to expect;
//   - CPU isolation (IsolateCPU; `kvparity run --isolate`, root only) moves every other process
//     of the machine off the measured CPU for the stage, as `cset shield` does: a cpuset cgroup
//     holding every CPU but the measured one receives all processes except kvparity and its
//     descendants, and Undo moves them back when the stage ends (or, after a killed kvparity,
//     when the campaign is opened again, from what the journal recorded).
//
// It knows nothing of rows, arms, the journal or the campaign. It imports engine/run for CPU
// sets and /proc reading, and verdict for the footprint gate's words.
//
// # Layout
//
//	monitor.go     Monitor: a running sample's affinity read back and its CPU's competing load
//	sample_env.go  SampleEnv, the evidence of one sample, and Invalidity, the predeclared rules
//	telemetry.go   /proc/stat ticks and /sys telemetry (frequency, temperatures, throttling)
//	affinity.go    SelfPlacement: kvparity's own threads kept off the measured CPU
//	timing.go      ReadTiming: a sample's timing record, TimingFault when it cannot be used
//	load.go        the load preflight: MeasureLoad, LoadCheck and what it means for the stage
//	isolation.go   IsolateCPU and Isolation.Undo: the measured CPU shielded by a cpuset
//	footprint.go   DecideFootprint: the binary and .text growth gate
//	instructions.go  Valgrind, ReadInstructionCount, DecideInstructions: callgrind's count of
//	               the timed region, a secondary and deterministic measure that decides nothing
package instrument
