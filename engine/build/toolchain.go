package build

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"kvparity/internal/atomicfile"
)

// toolchainFile records, in a build cache, the toolchain its builds were made with. A node
// of a matrix that has no Rust toolchain reads it to find the builds the matrix made (their
// keys name the toolchain); it never builds with it.
const toolchainFile = "toolchain.json"

// RecordToolchain writes the toolchain on PATH into cache's toolchain.json.
func RecordToolchain(ctx context.Context, cache string) error {
	tc, err := readToolchain(ctx)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(tc, "", "  ")
	return atomicfile.Write(filepath.Join(cache, toolchainFile), append(b, '\n'), 0o644)
}

// cacheToolchain is the toolchain to key cache lookups with: the one on PATH, or, where there
// is none, the one recorded in the cache (built is false then: nothing may be compiled).
func cacheToolchain(ctx context.Context, cache string) (tc Toolchain, onPath bool, err error) {
	tc, err = readToolchain(ctx)
	var nf *toolNotFound
	if err == nil || !errors.As(err, &nf) {
		return tc, err == nil, err
	}
	b, rerr := os.ReadFile(filepath.Join(cache, toolchainFile))
	if rerr != nil {
		return Toolchain{}, false, err // no toolchain here, and none recorded: say the first
	}
	if jerr := json.Unmarshal(b, &tc); jerr != nil || tc.Rustc == "" {
		return Toolchain{}, false, fmt.Errorf("%s: not a toolchain record: %v", filepath.Join(cache, toolchainFile), jerr)
	}
	return tc, false, nil
}

// toolNotFound is a tool missing from PATH.
type toolNotFound struct{ name string }

func (e *toolNotFound) Error() string {
	return fmt.Sprintf("%s not found on PATH: the row builds an arm from source, which needs the Rust toolchain (rustup, or your distribution's cargo)", e.name)
}
