package build

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// BenchPackage and BenchTarget are what the protocol builds: Dynamo's bench crate and its
// offline_replay_bench target.
const (
	BenchPackage = "dynamo-bench"
	BenchTarget  = "offline_replay_bench"
)

// fetchCrate brings a published crate's package into dst: a one-dependency probe crate is
// vendored (cargo vendor reads the registry), and the crate's own folder becomes the package
// root, with the Cargo.lock it ships. It returns the registry checksum of the .crate.
func fetchCrate(ctx context.Context, work, dst, crate, version string) (string, error) {
	probe := filepath.Join(work, "probe")
	if err := os.MkdirAll(filepath.Join(probe, "src"), 0o755); err != nil {
		return "", err
	}
	manifest := fmt.Sprintf("[package]\nname = \"kvparity-probe\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\n%s = { version = \"=%s\", default-features = false }\n", crate, version)
	if err := os.WriteFile(filepath.Join(probe, "Cargo.toml"), []byte(manifest), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(probe, "src", "lib.rs"), nil, 0o644); err != nil {
		return "", err
	}
	if _, err := run(ctx, probe, nil, "cargo", "vendor", "--versioned-dirs", "vendor"); err != nil {
		return "", fmt.Errorf("fetching %s %s from the package registry: %w", crate, version, err)
	}
	sum, err := lockChecksum(filepath.Join(probe, "Cargo.lock"), crate, version)
	if err != nil {
		return "", err
	}
	src := filepath.Join(probe, "vendor", crate+"-"+version)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return "", fmt.Errorf("copying %s: %w", src, err)
	}
	os.Remove(filepath.Join(dst, ".cargo-checksum.json")) // no longer a vendored directory
	if _, err := os.Stat(filepath.Join(dst, "Cargo.lock")); err != nil {
		return "", fmt.Errorf("%s %s ships no Cargo.lock: the build could not be pinned to the versions its release was tested with", crate, version)
	}
	return sum, nil
}

// lockChecksum reads the registry checksum of name@version from a Cargo.lock.
func lockChecksum(lock, name, version string) (string, error) {
	var l struct {
		Package []struct {
			Name     string `toml:"name"`
			Version  string `toml:"version"`
			Checksum string `toml:"checksum"`
		} `toml:"package"`
	}
	if _, err := toml.DecodeFile(lock, &l); err != nil {
		return "", fmt.Errorf("%s: %w", lock, err)
	}
	for _, p := range l.Package {
		if p.Name == name && (version == "" || p.Version == version) {
			if version == "" {
				return p.Version, nil
			}
			return p.Checksum, nil
		}
	}
	return "", fmt.Errorf("%s: no package %s %s", lock, name, version)
}

// fetchGit extracts one commit of a local checkout into dst with `git archive`: it reads the
// repository's objects only, so the user's checkout, index and refs stay exactly as they were.
func fetchGit(ctx context.Context, work, dst, repo, commit string) error {
	if _, err := run(ctx, repo, nil, "git", "cat-file", "-e", commit+"^{commit}"); err != nil {
		return fmt.Errorf("%s has no commit %s: %w", repo, commit, err)
	}
	archive := filepath.Join(work, "source.tar")
	if _, err := run(ctx, repo, nil, "git", "archive", "--format=tar", "-o", archive, commit); err != nil {
		return err
	}
	return untar(archive, dst)
}

// untar extracts a tar file into dst, refusing entries that would land outside it.
func untar(archive, dst string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", archive, err)
		}
		name := filepath.Clean(h.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("%s: entry %q leaves the folder", archive, h.Name)
		}
		target := filepath.Join(dst, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fs.FileMode(h.Mode)&0o755|0o644)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, tr); err != nil {
				out.Close()
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
		}
	}
}

// A manifest is the part of a package's Cargo.toml the protocol checks.
type manifest struct {
	Package struct {
		Name string `toml:"name"`
		// Version is the package's version; in a checkout's workspace member it is inherited
		// (version.workspace = true) and findPackage fills it from the root's
		// [workspace.package].
		Version string `toml:"-"`
		RawVer  any    `toml:"version"`
	} `toml:"package"`
	Features map[string][]string `toml:"features"`
	Bench    []struct {
		Name             string   `toml:"name"`
		Path             string   `toml:"path"`
		RequiredFeatures []string `toml:"required-features"`
	} `toml:"bench"`
	Workspace *struct {
		Members []string `toml:"members"`
		Package struct {
			Version string `toml:"version"`
		} `toml:"package"`
	} `toml:"workspace"`
	Profile map[string]map[string]any `toml:"profile"`
}

func readManifest(path string) (*manifest, error) {
	var m manifest
	if _, err := toml.DecodeFile(path, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if v, ok := m.Package.RawVer.(string); ok {
		m.Package.Version = v
	}
	return &m, nil
}

// inheritsVersion says the package takes its version from the workspace (version.workspace = true).
func (m *manifest) inheritsVersion() bool {
	t, ok := m.Package.RawVer.(map[string]any)
	return ok && t["workspace"] == true
}

// findPackage finds the folder under root whose Cargo.toml declares package name.
func findPackage(root, name string) (string, *manifest, error) {
	var found string
	var man *manifest
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "target" || d.Name() == "vendor" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.Name() != "Cargo.toml" || found != "" {
			return nil
		}
		m, err := readManifest(p)
		if err == nil && m.Package.Name == name {
			found, man = filepath.Dir(p), m
		}
		return nil
	})
	if err == nil && found == "" {
		err = fmt.Errorf("%s: no Cargo.toml declares package %s", root, name)
	}
	if err == nil && man.inheritsVersion() {
		rm, rerr := readManifest(filepath.Join(root, "Cargo.toml"))
		switch {
		case rerr != nil:
			err = rerr
		case rm.Workspace == nil || rm.Workspace.Package.Version == "":
			err = fmt.Errorf("%s: %s takes version.workspace = true, but the root manifest has no [workspace.package] version", filepath.Join(found, "Cargo.toml"), name)
		default:
			man.Package.Version = rm.Workspace.Package.Version
		}
	}
	return found, man, err
}

// checkManifest holds the row to the package: the bench target must exist and every feature
// must be one the manifest declares. An unknown name stops the row: the protocol (and this
// row) need updating for that version; kvparity never guesses a replacement.
func checkManifest(path string, m *manifest, features []string) error {
	hasBench := slices.ContainsFunc(m.Bench, func(b struct {
		Name             string   `toml:"name"`
		Path             string   `toml:"path"`
		RequiredFeatures []string `toml:"required-features"`
	}) bool {
		return b.Name == BenchTarget
	})
	if !hasBench {
		var names []string
		for _, b := range m.Bench {
			names = append(names, b.Name)
		}
		return fmt.Errorf("%s: %s %s has no [[bench]] %s (its benches: %s): this version predates the protocol's artifact",
			path, m.Package.Name, m.Package.Version, BenchTarget, strings.Join(names, ", "))
	}
	var known []string
	for f := range m.Features {
		known = append(known, f)
	}
	sort.Strings(known)
	for _, f := range features {
		if _, ok := m.Features[f]; !ok {
			return fmt.Errorf("%s: feature %q is not in %s %s's [features] (%s): this protocol needs updating for that version",
				path, f, m.Package.Name, m.Package.Version, strings.Join(known, ", "))
		}
	}
	return nil
}
