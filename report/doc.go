// Package report holds the canonical report profile of Dynamo offline replay
// (dynamo-offline-replay-v1): canonicalization, digests, lifecycle evidence extracted from a
// canonical record, and Mooncake trace parsing, windows and checksums. It imports only the
// standard library.
package report
