package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"kvparity/engine"
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
//
// What init-row resolves it pins: the baseline is the full SHA its ref names now (the ref as
// typed stays in a comment), so the row always means that commit — HEAD~8, HEAD^ or main@{1}
// name other commits tomorrow, and a git: source cannot spell them. A candidate on a branch or
// HEAD stays that ref, which the desk loop's w follows; any other candidate ref is pinned too.
// Every string is written TOML-quoted (in comments too), and the text is read back before it
// is returned: init-row never writes a row that does not load as what it meant.
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
	var q tomlQuoter
	baseSource := "git:" + rel + "@" + baseCommit
	baseWhat := fmt.Sprintf("--baseline %s, pinned to the commit it named then,\n#   %s (the baseline is never rebuilt: run init-row again to move it)", q.q("--baseline", baseRef), baseCommit)
	candSource, candWhat := "worktree:"+rel, "the working tree as it is on disk (edits and untracked files included; pinned by content)"
	if candRef != "worktree" {
		commit, err := build.ResolveRef(ctx, abs, candRef)
		if err != nil {
			return "", fmt.Errorf("--candidate: %w", err)
		}
		if followsBranch(ctx, abs, rel, candRef, commit) {
			candSource = "git:" + rel + "@" + candRef
			candWhat = fmt.Sprintf("--candidate %s (now %.12s), a ref w follows: a new commit on it rebuilds the\n#   candidate (write its full SHA instead to pin it)", q.q("--candidate", candRef), commit)
		} else {
			candSource = "git:" + rel + "@" + commit
			candWhat = fmt.Sprintf("--candidate %s, pinned to the commit it named then,\n#   %s", q.q("--candidate", candRef), commit)
		}
	}
	trace := filepath.Join(abs, filepath.FromSlash(checkoutTrace))
	sum, err := digest.File(trace)
	if err != nil {
		return "", fmt.Errorf("%s: the checkout's bench crate ships no Mooncake trace there (%w): write the row by hand (kvparity init-row) and name a trace", checkout, err)
	}
	name := checkoutRowName(abs, baseRef, candRef)
	tracePath := filepath.ToSlash(filepath.Join(rel, checkoutTrace))
	text := fmt.Sprintf(checkoutRowTemplate, q.q("--checkout", checkout), baseWhat, candWhat, q.q("the row name", name),
		q.q("--checkout", baseSource), q.q("--checkout", candSource), q.q("--checkout", tracePath), q.q("the trace's sha256", sum))
	if q.err != nil {
		return "", q.err
	}
	return text, readsBack(text, rowFile, name, baseSource, candSource, tracePath)
}

// followsBranch says the candidate ref is one the desk loop follows — HEAD or a branch's
// name — and that a git: source spells it back as itself (so the row means what was typed).
func followsBranch(ctx context.Context, abs, rel, ref, commit string) bool {
	if ref != "HEAD" {
		if tip, err := build.ResolveRef(ctx, abs, "refs/heads/"+ref); err != nil || tip != commit {
			return false
		}
	}
	s, err := build.ParseSpec("git:" + rel + "@" + ref)
	return err == nil && s.Repo == rel && s.Ref == ref
}

// checkoutRowName is the row's name from the checkout's folder and the refs as typed, reduced
// to what a row name may hold (it names the campaign folder).
func checkoutRowName(abs, baseRef, candRef string) string {
	name := regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(filepath.Base(abs)+"-"+baseRef+"-vs-"+candRef, "-")
	if name = strings.TrimLeft(name, "._-"); name == "" {
		name = "checkout"
	}
	return name
}

// readsBack parses the row text as run will and checks it names what init-row meant.
func readsBack(text, rowFile, name, baseSource, candSource, tracePath string) error {
	file := rowFile
	if file == "" {
		file = "the row"
	}
	r, err := engine.ParseRow([]byte(text), file)
	if err != nil {
		return fmt.Errorf("the checkout cannot be named in a row: %w", err)
	}
	if r.Name != name || r.Baseline.Source != baseSource || r.Candidate.Source != candSource || r.Trace.Path != tracePath {
		return fmt.Errorf("the row does not read back as written: name %q, sources %q and %q, trace %q", r.Name, r.Baseline.Source, r.Candidate.Source, r.Trace.Path)
	}
	return nil
}

// checkoutRowTemplate is the row; every %s is a TOML-quoted string or a comment line's text.
const checkoutRowTemplate = `# A desk-loop row for the Dynamo checkout %s (written by kvparity init-row --checkout).
# baseline: %s.
# candidate: %s.
# kvparity builds both with the timing extension (kvparity build, or the first kvparity run);
# each revision of the checkout compiles in one kept folder (its lineage), so an edit
# recompiles only the crates it touches. In the workbench, w follows the candidate: a saved
# file (worktree) or a new commit (a branch or HEAD) rebuilds it, pins it again and reruns the
# determinism stage.
name = %s

[baseline]
source   = %s
features = ["replay-bench"]

[candidate]
source   = %s
features = ["replay-bench"]

[trace]
# The public Mooncake 1,000-row trace as the checkout's bench crate ships it.
path   = %s
offset = 0
count  = 1000
sha256 = %s

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
`
