package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	armkind "kvparity/engine/arm"
	"kvparity/engine/build"
	"kvparity/internal/atomicfile"
	"kvparity/internal/layout"
)

// BuildInfo is how kvparity built an arm from its source (artifacts.json, the journal, the report).
type BuildInfo = build.Info

// BuildProgress is one step of building an arm from its source (the workbench's build screen
// and the headless printer show it).
type BuildProgress struct {
	Arm Arm
	build.Progress
}

// buildSpec is engine/build's build of an arm that names a source (its kind's, engine/arm).
func buildSpec(spec ArmSpec) (build.Spec, error) { return armkind.BuildSpec(spec) }

// armBuildError names the arm whose build failed: a source key engine/build cannot read as the
// row's key, else the build's failure.
func armBuildError(arm Arm, spec ArmSpec, err error) error {
	if se, ok := errors.AsType[*armkind.SourceError](err); ok {
		return fmt.Errorf("[%s] source: %w", arm, se.Err)
	}
	return fmt.Errorf("%s arm (%s): %w", arm, spec.Source, err)
}

// armKinds calls fn for each arm of row with its kind; a source no kind claims is the row's
// error.
func armKinds(row *Row, fn func(arm Arm, spec ArmSpec, kind armkind.Kind) error) error {
	for _, arm := range []Arm{Baseline, Candidate} {
		spec := row.Arm(arm)
		kind, err := armkind.Of(spec)
		if err != nil {
			return fmt.Errorf("[%s] source: %w", arm, err)
		}
		if err := fn(arm, spec, kind); err != nil {
			return err
		}
	}
	return nil
}

// BuildArms builds every arm of row that names a source (protocol stage 1: the same toolchain
// and profile for both, with the timing extension), or finds the builds in the cache; each
// arm's kind (engine/arm) obtains and builds it. It runs before a campaign is created, never
// while a stage runs. progress may be nil.
func BuildArms(ctx context.Context, row *Row, cache string, progress func(BuildProgress)) (map[Arm]build.Info, error) {
	out := map[Arm]build.Info{}
	err := armKinds(row, func(arm Arm, spec ArmSpec, kind armkind.Kind) error {
		b, err := kind.Build(ctx, spec, armkind.BuildOptions{Cache: cache, Progress: func(p build.Progress) {
			if progress != nil {
				progress(BuildProgress{Arm: arm, Progress: p})
			}
		}})
		if err != nil {
			return armBuildError(arm, spec, err)
		}
		if b.Info != nil {
			out[arm] = *b.Info
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if b, c := out[Baseline], out[Candidate]; b.Binary != "" && c.Binary != "" && (b.Rustc != c.Rustc || b.Cargo != c.Cargo) {
		return nil, fmt.Errorf("the arms were built with different toolchains (%q vs %q): rebuild both with one toolchain", b.Rustc, c.Rustc)
	}
	return out, nil
}

// UnbuiltArms are the arms of row built from source whose build is not in the cache yet
// (each as "arm (source)"): what BuildArms would compile rather than find.
func UnbuiltArms(ctx context.Context, row *Row, cache string) ([]string, error) {
	var out []string
	err := armKinds(row, func(arm Arm, spec ArmSpec, kind armkind.Kind) error {
		ok, err := kind.Cached(ctx, spec, armkind.BuildOptions{Cache: cache})
		if se, isSource := errors.AsType[*armkind.SourceError](err); isSource {
			return fmt.Errorf("[%s] source: %w", arm, se.Err)
		}
		if err == nil && !ok {
			out = append(out, fmt.Sprintf("%s (%s)", arm, spec.Source))
		}
		return err
	})
	return out, err
}

// extensionPatch is the determinism patch (protocol stage 1.3) of a row whose arms are built
// from source: kvparity's timing extension, identical for both arms. Each arm's applied diff is
// copied into the campaign's patch folder for review.
func extensionPatch(dir string, builds map[Arm]build.Info) (*DeterminismPatch, error) {
	if len(builds) == 0 {
		return nil, nil
	}
	p := &DeterminismPatch{SHA256: build.ExtensionSHA256(),
		Source: fmt.Sprintf("kvparity timing extension: replay_execution_ms around the runtime's run() in %s Replayer::run_inner, applied identically to every source-built arm", build.ReplayCrate)}
	for _, arm := range []Arm{Baseline, Candidate} {
		info, ok := builds[arm]
		if !ok {
			continue
		}
		b, err := os.ReadFile(info.AppliedPatch)
		if err != nil {
			return nil, fmt.Errorf("the %s build's applied patch: %w", arm, err)
		}
		rel := ExtensionPatchCopy(arm)
		if err := os.MkdirAll(filepath.Join(dir, layout.DirPatch), 0o755); err != nil {
			return nil, err
		}
		if err := atomicfile.WriteIn(dir, filepath.Join(dir, rel), b, 0o644); err != nil {
			return nil, err
		}
		if p.Path == "" { // the first copy; ExtensionPatchCopy names each arm's
			p.Path = rel
		}
		p.Bytes += int64(len(b))
	}
	return p, nil
}

// ExtensionPatchCopy is where the campaign keeps arm's applied timing extension (its build's
// diff), relative to the campaign.
func ExtensionPatchCopy(arm Arm) string {
	return filepath.Join(layout.DirPatch, string(arm)+"-timing-extension.patch")
}

// pinBuilt pins an arm's build as generation gen: the binary, how it was built, the revision
// it is (a ref's commit, a worktree's base and snapshot), and a worktree's diff against its
// base commit, copied into the campaign so the report shows what was measured.
func pinBuilt(dir string, arm Arm, gen int, spec ArmSpec, info build.Info) (PinnedArtifact, error) {
	p, err := pinArtifact(dir, arm, gen, spec, info.Binary)
	if err != nil {
		return p, err
	}
	p.Build = &info
	if spec.Revision == "" {
		p.Revision = info.Revision()
	}
	if info.WorktreeDiff != "" {
		b, err := os.ReadFile(info.WorktreeDiff)
		if err != nil {
			return p, fmt.Errorf("pin %s: the worktree diff of its build: %w", arm, err)
		}
		rel := filepath.Join(layout.DirSources, fmt.Sprintf("%s-g%d-worktree.diff", arm, gen))
		if err := os.MkdirAll(filepath.Join(dir, layout.DirSources), 0o755); err != nil {
			return p, err
		}
		if err := atomicfile.WriteIn(dir, filepath.Join(dir, rel), b, 0o644); err != nil {
			return p, err
		}
		p.SourceDiff = rel
	}
	return p, nil
}
