package build

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// A row may read a file a published crate ships, named crate:NAME@VERSION/PATH: Dynamo's bench
// crate ships its own traces (testdata/mooncake_trace_1000.jsonl), so a real row works from
// any clone without a path outside the repository. The file is read from this machine's cargo
// registry (where cargo unpacks every crate it fetched, a source build included); when it is
// not there the crate is fetched with cargo and the one file kept in the build cache. The
// row's sha256 still checks the bytes.
const CrateFilePrefix = "crate:"

// A CrateFile is a parsed crate:NAME@VERSION/PATH.
type CrateFile struct{ crate, version, path string }

// ParseCrateFile reads crate:NAME@VERSION/PATH; PATH is slash-separated, relative and stays
// inside the crate.
func ParseCrateFile(spec string) (CrateFile, error) {
	rest, ok := strings.CutPrefix(spec, CrateFilePrefix)
	if !ok {
		return CrateFile{}, fmt.Errorf("%q is not crate:NAME@VERSION/PATH", spec)
	}
	pkg, rel, _ := strings.Cut(rest, "/")
	name, version, _ := strings.Cut(pkg, "@")
	clean := path.Clean(rel)
	switch {
	case name == "" || version == "":
		return CrateFile{}, fmt.Errorf("%q: name the crate and its exact version, crate:NAME@VERSION/PATH", spec)
	case rel == "" || path.IsAbs(rel) || clean != rel || clean == ".." || strings.HasPrefix(clean, "../"):
		return CrateFile{}, fmt.Errorf("%q: the file must be a clean path inside the crate (e.g. testdata/trace.jsonl)", spec)
	}
	return CrateFile{crate: name, version: version, path: rel}, nil
}

func (f CrateFile) String() string {
	return CrateFilePrefix + f.crate + "@" + f.version + "/" + f.path
}

// Local returns a local copy of the file: the cargo registry's unpacked crate, or the build
// cache's copy, fetching the crate first when neither has it.
func (f CrateFile) Local(ctx context.Context, cache string) (string, error) {
	if p, ok := f.inRegistry(); ok {
		return p, nil
	}
	kept := filepath.Join(cache, "crate-files", f.crate+"-"+f.version, filepath.FromSlash(f.path))
	if _, err := os.Stat(kept); err == nil {
		return kept, nil
	}
	work, err := os.MkdirTemp(cache, ".crate-file-")
	if err != nil {
		return "", fmt.Errorf("%s: %w", f, err)
	}
	defer os.RemoveAll(work)
	dst := filepath.Join(work, "crate")
	if _, err := fetchCrate(ctx, work, dst, f.crate, f.version); err != nil {
		return "", fmt.Errorf("%s: %w", f, err)
	}
	if p, ok := f.inRegistry(); ok {
		return p, nil
	}
	if err := os.MkdirAll(filepath.Dir(kept), 0o755); err != nil {
		return "", fmt.Errorf("%s: %w", f, err)
	}
	if err := copyFile(filepath.Join(dst, filepath.FromSlash(f.path)), kept); err != nil {
		return "", fmt.Errorf("%s: the crate %s %s ships no %s: %w", f, f.crate, f.version, f.path, err)
	}
	return kept, nil
}

// inRegistry finds the file in the cargo registry's unpacked sources ($CARGO_HOME/registry/src/*/NAME-VERSION/).
func (f CrateFile) inRegistry() (string, bool) {
	home := os.Getenv("CARGO_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", false
		}
		home = filepath.Join(h, ".cargo")
	}
	dirs, _ := filepath.Glob(filepath.Join(home, "registry", "src", "*", f.crate+"-"+f.version))
	for _, d := range dirs {
		p := filepath.Join(d, filepath.FromSlash(f.path))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}
