// Package report holds the canonical report profile of Dynamo offline replay
// (dynamo-offline-replay-v1): canonicalization, digests, lifecycle evidence extracted from a
// canonical record, and Mooncake trace parsing, windows and checksums. It reads JSON with
// internal/jsonscan and pointers with internal/pointer, and otherwise only the standard
// library.
package report
