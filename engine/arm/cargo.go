package arm

import (
	"context"
	"fmt"
	"strings"

	"kvparity/engine/build"
	"kvparity/engine/instrument"
)

// cargo is what the kinds that name Dynamo's source share: engine/build obtains the source
// (its source kind of the same name: crate, git, worktree), applies the timing extension and
// builds offline_replay_bench with Cargo, cached; the campaign pins the built binary and runs
// it with the bench's flags.
type cargo struct{}

// sourceOfKind says a source key names engine/build's source kind (its "KIND:" prefix).
func sourceOfKind(s Spec, kind string) bool { return strings.HasPrefix(s.Source, kind+":") }

func (cargo) Embedded() bool             { return false }
func (cargo) Repinnable() bool           { return true }
func (cargo) HelpArgv() []string         { return []string{"--help"} }
func (cargo) Region() instrument.Region  { return instrument.RegionExtension }
func (cargo) Argv(p Process) []string    { return benchArgv(p) }
func (cargo) Outputs(dir string) Outputs { return benchOutputs(dir) }

func (cargo) Footprint(file string, size int64) (instrument.Binary, error) {
	return elfFootprint(file, size)
}

func (cargo) Label(p Pinned) string {
	if p.Build != nil {
		return fmt.Sprintf("offline_replay_bench of %s %s", p.Build.Package, p.Build.Version)
	}
	return p.Source
}

// Revision is the row's revision key, else what the source names.
func (cargo) Revision(s Spec) string {
	if src, err := build.ParseSpec(s.Source); err == nil && s.Revision == "" {
		return src.Revision()
	}
	return s.Revision
}

// WithBaseDir resolves a checkout's relative path against the row's folder.
func (cargo) WithBaseDir(s Spec, dir string) Spec {
	if src, err := build.ParseSpec(s.Source); err == nil && src.Checkout() {
		s.Source = src.WithBaseDir(dir).String()
	}
	return s
}

func (cargo) Check(s Spec, role string) *Problem {
	src, err := build.ParseSpec(s.Source)
	switch {
	case err != nil:
		return &Problem{"source", err.Error()}
	case s.Binary != "":
		return &Problem{"binary", "give a binary or a source, not both (kvparity builds the source)"}
	case s.Variant != "" && role == "baseline":
		return &Problem{"variant", "a source-built baseline is the published code itself: only a candidate takes a stand-in variant"}
	case s.Revision != "" && s.Revision != src.Revision():
		return &Problem{"revision", fmt.Sprintf("%q disagrees with the source, which pins %s (leave revision out: the source names it)", s.Revision, src.Revision())}
	case len(s.Features) == 0:
		return &Problem{"features", "missing: name the Cargo features to build (the protocol's artifact needs replay-bench)"}
	}
	if s.Variant != "" {
		if _, err := build.ParseVariant(s.Variant); err != nil {
			return &Problem{"variant", err.Error()}
		}
	}
	if err := build.CheckProfile(s.Profile); err != nil {
		return &Problem{"profile", err.Error()}
	}
	return checkFeatures(s)
}

// Build builds the source with engine/build (or finds it in the cache).
func (cargo) Build(ctx context.Context, s Spec, o BuildOptions) (Built, error) {
	bs, err := BuildSpec(s)
	if err != nil {
		return Built{}, err
	}
	info, err := build.Build(ctx, bs, build.Options{Cache: o.Cache, Progress: o.Progress})
	if err != nil {
		return Built{}, err
	}
	return Built{File: info.Binary, Info: &info}, nil
}

func (cargo) Cached(ctx context.Context, s Spec, o BuildOptions) (bool, error) {
	bs, err := BuildSpec(s)
	if err != nil {
		return false, err
	}
	_, ok, err := build.Cached(ctx, bs, build.Options{Cache: o.Cache})
	return ok, err
}

// A SourceError is a source key engine/build cannot read (a row not validated).
type SourceError struct{ Err error }

func (e *SourceError) Error() string { return e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// BuildSpec is engine/build's build of an arm that names a source: the source, its features
// and its stand-in variant. Its errors are *SourceError.
func BuildSpec(s Spec) (build.Spec, error) {
	bs, err := build.ParseSpec(s.Source)
	if err != nil {
		return build.Spec{}, &SourceError{err}
	}
	bs.Features, bs.Profile = s.Features, s.Profile
	if s.Variant != "" {
		if bs.Variant, err = build.ParseVariant(s.Variant); err != nil {
			return build.Spec{}, &SourceError{err}
		}
	}
	return bs, nil
}
