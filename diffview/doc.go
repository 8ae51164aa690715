// Package diffview compares two canonical reports field by field and finds the first
// divergence in virtual time. It links no TUI: the Bubble Tea diff pane is package
// ui/diffpane. Two rooms stand on it and it imports neither: the diagnosis (package
// diffview/diagnose: the lenses, their signatures and the headless diff that prints them) and
// the campaign's exception records (package exceptions), which are drafted from a diff, name
// its pointers in its pattern language and judge it.
//
// It imports report for the canonical profile the diff applies, internal/jsonscan for the tapes
// it walks and internal/pointer for the pointers it names.
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
// pointer pattern covering exactly what it counts (the pane's grouping by field, and
// kvparity diff --patterns, printed by WritePatterns).
//
// # First divergence
//
// Every change is placed at the virtual time of the event it belongs to (a timestamp field,
// an admission, a routing decision, a pressure event, an element of any array whose elements
// carry a time); a value that is an instant of its own or a duration is placed where it
// happens or ends (a readmission, a release and the wait that ends there, the second token).
// The earliest point of the run's history is the first divergence; at one instant the decision
// itself (the worker or victim chosen) comes before the other fields of its record. Metadata
// is configuration, before time 0: it is the first divergence only when no history event
// differs; values with no time come last; a field only one version's records carry is
// layout, not history, and is passed over. Diff.Event names a change's event and its time.
//
// # Pointer patterns
//
// The patterns an exception record covers, the pane's filter and the field patterns are one
// language (pattern.go):
//
//	/summary/mean_ttft_ms                exactly that pointer
//	/summary/*_ttft_ms                   "*", "?" and "[...]" glob within one segment (path.Match)
//	/metadata/execution/{aic_x,ais_x}    "{a,b}" a key set within one segment (a renaming, both names)
//	/per_request/*/routing_history/**    "**" as a whole segment spans zero or more segments
//	/coverage/pressure/**                everything under the pressure evidence
//
// A pattern matches a whole pointer: "/summary" does not cover "/summary/x" (write
// "/summary/**"). Segments use pointer escapes (~0 for "~", ~1 for "/"). Compile splits one
// pattern for matching many pointers, CompileAll a list of them (a record's); Diff.Select
// lists the changes a list of patterns matches and Diff.Describe says what differs among
// selected changes (a record's "what differs").
//
// # What the diagnosis reads
//
// The lenses of package diffview/diagnose read what the diff holds, and these are exported
// for them: the two reports compared (Diff.DocA and Diff.DocB, a Doc each: a report line's
// tape, read by pointer, record and member), the members one side's records carry
// (Diff.Schema), where each change was placed (Diff.EventAt, RecordTime, ElementField, SideA)
// and the words the diff itself reads pointers in (SplitPointer, PointerOf, LastSegment,
// ElementPrefix, DecisionKey, TimeFields, DerivedFrom, IDKeys, Fingerprint, ParseNumber,
// FormatMs, Short, EscapeGlob, MatchPattern).
//
// # Files
//
//	diff.go          Diff, Change, Side; DiffFiles, DiffBytes; the walk of both tapes
//	report_doc.go    Doc: one report line, its tape, read by pointer; pointer helpers
//	release.go       DiffRelease: a release replay's records and summary laid out as a report
//	pairing.go       /per_request records paired: by uuid, content, trace, placement, order
//	schema.go        the members one side's records carry (RecordSchema)
//	align.go         length-changed ordered arrays aligned (go-diff)
//	exclusions.go    the canonical profile's excluded pointers (Exclusion)
//	hold.go          what a diff holds in detail; AllPointers walks every pointer again
//	group.go         Groups
//	divergence.go    each change placed in virtual time; the first divergence
//	fieldpattern.go  field patterns (FieldPatterns, FieldPattern, PatternsOf)
//	pattern.go       pointer patterns (Compile, CompileAll, MatchPattern, ValidatePattern)
//	select.go        Select and Describe: the changes patterns match, and what differs there
//	text.go          WriteArms, WritePatterns and the JSON parts of a diff (JSONGroup, JSONFirst)
//	shortid.go       ShortIDs: ids shortened to the part that tells them apart
package diffview
