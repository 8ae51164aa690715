package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"

	"kvparity/engine/build"
	"kvparity/internal/digest"
)

// checkoutTrace is where Dynamo's bench crate keeps the public Mooncake trace it ships.
const checkoutTrace = "lib/bench/testdata/mooncake_trace_1000.jsonl"

// checkoutRow is a row comparing two revisions of a Dynamo checkout (the desk loop: by
// default the committed HEAD against the working tree with its edits), reading the trace the
// checkout's bench crate ships. Paths are written relative to the row file's folder, so the
// row and the checkout can move together. Both refs are checked now: a typo is caught here,
// not at the first build.
func checkoutRow(checkout, baseRef, candRef, rowFile string) (string, error) {
	abs, err := filepath.Abs(checkout)
	if err != nil {
		return "", err
	}
	ctx := context.Background()
	baseCommit, err := build.ResolveRef(ctx, abs, baseRef)
	if err != nil {
		return "", fmt.Errorf("--baseline: %w", err)
	}
	rowDir := "."
	if rowFile != "" {
		rowDir = filepath.Dir(rowFile)
	}
	rel := abs
	if rowAbs, err := filepath.Abs(rowDir); err == nil {
		if r, err := filepath.Rel(rowAbs, abs); err == nil {
			rel = r
		}
	}
	candSource, candWhat := "worktree:"+rel, "the working tree as it is on disk (edits and untracked files included; pinned by content)"
	if candRef != "worktree" {
		commit, err := build.ResolveRef(ctx, abs, candRef)
		if err != nil {
			return "", fmt.Errorf("--candidate: %w", err)
		}
		candSource, candWhat = "git:"+rel+"@"+candRef, fmt.Sprintf("%s (now %.12s)", candRef, commit)
	}
	trace := filepath.Join(abs, filepath.FromSlash(checkoutTrace))
	sum, err := digest.File(trace)
	if err != nil {
		return "", fmt.Errorf("%s: the checkout's bench crate ships no Mooncake trace there (%w): write the row by hand (kvparity init-row) and name a trace", checkout, err)
	}
	name := regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(filepath.Base(abs)+"-"+baseRef+"-vs-"+candRef, "-")
	return fmt.Sprintf(`# A desk-loop row for the Dynamo checkout %s (written by kvparity init-row --checkout).
# baseline: %s (now %.12s); candidate: %s.
# kvparity builds both with the timing extension (kvparity build, or the first kvparity run);
# each revision of the checkout compiles in one kept folder (its lineage), so an edit
# recompiles only the crates it touches. In the workbench, w follows the candidate: a saved
# file (worktree) or a new commit (a branch or HEAD) rebuilds it, pins it again and reruns the
# determinism stage.
name = %q

[baseline]
source   = %q
features = ["replay-bench"]

[candidate]
source   = %q
features = ["replay-bench"]

[trace]
# The public Mooncake 1,000-row trace as the checkout's bench crate ships it.
path   = %q
offset = 0
count  = 1000
sha256 = %q

[replay]
args = ["--num-workers","4","--engine-type","vllm","--block-size","64","--num-gpu-blocks","16000",
        "--arrival-speedup-ratio","4","--trace-block-size","512"]

[determinism]
repetitions = 2
timeout = "10m"

[perf]
pairs = 60
warmups_per_arm = 5
threshold = 1.05
timing_field = "replay_execution_ms"
dependence_method = "block-medians"

[canonical]
exclusions = ["/summary/wall_time_ms","/summary/processed_tokens_per_s","/summary/processed_output_tokens_per_s"]
unordered = { "/per_request" = "uuid" }
`, checkout, baseRef, baseCommit, candWhat, name, "git:"+rel+"@"+baseRef, candSource, filepath.ToSlash(filepath.Join(rel, checkoutTrace)), sum), nil
}
