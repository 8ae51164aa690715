package build

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kvparity/internal/digest"
)

// A request is everything a build is asked to be: what a cache entry's record must equal
// before its binary is used.
type request struct {
	spec      Spec
	toolchain Toolchain
	inherited []string // buildEnvironment(os.Environ())
}

// newRequest is s built with tc in this process's environment.
func newRequest(s Spec, tc Toolchain) request {
	return request{spec: s, toolchain: tc, inherited: buildEnvironment(os.Environ())}
}

// EntryDir is the folder of cache that holds (or will hold) s built with tc in this process's
// environment.
func EntryDir(cache string, s Spec, tc Toolchain) string {
	return filepath.Join(cache, cacheKey(newRequest(s, tc)))
}

// cacheKey names a build by everything that determines it. The caller's build-affecting
// environment enters the key only when there is one, so the entries built without any keep
// their names.
func cacheKey(r request) string {
	f := slices.Clone(r.spec.Features)
	slices.Sort(f)
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n%s\n%s\n", recipe, r.spec.identity(), strings.Join(f, ","), r.toolchain.Rustc, r.toolchain.Cargo, ExtensionSHA256())
	if v := r.spec.Variant.sha256(); v != "" {
		fmt.Fprintf(h, "%s\n%s\n", r.spec.variant(), v)
	}
	if len(r.inherited) > 0 {
		fmt.Fprintf(h, "env\n%s\n", strings.Join(r.inherited, "\n"))
	}
	if r.spec.desk() { // release builds keep the keys they had before profiles were named
		fmt.Fprintf(h, "profile\n%s\n", ProfileDesk)
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// cached returns the finished build in dir when its record is the build requested and its
// files are the ones recorded. ok is false with why "" when dir holds no finished build, and
// with why saying every difference when it holds another one (or a damaged or edited one):
// the directory name alone is never trusted, since a record can be copied, moved or edited.
func cached(dir string, r request) (info Info, why string, ok bool) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return Info{}, "", false
	}
	if err := entryFolder(dir); err != nil {
		return Info{}, err.Error(), false
	}
	b, err := os.ReadFile(filepath.Join(dir, "build.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, "", false
	}
	if err != nil {
		return Info{}, "its record cannot be read: " + err.Error(), false
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return Info{}, "build.json is not a build record: " + err.Error(), false
	}
	var diffs []string
	differ := func(what string, cachedV, requested any) {
		diffs = append(diffs, fmt.Sprintf("%s: cached %v, requested %v", what, cachedV, requested))
	}
	// A record written before records named their recipe is held to it by its cache key,
	// which commits to the recipe.
	if info.Recipe != "" && info.Recipe != recipe {
		differ("recipe", info.Recipe, recipe)
	}
	if key := filepath.Base(dir); info.CacheKey != key {
		differ("cache key (the record was copied or moved from another entry)", info.CacheKey, key)
	}
	if info.Source != r.spec.identity() {
		differ("source", info.Source, r.spec.identity())
	}
	if have, want := sorted(info.Features), sorted(r.spec.Features); !slices.Equal(have, want) {
		differ("features", fmt.Sprintf("%q", have), fmt.Sprintf("%q", want))
	}
	if info.Rustc != r.toolchain.Rustc {
		differ("toolchain (rustc -vV)", fmt.Sprintf("%q", info.Rustc), fmt.Sprintf("%q", r.toolchain.Rustc))
	}
	if info.Cargo != r.toolchain.Cargo {
		differ("toolchain (cargo -V)", fmt.Sprintf("%q", info.Cargo), fmt.Sprintf("%q", r.toolchain.Cargo))
	}
	if info.ExtensionSHA256 != ExtensionSHA256() {
		differ("timing extension SHA-256", orNone(info.ExtensionSHA256), ExtensionSHA256())
	}
	if info.Variant != r.spec.variant() {
		differ("variant", orNone(info.Variant), orNone(r.spec.variant()))
	}
	if want := r.spec.recordedProfile(); info.BuildProfile != want {
		differ("build profile", ProfileName(info.BuildProfile), ProfileName(want))
	}
	if !slices.Equal(info.InheritedEnv, r.inherited) {
		differ("build environment", fmt.Sprintf("%q", info.InheritedEnv), fmt.Sprintf("%q", r.inherited))
	}
	files := []struct{ what, path, sum string }{{"binary", info.Binary, info.BinarySHA256}, {"applied patch", info.AppliedPatch, info.AppliedPatchSHA256}}
	if info.Variant != "" {
		files = append(files, struct{ what, path, sum string }{"variant patch", info.VariantPatch, info.VariantPatchSHA256})
	}
	for _, f := range files {
		if err := entryFile(dir, f.path, f.sum); err != nil {
			diffs = append(diffs, fmt.Sprintf("%s %s", f.what, err))
		}
	}
	if len(diffs) > 0 {
		return Info{}, strings.Join(diffs, "; "), false
	}
	info.Cached = true
	return info, "", true
}

// entryFolder checks that the entry dir is a folder of the cache itself. In place of a link,
// every check of its files would look inside whatever it points to (those files are "inside"
// the entry as resolved), and the binary found there would run as the cache's own build.
func entryFolder(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	cache := filepath.Dir(dir)
	if st.Mode()&fs.ModeSymlink != 0 {
		to, err := filepath.EvalSymlinks(dir)
		if err != nil { // a dangling link: name what it says
			to, _ = os.Readlink(dir)
		}
		return fmt.Errorf("the entry %s is a link to %s, not a folder of the cache %s", dir, to, cache)
	}
	if !st.IsDir() {
		return fmt.Errorf("the entry %s is not a folder", dir)
	}
	// The cache root itself may be a link (a cache on another disk): compare both resolved.
	realCache, err := filepath.EvalSymlinks(cache)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if !inside(realCache, real) {
		return fmt.Errorf("the entry %s resolves to %s, outside the cache %s", dir, real, cache)
	}
	return nil
}

// isLink says path is a symbolic link (not what it points to).
func isLink(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}

// entryFile checks that a recorded file lies inside the entry dir, with every link on its way
// resolved (a link out of the entry is refused), is a regular file and has the recorded
// SHA-256.
func entryFile(dir, path, sum string) error {
	if path == "" {
		return errors.New("is not recorded")
	}
	if !inside(dir, path) {
		return fmt.Errorf("%s is outside the cache entry %s", path, dir)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s is missing", path)
	}
	if err != nil {
		return err
	}
	if !inside(realDir, real) {
		return fmt.Errorf("%s resolves to %s, outside the cache entry %s", path, real, dir)
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	got, err := digest.File(real)
	if err != nil {
		return err
	}
	if got != sum {
		return fmt.Errorf("%s has SHA-256 %s, not the recorded %s (changed since it was built)", path, got, orNone(sum))
	}
	return nil
}

// inside says path lies under dir (both absolute, compared as written).
func inside(dir, path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
