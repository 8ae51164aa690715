package arm

import (
	"debug/elf"
	"errors"
	"path/filepath"
	"strings"

	"kvparity/engine/instrument"
)

// The builtin, binary and source-built kinds all run a program that speaks Dynamo's
// offline_replay_bench flags (the embedded engine speaks them too) and pin one executable:
// these are their shared parts.

// benchArgv is offline_replay_bench's argv for p: the trace, the args, one iteration and the
// wanted output files.
func benchArgv(p Process) []string {
	args := append([]string{p.Trace}, p.Args...)
	args = append(args, "--iterations", "1")
	if p.Outputs.Timings != "" {
		args = append(args, "--timings-jsonl", p.Outputs.Timings)
	}
	if p.Outputs.Canonical != "" {
		args = append(args, "--canonical-reports-jsonl", p.Outputs.Canonical)
	}
	return args
}

// benchOutputs are the files offline_replay_bench writes in a run's folder.
func benchOutputs(runDir string) Outputs {
	return Outputs{Timings: filepath.Join(runDir, "timings.jsonl"), Canonical: filepath.Join(runDir, "canonical.jsonl")}
}

// elfFootprint is an executable's footprint: its size, its size without debug sections (as
// users ship it) and its .text section; only the size for a file that is not ELF, e.g. a
// script.
func elfFootprint(file string, size int64) (instrument.Binary, error) {
	b := instrument.Binary{Size: size}
	text, debug, err := elfSizes(file)
	b.TextSize = text
	if text > 0 {
		b.ShippedSize = size - debug
	}
	return b, err
}

// elfSizes are the .text section's size and the bytes the debug sections (.debug_*, and
// compressed .zdebug_*) take in the file; both 0 for a file that is not ELF, e.g. a script.
func elfSizes(path string) (text, debug int64, err error) {
	f, err := elf.Open(path)
	if err != nil {
		var fe *elf.FormatError
		if errors.As(err, &fe) {
			return 0, 0, nil
		}
		return 0, 0, err
	}
	defer f.Close()
	for _, s := range f.Sections {
		switch {
		case s.Name == ".text":
			text = int64(s.Size)
		case s.Type != elf.SHT_NOBITS && (strings.HasPrefix(s.Name, ".debug") || strings.HasPrefix(s.Name, ".zdebug")):
			debug += int64(s.FileSize)
		}
	}
	return text, debug, nil
}
