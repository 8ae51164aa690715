// Package consistency holds the end-to-end checks that every surface of a campaign — the exit
// status, run --json, report.json, report.md, the workbench header, diff --campaign and
// matrix.json — says the same verdict. They run every shipped row's campaign in several states,
// minutes of replays: in a package of their own they get go test's per-package time instead of
// sharing another's. It has tests only; they run the kvparity binary through the e2e harness.
package consistency
