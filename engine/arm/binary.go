package arm

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"

	"kvparity/engine/instrument"
)

// Binary is a prebuilt offline_replay_bench named by its path, pinned as given.
type Binary struct{}

// hexSHA is an immutable commit SHA, as a given binary's revision must be.
var hexSHA = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

func (Binary) Name() string              { return "binary" }
func (Binary) Claims(s Spec) bool        { return s.Source == "" && s.Binary != BuiltinName }
func (Binary) Revision(s Spec) string    { return s.Revision }
func (Binary) Embedded() bool            { return false }
func (Binary) Repinnable() bool          { return true }
func (Binary) HelpArgv() []string        { return []string{"--help"} }
func (Binary) Region() instrument.Region { return instrument.RegionExtension }
func (Binary) Label(p Pinned) string     { return p.Source }
func (Binary) Argv(p Process) []string {
	return benchArgv(p)
}
func (Binary) Outputs(runDir string) Outputs { return benchOutputs(runDir) }

func (Binary) WithBaseDir(s Spec, dir string) Spec {
	if s.Binary != "" && !filepath.IsAbs(s.Binary) {
		s.Binary = filepath.Join(dir, s.Binary)
	}
	return s
}

func (Binary) Check(s Spec, _ string) *Problem {
	switch {
	case s.Binary == "":
		return &Problem{"binary", "missing (\"builtin\", a path to offline_replay_bench, or a source = \"crate:dynamo-bench@VERSION\" to build)"}
	case s.Revision == "":
		return &Problem{"revision", "missing (an immutable commit SHA)"}
	case !hexSHA.MatchString(s.Revision):
		return &Problem{"revision", fmt.Sprintf("%q is not an immutable commit SHA (7-64 lowercase hex digits); never compare moving branches", s.Revision)}
	case s.Variant != "":
		return &Problem{"variant", "only a builtin binary takes a variant"}
	case s.Profile != "":
		return &Problem{"profile", "only a source kvparity builds takes a build profile (this binary is pinned as it was built)"}
	}
	return checkFeatures(s)
}

// Build names the row's binary: it is pinned as it is.
func (Binary) Build(_ context.Context, s Spec, _ BuildOptions) (Built, error) {
	return Built{File: s.Binary}, nil
}

func (Binary) Cached(context.Context, Spec, BuildOptions) (bool, error) { return true, nil }

func (Binary) Footprint(file string, size int64) (instrument.Binary, error) {
	return elfFootprint(file, size)
}

// checkFeatures refuses an empty feature name.
func checkFeatures(s Spec) *Problem {
	for i, f := range s.Features {
		if f == "" {
			return &Problem{fmt.Sprintf("features[%d]", i), "empty feature name"}
		}
	}
	return nil
}
