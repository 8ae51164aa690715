package build

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// Wiring the timing extension into a source tree. The replay core is found through the
// workspace's Cargo.lock, in one of the shapes Dynamo has shipped or a checkout can have:
//
//   - a registry crate (every published version): its vendored copy is copied to
//     patches/aisimulate-core, edited there, and wired in with [patch.crates-io], merged into
//     the workspace root's own table when it has one (Dynamo's real root manifest ends with
//     one; a second table is a duplicate key);
//   - a path crate in the tree (a workspace member, or a crate the root's [patch.crates-io]
//     points to): edited where it is, so a developer's changes to the replay core are built
//     and measured.
//
// Any other shape (a git source, a core the lock does not have) is refused naming the file.

// replayCore is where the replay crate comes from, read from the lock.
type replayCore struct {
	version string
	source  string // the lock's source ("" for a path crate in the tree)
}

func readReplayCore(lock string) (replayCore, error) {
	var l struct {
		Package []struct {
			Name    string `toml:"name"`
			Version string `toml:"version"`
			Source  string `toml:"source"`
		} `toml:"package"`
	}
	if _, err := toml.DecodeFile(lock, &l); err != nil {
		return replayCore{}, fmt.Errorf("%s: %w", lock, err)
	}
	var found []replayCore
	for _, p := range l.Package {
		if p.Name == ReplayCrate {
			found = append(found, replayCore{version: p.Version, source: p.Source})
		}
	}
	switch {
	case len(found) == 0:
		return replayCore{}, fmt.Errorf("timing extension: %s has no %s, whose Replayer::run_inner holds the replay loop: this version's code does not have the expected shape", lock, ReplayCrate)
	case len(found) > 1:
		return replayCore{}, fmt.Errorf("timing extension: %s has %d versions of %s: kvparity cannot tell which one the bench replays with", lock, len(found), ReplayCrate)
	}
	return found[0], nil
}

// applyExtension edits the replay crate and the harness and wires them together; it returns
// the applied diff and the folder of the replay crate it edited.
func applyExtension(root, pkg string) (patch, core string, err error) {
	lock := filepath.Join(root, "Cargo.lock")
	rc, err := readReplayCore(lock)
	if err != nil {
		return "", "", err
	}
	rootToml := filepath.Join(root, "Cargo.toml")
	var coreFiles []applied
	var label string
	switch {
	case strings.HasPrefix(rc.source, "registry+"):
		vendored := filepath.Join(root, "vendor", ReplayCrate)
		if _, err := os.Stat(vendored); err != nil {
			vendored = filepath.Join(root, "vendor", ReplayCrate+"-"+rc.version)
		}
		core = filepath.Join(root, "patches", ReplayCrate)
		if err := os.CopyFS(core, os.DirFS(vendored)); err != nil {
			return "", "", fmt.Errorf("timing extension: copying %s %s: %w", ReplayCrate, rc.version, err)
		}
		os.Remove(filepath.Join(core, ".cargo-checksum.json"))
		label = ReplayCrate + "-" + rc.version
	case rc.source == "":
		dir, _, err := findPackage(root, ReplayCrate)
		if err != nil {
			return "", "", fmt.Errorf("timing extension: %s has %s %s as a path crate, but %w", lock, ReplayCrate, rc.version, err)
		}
		core = dir
		rel, _ := filepath.Rel(root, dir)
		label = filepath.ToSlash(rel)
	default:
		return "", "", fmt.Errorf("timing extension: %s takes %s %s from %s: kvparity patches a replay core from the registry or in the checkout only (vendor it into the tree, or point [patch.crates-io] at a path)", lock, ReplayCrate, rc.version, rc.source)
	}
	if coreFiles, err = applyEdits(core, "timing extension", ReplayCrate+" "+rc.version, replayEdits); err != nil {
		return "", "", err
	}
	harness, err := applyEdits(pkg, "timing extension", BenchPackage, harnessEdits)
	if err != nil {
		return "", "", err
	}
	// The harness reads the side channel: it needs the replay crate as a direct dependency, at
	// the locked version (the registry's, replaced by the patched copy), or the tree's by path.
	pkgToml := filepath.Join(pkg, "Cargo.toml")
	b, err := os.ReadFile(pkgToml)
	if err != nil {
		return "", "", err
	}
	declares, err := declaresDependency(pkgToml, ReplayCrate)
	if err != nil {
		return "", "", err
	}
	after := string(b)
	if !declares {
		if rc.source == "" {
			rel, _ := filepath.Rel(pkg, core)
			after += fmt.Sprintf("\n[dependencies.%s]\npath = %q\n", ReplayCrate, filepath.ToSlash(rel))
		} else {
			after += fmt.Sprintf("\n[dependencies.%s]\nversion = \"=%s\"\n", ReplayCrate, rc.version)
		}
	}
	var files []applied
	if rc.source != "" {
		// The patched copy replaces the registry's: one entry in the root's [patch.crates-io].
		rb := after
		if pkg != root {
			raw, err := os.ReadFile(rootToml)
			if err != nil {
				return "", "", err
			}
			rb = string(raw)
		}
		rel, _ := filepath.Rel(root, core)
		merged, err := mergePatchEntry(rootToml, rb, ReplayCrate, filepath.ToSlash(rel))
		if err != nil {
			return "", "", err
		}
		if pkg == root {
			after = merged
		} else {
			if err := os.WriteFile(rootToml, []byte(merged), 0o644); err != nil {
				return "", "", err
			}
			files = append(files, applied{file: "(workspace)/Cargo.toml", before: rb, after: merged})
		}
	}
	if after != string(b) {
		if err := os.WriteFile(pkgToml, []byte(after), 0o644); err != nil {
			return "", "", err
		}
		files = append([]applied{{file: "Cargo.toml", before: string(b), after: after}}, files...)
	}
	return unifiedPatch(label, coreFiles) + unifiedPatch(BenchPackage, append(harness, files...)), core, nil
}

// declaresDependency says whether a manifest already has dep among its [dependencies].
func declaresDependency(path, dep string) (bool, error) {
	var m struct {
		Dependencies map[string]any `toml:"dependencies"`
		Patch        map[string]any `toml:"patch"`
	}
	if _, err := toml.DecodeFile(path, &m); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	_, ok := m.Dependencies[dep]
	return ok, nil
}

// patchHeader finds the root's [patch.crates-io] table header (also spelled quoted).
var patchHeader = regexp.MustCompile(`(?m)^[ \t]*\[[ \t]*patch[ \t]*\.[ \t]*("crates-io"|crates-io)[ \t]*\][ \t]*(#.*)?$`)

// mergePatchEntry adds `name = { path = … }` to the manifest's [patch.crates-io]: into the
// table the manifest has (kept in place with its other entries), or as a new table at the end.
// A table that already patches name, or patches written as dotted subtables, is refused naming
// the file: kvparity would have to guess which patch the build means.
func mergePatchEntry(file, manifest, name, path string) (string, error) {
	var m struct {
		Patch map[string]map[string]any `toml:"patch"`
	}
	if _, err := toml.Decode(manifest, &m); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	if _, ok := m.Patch["crates-io"][name]; ok {
		return "", fmt.Errorf("timing extension: %s's [patch.crates-io] already patches %s with a crate the lock takes from the registry: kvparity would have to guess which copy to time", file, name)
	}
	entry := fmt.Sprintf("%s = { path = %q }\n", name, path)
	locs := patchHeader.FindAllStringIndex(manifest, -1)
	switch {
	case len(locs) > 1:
		return "", fmt.Errorf("timing extension: %s has %d [patch.crates-io] tables", file, len(locs))
	case len(locs) == 1:
		end := locs[0][1]
		if end < len(manifest) && manifest[end] == '\n' {
			end++
		} else {
			entry = "\n" + entry
		}
		return manifest[:end] + entry + manifest[end:], nil
	case m.Patch["crates-io"] != nil:
		return "", fmt.Errorf("timing extension: %s writes its crates-io patches as dotted tables ([patch.crates-io.NAME]): add kvparity's entry by hand is not possible; use a [patch.crates-io] table", file)
	}
	return strings.TrimRight(manifest, "\n") + "\n\n[patch.crates-io]\n" + entry, nil
}

// applySlowdown builds the calibrated slowdown into the edited replay crate (after the timing
// extension) and returns its own diff.
func applySlowdown(root, core string, pct int) (string, error) {
	rc, err := readReplayCore(filepath.Join(root, "Cargo.lock"))
	if err != nil {
		return "", err
	}
	files, err := applyEdits(core, fmt.Sprintf("calibrated slowdown-%d", pct), ReplayCrate+" "+rc.version, slowdownEdits(pct))
	if err != nil {
		return "", err
	}
	label := ReplayCrate + "-" + rc.version
	if rc.source == "" {
		rel, _ := filepath.Rel(root, core)
		label = filepath.ToSlash(rel)
	}
	return unifiedPatch(label, files), nil
}
