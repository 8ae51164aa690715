package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"kvparity/internal/digest"
)

// A lineage is the builds of one source with everything that determines them except the
// revision and the variant: the same repository (any clone of it: named by its root commits,
// so a second clone of Dynamo reuses what the first compiled), or the same published crate and
// version; features, toolchain and build environment. Its builds share one source folder and
// one cargo target folder, kept in the cache between builds, so a one-line edit recompiles
// only the crates it changes (and their dependents) instead of every dependency. A calibrated
// slowdown is such an edit too: it changes the patched replay core only, so 1.6.1's slowdown-10
// candidate compiles that crate and its dependents beside the plain 1.6.1 build's
// dependencies. The source folder is rewritten for each build, and every file whose content
// did not change gets its previous modification time back: cargo decides what to recompile
// from those times, so which clone a revision came from does not matter, only its content.
// Both arms of a row are built by the same recipe; only where the compiler's output is kept
// differs, so a lineage build equals a clean build of the same tree at the same path.
//
//	lineage-KEY/src      the revision being built (plus vendor/, kept while Cargo.lock is unchanged)
//	lineage-KEY/target   cargo's target folder
//	lineage-KEY/vendored the SHA-256 of the Cargo.lock vendor/ was made from, then one line
//	                     "SHA-256 path" per manifest of the tree it was made with (offline.go)
type lineage struct {
	dir string
}

// lineagePrefix names lineage folders in the cache (build entries are bare keys).
const lineagePrefix = "lineage-"

// lineageKey names a request's lineage: its cache key without the revision and the variant,
// and without the checkout's path. A checkout's commits (git:) and its working tree (worktree:)
// share one: the desk loop's baseline at HEAD and candidate in the working tree differ by the
// edit only, so the candidate's first build recompiles just that; so do two clones of one
// repository.
func lineageKey(r request, source string) string {
	f := sorted(r.spec.Features)
	h := sha256.New()
	fmt.Fprintf(h, "%s\nlineage\n%s\n%s\n%s\n%s\n%s\n", recipe, source, strings.Join(f, ","), r.toolchain.Rustc, r.toolchain.Cargo, ExtensionSHA256())
	if len(r.inherited) > 0 {
		fmt.Fprintf(h, "env\n%s\n", strings.Join(r.inherited, "\n"))
	}
	return lineagePrefix + hex.EncodeToString(h.Sum(nil))[:24]
}

// lineageSource is what a lineage builds from: a repository, named by the root commits of the
// commit being built (any clone, any revision; its path when git cannot say), or a published
// crate and version (its only revision).
func lineageSource(ctx context.Context, s Spec) string {
	if !s.Checkout() {
		return s.identity()
	}
	if roots, err := rootCommits(ctx, s.Repo, s.Commit); err == nil {
		return "repository:" + roots
	}
	return s.Repo
}

// rootCommits are the commits without parents that commit descends from, sorted and joined
// by commas: what every clone of a repository has in common, whatever its path.
func rootCommits(ctx context.Context, repo, commit string) (string, error) {
	if commit == "" {
		return "", errors.New("no commit")
	}
	out, err := run(ctx, repo, gitEnv, "git", "rev-list", "--max-parents=0", commit, "--")
	if err != nil {
		return "", err
	}
	roots := strings.Fields(string(out))
	if len(roots) == 0 {
		return "", errors.New("no root commit")
	}
	sort.Strings(roots)
	return strings.Join(roots, ","), nil
}

// lineageSourceName is what `kvparity cache` lists a lineage as: the checkout whose build
// last used it (a lineage shared by clones lists the latest), or the published crate.
func lineageSourceName(s Spec) string {
	if s.Checkout() {
		return "checkout:" + s.Repo
	}
	return s.identity()
}

func (l lineage) src() string    { return filepath.Join(l.dir, "src") }
func (l lineage) target() string { return filepath.Join(l.dir, "target") }

// stamp is what a source file was before the lineage's folder was rewritten.
type stamp struct {
	sha256  string
	modTime time.Time
}

// clear empties the source folder for the next revision and returns the stamps of the files
// it removed. The vendored dependencies are set aside (lineage-KEY/vendor.kept) rather than
// removed: fetching the next revision into an empty folder lets a checkout's own vendor/ be
// told apart from kvparity's, and keep puts them back when the lock is unchanged.
func (l lineage) clear() (map[string]stamp, error) {
	stamps := map[string]stamp{}
	src := l.src()
	if err := os.MkdirAll(src, 0o755); err != nil {
		return nil, err
	}
	kept := filepath.Join(l.dir, "vendor.kept")
	if err := os.RemoveAll(kept); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(src, "vendor")); err == nil {
		if err := os.Rename(filepath.Join(src, "vendor"), kept); err != nil {
			return nil, fmt.Errorf("lineage %s: %w", l.dir, err)
		}
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		sum, err := digest.File(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		stamps[rel] = stamp{sha256: sum, modTime: st.ModTime()}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("lineage %s: %w", l.dir, err)
	}
	if err := os.RemoveAll(src); err != nil {
		return nil, fmt.Errorf("lineage %s: %w", l.dir, err)
	}
	return stamps, os.MkdirAll(src, 0o755)
}

// keepVendor puts the set-aside vendor/ back when it was made from a Cargo.lock with this
// SHA-256, and reports whether it did (else the build vendors again), with the manifests the
// vendoring saw (nil when its record predates them).
func (l lineage) keepVendor(lockSHA string) (bool, map[string]string, error) {
	kept := filepath.Join(l.dir, "vendor.kept")
	b, err := os.ReadFile(filepath.Join(l.dir, "vendored"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if _, statErr := os.Stat(kept); err != nil || statErr != nil || strings.TrimSpace(lines[0]) != lockSHA {
		os.Remove(filepath.Join(l.dir, "vendored"))
		return false, nil, os.RemoveAll(kept)
	}
	var manifests map[string]string
	for _, line := range lines[1:] {
		if sum, path, ok := strings.Cut(line, " "); ok {
			if manifests == nil {
				manifests = map[string]string{}
			}
			manifests[path] = sum
		}
	}
	return true, manifests, os.Rename(kept, filepath.Join(l.src(), "vendor"))
}

// markVendored records what vendor/ was made from: the lock, and the tree's manifests.
func (l lineage) markVendored(lockSHA string, manifests map[string]string) error {
	var b strings.Builder
	b.WriteString(lockSHA + "\n")
	paths := make([]string, 0, len(manifests))
	for p := range manifests {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(&b, "%s %s\n", manifests[p], p)
	}
	return os.WriteFile(filepath.Join(l.dir, "vendored"), []byte(b.String()), 0o644)
}

// restore gives every file whose content equals what it was before the rewrite its previous
// modification time back, and returns how many files changed (new or edited). vendor/ is
// not walked: it was kept whole or made anew.
func (l lineage) restore(stamps map[string]stamp) (changed int, err error) {
	src := l.src()
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && rel == "vendor" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		old, ok := stamps[rel]
		if !ok {
			changed++
			return nil
		}
		sum, err := digest.File(p)
		if err != nil {
			return err
		}
		if sum != old.sha256 {
			changed++
			return nil
		}
		return os.Chtimes(p, old.modTime, old.modTime)
	})
	return changed, err
}

// checkNoClash refuses a checkout whose own top-level folder would be mistaken for what
// kvparity adds to its copy (the vendored dependencies, the patched replay crate).
func checkNoClash(src string) error {
	for _, name := range []string{"vendor", "patches"} {
		if _, err := os.Lstat(filepath.Join(src, name)); err == nil {
			return fmt.Errorf("the checkout has its own top-level %s/ folder, which kvparity's copy uses for the build (%s): rename it in a branch to build this checkout", name,
				map[string]string{"vendor": "the dependencies cargo vendor writes", "patches": "the timing extension's patched replay crate"}[name])
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
