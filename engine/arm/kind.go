package arm

import (
	"context"

	"kvparity/engine/build"
	"kvparity/engine/instrument"
)

// A Spec names one arm's artifact as a row's [baseline] or [candidate] table says it: a
// prebuilt binary, the embedded engine, or a source kvparity builds. Which Kind it is decides
// everything else (Of).
type Spec struct {
	Revision string   `toml:"revision,omitempty"` // immutable commit SHA ("builtin" for the embedded engine)
	Binary   string   `toml:"binary,omitempty"`   // "builtin" or a path to offline_replay_bench
	Source   string   `toml:"source,omitempty"`   // crate:NAME@VERSION or git:PATH@COMMIT (see the kinds)
	Features []string `toml:"features,omitempty"` // exact Cargo feature names, checked against the manifest
	// Variant is a stand-in revision: for the builtin binary, passed as --variant; for a
	// source-built candidate, slowdown-PCT is built into its replay loop (build/slowdown.go)
	// and scale-events adds the harness's --scale-event (build/scaling.go, stage 6).
	Variant string `toml:"variant,omitempty"`
	// Profile is "desk" for the desk loop's fast build of a source (engine/build/desk.go: not
	// the release artifact, refused by the performance stage and the footprint); left out, the
	// source's release profile.
	Profile string `toml:"profile,omitempty"`
}

// Desk says the arm is built with the desk profile.
func (s Spec) Desk() bool { return s.Profile == build.ProfileDesk }

// FromSource reports whether kvparity builds the arm's binary from its source.
func (s Spec) FromSource() bool { return s.Source != "" }

// A Kind is one way a row names an arm's artifact, and everything the campaign asks of it:
// how the row's table is read and checked, how the artifact is obtained and built, what is
// pinned, the argv of a run, the files a run writes, and what the footprint measures. The
// campaign asks the kind and never switches on its name.
type Kind interface {
	// Name is the kind as people read it ("builtin", "binary", "crate", "git", "worktree").
	Name() string
	// Claims says whether a row's arm table names an arm of this kind (a source's "KIND:"
	// prefix, a binary's value).
	Claims(s Spec) bool
	// Check says what is wrong with the table (nil: nothing); role is "baseline" or
	// "candidate".
	Check(s Spec, role string) *Problem
	// WithBaseDir resolves the table's relative paths against the row file's folder.
	WithBaseDir(s Spec, dir string) Spec
	// Revision is what a campaign records the arm as before it is built (the revision key,
	// or what the source names).
	Revision(s Spec) string

	// Build obtains the arm's artifact: fetches or snapshots the source and builds it (or
	// finds the build in the cache), or names the file given as is. It runs before a
	// campaign is created, never while a stage runs.
	Build(ctx context.Context, s Spec, o BuildOptions) (Built, error)
	// Cached says whether Build would find rather than compile.
	Cached(ctx context.Context, s Spec, o BuildOptions) (bool, error)

	// Embedded says the pin is the kvparity executable itself (artifacts.json's "builtin").
	Embedded() bool
	// Repinnable says the pinned file's origin may change under the campaign (a binary
	// rebuilt in place): it is hashed before every stage and watched, and pinned again.
	Repinnable() bool
	// Label names a pinned artifact for people (fixtures' help, errors).
	Label(p Pinned) string

	// Argv is the process arguments of one run of the pinned file.
	Argv(p Process) []string
	// HelpArgv is the argv that prints the harness's flags (stage 6 reads them).
	HelpArgv() []string
	// Outputs are the files a run writes in its folder, and where its canonical report is.
	Outputs(runDir string) Outputs

	// Footprint is what the footprint gate compares of the pinned file (size bytes): its
	// size, the size users ship and its code. An error says the file is not a complete
	// artifact.
	Footprint(file string, size int64) (instrument.Binary, error)
	// Region is the timed region the instruction count measures in the artifact.
	Region() instrument.Region
}

// A Problem is what is wrong with an arm's table: the key and why.
type Problem struct{ Key, Msg string }

// BuildOptions configure Build and Cached.
type BuildOptions struct {
	Cache    string               // the build cache ("" = engine/build's default)
	Progress func(build.Progress) // a build's phases; may be nil
	// Executable is the kvparity executable the builtin kind pins ("" = os.Executable()).
	Executable string
}

// Built is what Build obtained: the file the campaign pins, and for a build from source how
// it was built (nil for a file given as is).
type Built struct {
	File string
	Info *build.Info
}

// Pinned is what Label reads of a pinned artifact.
type Pinned struct {
	Source  string // the file it was copied from
	Variant string
	Build   *build.Info
}

// A Process is one run of an arm: the inputs every kind passes on, and the outputs it wants
// written (an empty path: not wanted).
type Process struct {
	Trace   string   // the trace window (or a fixture's trace)
	Args    []string // the row's [replay] args (or a fixture's flags)
	Outputs Outputs
	Variant string // the arm's stand-in revision
}

// Outputs are the files a run writes in its folder.
type Outputs struct {
	Timings   string // one timing record per iteration (the perf stage reads it)
	Canonical string // the canonical report (the determinism stage digests it)
	Progress  string // a progress side channel ("" when the kind has none)
}
