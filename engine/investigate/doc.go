// Package investigate is protocol stage 7's investigation: each arm's replay profiled once
// under Linux perf's cpu-clock sampler on the performance stage's measured CPU, the two
// profiles compared and the .text growth attributed to symbols, kept in
// investigation/profile.json and journaled. It runs through the campaign's engine.StageHost
// (the running stage, the arms, the runner, the journal's appends, the events); its
// vocabulary (engine.Investigation, its record and its event) is the core's, which the journal
// folds and the report and workbench read.
//
// It imports engine for the host and that vocabulary, engine/profile to parse perf's samples
// and nm's symbol tables and compare them, internal/atomicfile to refuse a linked
// investigation folder, and internal/procgroup to run perf and nm in their own process groups.
package investigate
