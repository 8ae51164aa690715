package arm

import (
	"context"
	"os"
	"path/filepath"

	"kvparity/engine/instrument"
)

// BuiltinName is the binary value that names the embedded engine, and the source
// artifacts.json and the journal record for its pin.
const BuiltinName = "builtin"

// builtinKind is the embedded engine: the kvparity executable itself, run as `kvparity replay`,
// selected by the arm's variant. It has no source to rebuild: its pinned copy is the artifact.
type builtinKind struct{}

func (builtinKind) Name() string                      { return BuiltinName }
func (builtinKind) Claims(s Spec) bool                { return s.Source == "" && s.Binary == BuiltinName }
func (builtinKind) WithBaseDir(s Spec, _ string) Spec { return s }
func (builtinKind) Revision(s Spec) string            { return s.Revision }
func (builtinKind) Embedded() bool                    { return true }
func (builtinKind) Repinnable() bool                  { return false }
func (builtinKind) HelpArgv() []string                { return []string{"replay", "--help"} }
func (builtinKind) Region() instrument.Region         { return instrument.RegionEmbedded }

func (builtinKind) Check(s Spec, _ string) *Problem {
	if s.Revision == "" {
		return &Problem{"revision", "missing (an immutable commit SHA)"}
	}
	if s.Profile != "" {
		return &Problem{"profile", "only a source kvparity builds takes a build profile"}
	}
	return checkFeatures(s)
}

// Build names the kvparity executable (o.Executable, else this process's own).
func (b builtinKind) Build(_ context.Context, _ Spec, o BuildOptions) (Built, error) {
	return Built{File: b.executable(o)}, nil
}

func (builtinKind) Cached(context.Context, Spec, BuildOptions) (bool, error) { return true, nil }

// executable is the file the builtin kind pins.
func (builtinKind) executable(o BuildOptions) string {
	if o.Executable != "" {
		return o.Executable
	}
	exe, err := os.Executable()
	if err != nil {
		return "kvparity"
	}
	return exe
}

func (builtinKind) Label(p Pinned) string {
	if p.Variant != "" {
		return "builtin (variant " + p.Variant + ")"
	}
	return BuiltinName
}

// Argv runs `kvparity replay` with the arm's variant and, when wanted, its progress side
// channel.
func (builtinKind) Argv(p Process) []string {
	args := append([]string{"replay"}, benchArgv(p)...)
	if p.Variant != "" {
		args = append(args, "--variant", p.Variant)
	}
	if p.Outputs.Progress != "" {
		args = append(args, "--progress-file", p.Outputs.Progress)
	}
	return args
}

// Outputs adds the embedded engine's progress file to the bench's.
func (builtinKind) Outputs(runDir string) Outputs {
	o := benchOutputs(runDir)
	o.Progress = filepath.Join(runDir, "progress.jsonl")
	return o
}

func (builtinKind) Footprint(file string, size int64) (instrument.Binary, error) {
	return elfFootprint(file, size)
}

// PinSource is what artifacts.json and the journal name a pin's origin: BuiltinName for the
// kvparity executable, else the file it was copied from.
func PinSource(embedded bool, file string) string {
	if embedded {
		return BuiltinName
	}
	return file
}

// EmbeddedSource says a recorded pin's source names the kvparity executable.
func EmbeddedSource(source string) bool { return source == BuiltinName }
