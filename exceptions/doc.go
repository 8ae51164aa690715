// Package exceptions keeps a campaign's semantic-exception records (protocol stage 5) and
// judges a diff against them: <campaign>/exceptions.jsonl holds one ExceptionRecord per line
// with the seven fields of stage 5, and a record covers the differing pointers its patterns
// match.
//
// It imports diffview, and diffview does not import it: the records belong to the campaign,
// not to the diff; they are drafted from a diff's changes, name its pointers in the diff's
// pattern language (diffview's pattern.go, which the pane's filter and the field patterns
// speak too) and judge a diff, so the arrow runs from the records to the diff. It imports
// verdict for the semantic verdict it decides, internal/jsonscan and internal/pointer to read
// exceptions.jsonl strictly, internal/atomicfile to write it and internal/layout for the
// lock's file name.
//
// # Records
//
// Writes replace the file crash-safely (temporary file, fsync, rename, directory fsync).
// DraftRecord proposes the patterns, requests and events of a record for selected changes
// (the pane's form, where these lists are comma-separated). SemanticVerdict gives
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
//
// # Files
//
//	exceptions.go        ExceptionRecord, Validate, BroadReason; LoadExceptions, PutException,
//	                     DeleteException
//	exceptions_parse.go  the strict reading of exceptions.jsonl
//	exceptions_lock.go   the flock every load-change-save holds
//	verdict.go           Coverage, CoverageByRecord, SemanticVerdict, SemanticVerdictOf
//	draft.go             DraftRecord: a record proposed for selected changes of a diff
package exceptions
