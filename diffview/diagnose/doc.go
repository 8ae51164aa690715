// Package diagnose names the signature of a nondeterminism leak or a semantic change in a
// diff (package diffview): its lenses read the diff's changes, the two reports and the
// instants the changes were placed at, and each signature they find carries its evidence and
// the share of the differences it explains. It also prints the headless diff with its
// diagnosis (kvparity diff, text and --json), which is what the campaign report keeps in
// diffs/.
//
// It imports diffview for the diff it reads (its changes, its two documents read by pointer, the
// events the changes were placed at), verdict for the verdict word of kvparity diff's semantic
// section (JSONSemantic), internal/jsonscan for the tapes of the reports it reads and
// internal/pointer to spell the metadata's keys as pointers. diffview does not import it: a Diff
// is diagnosed by Of (or DiffFiles, DiffBytes and DiffRelease, which diff and diagnose), and
// diagnose.Diff is the diffview.Diff with its Diagnosis.
//
// # Lenses and signatures
//
// The first divergence is diffview's; the configuration signature names a differing setting
// whether or not it is the first divergence. Diagnosis applies lenses (docs/guide.md,
// "Reading the diagnosis"): configuration, number spelling, child before parent, ordering
// within equal timestamps (events, decisions, ids of same-time arrivals), placement ties (a
// request on another worker, every other value equal, or one consistent renaming of the
// workers over the whole run, read off the routing decisions, or the records' own placements
// when they hold none: workers tied on cost, a cause of its own beside the ids), id/uuid
// drift, wall-clock leakage (also a run duration and its rates anywhere outside /summary,
// recognised by rate × duration = a count of the same object), float last-digit noise,
// constant-quantum shifts, decision-flip cascade, a record schema change (fields added,
// removed, renamed, with counts) or a summary computed another way, a report version change
// (A and B of two known release lines, versions.go: the field map between their canonical
// report shapes applied, named with the map, the members only one line writes and the
// exception record that covers exactly them), a configuration laid out another way when the
// versions are not known (metadata members one side lacks, settings moved into or out of
// sub-objects with their values kept, none that both carry differing: two versions' layouts,
// not a setting, so not the cause), and values that moved before the first differing decision
// (the timing model's; between two versions also when no decision differs, or when the moved
// times share one quantum, named after it). Each signature carries its evidence and the share
// of the differences it explains; they are ranked by that share (a differing configuration
// first; a cascade whose flip has an earlier difference after the cause found for it; the
// values moved before the first differing decision lead, the cascade that follows from them
// next, and the two are one share; decisions that differ with nothing following from them are
// ties, no cascade; identities renamed and layouts beside a cause of the history, a cascade or
// ties, after it), and what no signature explains is listed as "unclassified" (when neither
// input holds a per-request record, a release's summary alone, as run-level aggregates that
// nothing per request is there to attribute). A decision taken at another instant in each run
// is no flip at that instant: the values moved by then are its cause.
//
// A signature names the changes it accounts for (Signature.Changes), so "cover this cause"
// drafts the exception record of exactly those pointers (Diff.PatternsOf, or the version
// change's own key-set patterns); Diff.Unexplained is what no signature names.
//
// # Files
//
//	diff.go                Diff (a diffview.Diff and its diagnosis), Of, DiffFiles, DiffBytes,
//	                       DiffRelease; what more than one lens reads, made on first use
//	diagnose.go            Signature and its codes; the lenses run in order, merged and ranked;
//	                       unclassified; configuration and number spelling; Unexplained
//	diagnose_helpers.go    what the lenses share: changes by event array, numbers, counts
//	arrayview.go           an ordered array of objects (events) read element by element
//	diagnose_order.go      child before parent; ordering within equal timestamps
//	diagnose_history.go    the routing decisions of both runs: ties among them, a KV index that
//	                       lost a chain; run-level clocks
//	diagnose_arrivals.go   ids handed out in another order among same-time arrivals
//	diagnose_placement.go  a placement that differs while the outcome does not
//	diagnose_relabel.go    a consistent renaming of the workers over the whole run
//	diagnose_values.go     id drift, wall-clock readings, float noise
//	diagnose_clock.go      wall-clock durations inside values that should be virtual
//	diagnose_rates.go      wall-clock run durations and rates outside /summary
//	diagnose_shift.go      constant-quantum shifts; the decision-flip cascade
//	diagnose_timing.go     values that moved before any decision differed; a summary computed
//	                       another way
//	diagnose_schema.go     a record schema change between versions
//	diagnose_config.go     a configuration laid out another way
//	versions.go            the canonical report shapes of Dynamo's release lines, and a
//	                       version change between two of them
//	report.go              kvparity diff's text (WriteText) and JSON (JSONReport, WriteJSON)
package diagnose
