// Package diffview compares two canonical reports field by field, finds the first divergence
// in virtual time, diagnoses the signature of a nondeterminism leak or semantic change, keeps
// semantic-exception records, and prints the headless diff (kvparity diff). It links no TUI:
// the Bubble Tea diff pane is package ui/diffpane.
//
// It imports report for the canonical profile the diff applies, verdict for the semantic
// verdict, internal/jsonscan for the tapes it walks, internal/pointer for the pointers it
// names, internal/layout for the campaign's file names and internal/atomicfile to write
// exceptions.jsonl.
//
// # Diff
//
// DiffFiles reads two canonical report lines (schema dynamo.offline-replay.v1, or a Dynamo
// 1.4.x line, which names none) with the one JSON scanner (internal/jsonscan): one
// validating pass builds each line's tape, number literals stay verbatim ("4.0" and "4"
// differ, as in the canonical bytes; the diagnosis calls that number spelling), byte-equal
// subtrees are skipped, objects are compared by key (a
// report that is not canonical is still compared, with a note), and the canonical profile's
// excluded pointers are not compared but listed when they differ (Diff.Excluded). Ordered
// arrays are compared by position, or, when their lengths differ, along an alignment of their
// elements (go-diff), so an inserted event is one added element. /per_request is paired by
// uuid; records renamed by an unseeded uuid are paired by content, then by what the trace
// fixes (arrival time and lengths) when a second cause also changed their content. Every
// differing leaf is a Change with an RFC 6901 pointer; pointers into /per_request use B's
// index, a removed array element A's. Changes are grouped: summary, metadata, coverage,
// coverage/pressure/records, then each request's scalar fields and each of its ordered event
// arrays.
//
// Dynamo's release replay (python -m dynamo.replay) writes a run in files of its own: one
// per-request record per line (--report-jsonl), in the order requests finished, and a
// pretty-printed summary (--report-json). DiffFiles tells them from a canonical report by
// their first value, DiffRelease takes them paired (release.go); a run is laid out as a
// canonical report holds it ({"per_request":[…],"summary":{…}}), so one diff, one pairing and
// the canonical profile's exclusions apply, and messages name the file and line a value came
// from. Records are paired on the members both sides' records have (schema.go: a field one
// version's records carry and the other's do not would unpair every record); records the
// trace cannot tell apart pair by placement, then order. Records that stand in another order
// on each side, neither sorted by uuid, are said in a note.
//
// A diff holds at most one Change per 64 bytes of its inputs (never fewer than 262,144): a
// real pair, even with every request moved, differs in about one pointer per 180 bytes and
// is held whole. Past the bound (a flood: millions of differing array elements) it holds at
// most a quota of changes per array, the largest the bound allows, so every array that
// differs less is held whole, and only counts the rest (Diff.Count, Diff.Truncated, a note).
// Groups, the first divergence and the diagnosis read the held changes; the count, the JSON
// pointers, the field patterns and exception coverage read every pointer (Diff.AllPointers
// walks both documents again), so no verdict reads a sample.
//
// Diff.FieldPatterns counts the differing pointers by field pattern: array indices and ids
// wildcarded ("/per_request/*/ttft_ms"), largest first, every pointer counted once; an object
// whose many scalar fields each differ once reads as "<object>/*". Each pattern is a valid
// exception pattern covering exactly what it counts (the pane's grouping by field, and
// kvparity diff --patterns).
//
// # First divergence and diagnosis
//
// Every change is placed at the virtual time of the event it belongs to (a timestamp field,
// an admission, a routing decision, a pressure event, an element of any array whose elements
// carry a time); a value that is an instant of its own or a duration is placed where it
// happens or ends (a readmission, a release and the wait that ends there, the second token).
// The earliest point of the run's history is the first divergence. Metadata is configuration,
// before time 0: it is the first divergence only when no history event differs, and the
// configuration signature names it either way; values with no time come last; a field only
// one version's records carry is layout, not history, and is passed over. Diagnosis
// applies lenses (docs/guide.md, "Reading the diagnosis"): configuration, number spelling, child
// before parent, ordering within equal timestamps (events, decisions, ids of same-time
// arrivals), placement ties (a request on another worker, every other value equal, or one
// consistent renaming of the workers over the whole run, read off the routing decisions, or
// the records' own placements when they hold none: workers tied on cost, a cause of its own
// beside the ids), id/uuid drift, wall-clock leakage (also a run duration and its rates
// anywhere outside /summary, recognised by rate × duration = a count of the same object),
// float last-digit noise, constant-quantum shifts, decision-flip cascade, a record schema
// change (fields added, removed, renamed, with counts) or a summary computed another way, a
// report version change (A and B of two known release lines, versions.go: the field map
// between their canonical report shapes applied, named with the map, the members only one
// line writes and the exception record that covers exactly them), a configuration laid out
// another way when the versions are not known (metadata members one side lacks, settings
// moved into or out of sub-objects with their values kept, none that both carry differing:
// two versions' layouts, not a setting, so not the cause), and values that moved before the
// first differing decision (the timing model's; between two versions also when no decision
// differs, or when the moved times share one quantum, named after it). Each signature carries its evidence and the share of the differences it
// explains; they are ranked by that share (a differing configuration first; a cascade whose
// flip has an earlier difference after the cause found for it; the values moved before the
// first differing decision lead, the cascade that follows from them next, and the two are one
// share; decisions that differ with nothing following from them are ties, no cascade;
// identities renamed and layouts beside a cause of the history, a cascade or ties, after
// it), and what no signature explains is listed as "unclassified" (when neither input holds
// a per-request record, a release's summary alone, as run-level aggregates that nothing per
// request is there to attribute). A decision taken at another instant in each run is no
// flip at that instant: the values moved by then are its cause.
//
// # Exception records
//
// <campaign>/exceptions.jsonl holds one ExceptionRecord per line with the seven fields of
// protocol stage 5. Writes replace the file crash-safely (temporary file, fsync, rename,
// directory fsync). A record covers the differing pointers its patterns match:
//
//	/summary/mean_ttft_ms                exactly that pointer
//	/summary/*_ttft_ms                   "*", "?" and "[...]" glob within one segment (path.Match)
//	/metadata/execution/{aic_x,ais_x}    "{a,b}" a key set within one segment (a renaming, both names)
//	/per_request/*/routing_history/**    "**" as a whole segment spans zero or more segments
//	/coverage/pressure/**                everything under the pressure evidence
//
// A pattern matches a whole pointer: "/summary" does not cover "/summary/x" (write
// "/summary/**"). Segments use pointer escapes (~0 for "~", ~1 for "/"). Diff.DraftRecord
// proposes the patterns, requests and events of a record for selected changes (the pane's
// form, where these lists are comma-separated). SemanticVerdict gives
// PASS_WITH_SEMANTIC_EXCEPTIONS only when every differing pointer is covered by a valid
// record, and never for an UNSTABLE arm. A record that names a root pattern ("/**",
// "/per_request/**") or covers more than half of the differences is broad (BroadReason): the
// pane asks for an explicit confirmation and saves it with Broad set, but the pane and the
// campaign report compute broadness afresh every time they read a record, so the stored flag
// only says whether its author confirmed it.
//
// The file is read strictly (one JSON object per line; no trailing data, repeated key or
// unknown key; blank lines tolerated), a change is refused rather than rewrite a file that
// did not parse whole, and every load-change-save holds an flock on exceptions.lock.
package diffview
