// Package corpus makes and scores the diagnosis corpus (issue 15): pairs of canonical replay
// reports (schema dynamo.offline-replay.v1) whose difference has a known cause, so that the
// first divergence (package diffview) and the diagnosis (package diffview/diagnose) can be
// measured, family by family. It imports diffview/diagnose for the diagnosed diff it scores,
// report to canonicalise the reports it mutates and internal/pointer to name the fields it
// edits.
//
// # Cases
//
// A base is a real canonical report (the embedded engine's, or Dynamo's). A mutator copies it
// into B, and sometimes changes A and B alike first (a tie both runs have, a wall-clock field
// both runs leak), then makes one known difference. Reports are decoded with number literals
// kept verbatim and written back canonically: object keys in byte order, no spaces, one line,
// strings as serde_json writes them, an untouched number spelled as it was, a new f64 as
// serde_json spells it (num). Families, each with several variants:
//
//	tie-order            equal-time events in another order: pressure records rotated (their
//	                     ordinals renumbered, references following), ordinal uuids handed out
//	                     in another order among same-time arrivals, workers swapped between
//	                     decisions entering the router queue at one time, only the KV digest
//	child-before-parent  the KV digest differs with counts equal and a parent-order or orphan
//	                     counter above 0; or the index lost the chain, so a later decision on
//	                     the same worker sees less overlap (reports carry no parent links)
//	id-drift             request uuids renamed by a bijection (random UUIDv4, all or some;
//	                     an ordinal counter started elsewhere), references following; a pool's
//	                     workers or the dp ranks relabelled (truth: tie-order, a placement tie)
//	wall-clock           epoch readings in a field both runs write; a slowly growing offset on
//	                     completion times; wall-measured microseconds in queue waits;
//	                     throughput over a wall duration; a wall value in duration_ms
//	float-noise          1-64 ULP in summary means, per-request durations and timestamps
//	constant-quantum     timestamps after t0 moved by whole multiples of 0.123076 ms or of one
//	                     decode pass, derived durations following
//	decision-cascade     one decision flipped at t (at the arrival, the hand-off, the queue; a
//	                     preemption victim) and what follows moved, some with last-digit noise
//	configuration        a /metadata value differs, alone or with the cascade it causes
//	mixed                two causes at once: the truth names the primary and the secondary
//	number-spelling      numbers spelled another way (4.0 as 4, 64 as 64.0, 1000.0 as 1e3) and
//	                     nothing else: equal values, but canonical bytes keep literals verbatim,
//	                     so the digests differ and the diagnosis must say number-spelling
//	negative-control     nothing differs: byte-identical, re-encoded, only the excluded
//	                     /summary timing fields differ; the truth says "equal"
//	release              over a real run of Dynamo's release replay (releaseBase: its
//	                     --report-jsonl records, no routing history, pressure or metadata; only
//	                     this family's mutators apply to it): a placement tie of equal outcome,
//	                     a field added to every record or renamed (schema-change), the records
//	                     written in another order (equal), uuids drawn anew
//	release-pair         no mutation: two real release replays (releaseReplays draws the runs,
//	                     the caller replays them, releasePairs pairs them): a version against
//	                     itself and 1.3.1 against 1.4.0, both topologies and both routers; the
//	                     truth is read off the runs (records paired by arrival and input
//	                     length, one side's members passed over, the earliest differing
//	                     history value names the cause: a placement both runs made at that
//	                     instant a cascade or a tie, a moved time the timing model's; a
//	                     whole run's workers under other names a tie, the uuids' id-drift
//	                     beside it a secondary)
//	release-real         no mutation, no replay: the real pairs of issue 41, committed in
//	                     testdata/real (real_corpus.go): scripts/release-pairs.py's 26 pairs
//	                     and its 18 held-out ones (ai-dynamo 1.3.1 and 1.4.0; aggregated and
//	                     disaggregated, KV router and round robin, vLLM, SGLang and TRT-LLM,
//	                     two traces; a version against itself and 1.3.1 against 1.4.0), each
//	                     run's records reduced to the fewest requests at which every pair of
//	                     its configuration reads its full pair's truth and diagnosis; the truth
//	                     is release-pair's with the causes beside it named too (placement ties:
//	                     a request on another worker with every other value equal; one
//	                     version's record members; the random uuids)
//	version-triangle     no mutation: canonical reports of published offline_replay_bench
//	                     1.4.2, 1.5.1 and 1.6.1 on one trace and arguments (diffview/testdata's
//	                     reduced reports), each edge a case: the timing model's moved times
//	                     before the first differing decision, the cascade after it, the version
//	                     change, and the records' new fields from 1.4.x
//
// # Truth
//
// Every case carries its truth: family, variant, what was done (Detail), the signature the
// diagnosis should lead with (Primary), the others it should name (Secondary), and the true
// first divergence (First): every differing pointer is placed at the virtual time of its event
// by the protocol's placement (placement.go: a timestamp, an admission, a routing decision, a
// pressure event, any element that carries a time; metadata before time 0), and the earliest
// wins (a history event before configuration before values with no time; at one instant the
// decision before its consequences, then document order). Requests are paired by identity, so
// a renamed request is the same request. First.Events lists every event at that instant. The
// generator checks that the pointer the mutator meant as the cause is at that instant; a case
// that fails the check is a generator bug (mutationCase.Problem), not a lens miss.
//
// The real families' truth is committed beside their reports (testdata/real/cases.json), and
// TestRealCorpus reads it again from them before scoring: a committed label that its reports no
// longer say fails the test.
//
// write puts each case in its own folder (a.jsonl, b.jsonl, truth.json) and all truths in
// truth.json at the top.
//
// # Scoring
//
// score runs a diagnosis (diagnoseFiles: diagnose.DiffFiles) on every case. Per case:
//
//   - top label right: Diagnosis[0].Code equals the truth's primary;
//   - first divergence right: Diff.First.Pointer equals the truth's pointer, or it has the
//     same virtual time and lies in one of the events at that instant (the array element, the
//     request record, /metadata before time 0);
//   - secondary named: every secondary code is somewhere in the diagnosis;
//   - a negative control is right, in both columns, when the diff is Equal().
//
// The table gives per family the cases and these counts, and the totals; String renders it as
// markdown, Misses lists what every wrong case wanted and got.
package corpus
