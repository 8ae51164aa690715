package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"kvparity/engine"
	"kvparity/engine/build"
	"kvparity/report"
)

// checkoutRow is a row comparing two revisions of a Dynamo checkout (the desk loop: by
// default the committed HEAD against the working tree with its edits), reading the trace the
// checkout's bench crate ships, or traceFile (--trace). Paths are written relative to the row
// file's folder, so the row and the checkout can move together. Both refs are checked now: a
// typo is caught here, not at the first build.
//
// What init-row resolves it pins: the baseline is the full SHA its ref names now (the ref as
// typed stays in a comment), so the row always means that commit — HEAD~8, HEAD^ or main@{1}
// name other commits tomorrow, and a git: source cannot spell them. A candidate on a branch or
// HEAD stays that ref, which the desk loop's w follows; any other candidate ref is pinned too.
// Every string is written TOML-quoted (in comments too), and the text is read back before it
// is returned: init-row never writes a row that does not load as what it meant.
//
// The pressure band the row relies on is written too, as the protocol's starting band for the
// row's topology: a band the row does not declare is still checked, and a reader of the row
// must see it, and know to qualify it (stage 3), before a band failure means anything.
//
// Both arms are built with one profile: by default the desk profile (engine/build/desk.go),
// the fast build the desk loop needs, declared in the row with what it may and may not be
// used for; --profile release writes a row of release builds, the performance stage's.
func checkoutRow(checkout, baseRef, candRef, traceFile, profile, rowFile string) (string, error) {
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
	rowAbs, err := filepath.Abs(rowDir)
	if err != nil {
		return "", err
	}
	rel := relativeTo(rowAbs, abs)
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
	trace, err := checkoutRowTrace(checkout, abs, traceFile, rowAbs, &q)
	if err != nil {
		return "", err
	}
	// The template's [replay] args select no --serving-mode disagg: an aggregated row.
	band := report.DefaultPressureBand(false)
	name := checkoutRowName(abs, baseRef, candRef)
	what, line := releaseProfile, ""
	if profile == build.ProfileDesk {
		what, line = deskProfile, "profile  = \""+build.ProfileDesk+"\"\n"
	}
	text := fmt.Sprintf(checkoutRowTemplate, q.q("--checkout", checkout), baseWhat, candWhat, what, q.q("the row name", name),
		q.q("--checkout", baseSource), line, q.q("--checkout", candSource), line, trace.what, q.q("the trace path", trace.path), trace.count,
		q.q("the trace's sha256", trace.sha), band[0], band[1], band[0], band[1])
	if q.err != nil {
		return "", q.err
	}
	return text, readsBack(text, rowFile, name, baseSource, candSource, trace.path, profile == build.ProfileDesk)
}

// What a checkout row says of its build profile, in its header comment.
const (
	deskProfile = `Both arms are built with the desk profile (profile = "desk"): the checkout's release
# profile without LTO, with many codegen units and incremental compilation, so a save
# rebuilds quickly. It is a desk build, not the release artifact: the determinism and parity
# verdicts carry over to the release build (its replay computes the same), speed and size do
# not, so the performance stage and the footprint refuse it. For them, write the row with
# init-row --profile release (or delete both profile lines).`
	releaseProfile = `Both arms are built with the checkout's own release profile: the protocol's artifact,
# which the performance stage times (init-row --profile desk writes the desk loop's faster build).`
)

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
func readsBack(text, rowFile, name, baseSource, candSource, tracePath string, desk bool) error {
	file := rowFile
	if file == "" {
		file = "the row"
	}
	r, err := engine.ParseRow([]byte(text), file)
	if err != nil {
		return fmt.Errorf("the checkout cannot be named in a row: %w", err)
	}
	if r.Name != name || r.Baseline.Source != baseSource || r.Candidate.Source != candSource || r.Trace.Path != tracePath || r.Desk() != desk {
		return fmt.Errorf("the row does not read back as written: name %q, sources %q and %q, trace %q", r.Name, r.Baseline.Source, r.Candidate.Source, r.Trace.Path)
	}
	// The comment calls the band the default for the row's topology: hold it to that.
	if want := report.DefaultPressureBand(r.ReplayArg("--serving-mode") == "disagg"); len(r.Determinism.PressureBand) != 2 || r.Band() != want {
		return fmt.Errorf("the row's [determinism] pressure_band %v is not the default for its topology, %v", r.Determinism.PressureBand, want)
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
#
# %s
name = %s

[baseline]
source   = %s
features = ["replay-bench"]
%s
[candidate]
source   = %s
features = ["replay-bench"]
%s
[trace]
# %s.
path   = %s
offset = 0
count  = %d
sha256 = %s

[replay]
args = ["--num-workers","4","--engine-type","vllm","--block-size","64","--num-gpu-blocks","16000",
        "--arrival-speedup-ratio","4","--trace-block-size","512"]

[determinism]
repetitions = 2
timeout = "10m"
# The pressure band is assumed, not qualified: %d to %d events is the protocol's starting band
# for an aggregated row (the default kvparity checks when a row declares none). Qualify it
# (protocol stage 3): run the determinism stage (g), read the baseline's pressure count in the
# lifecycle pane, and write here the band the pinned baseline qualifies at, for both arms alike.
pressure_band = [%d, %d]

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
