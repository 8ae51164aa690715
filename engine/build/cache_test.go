package build

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var fixtureSpec = Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}}

// editRecord rewrites the cache entry's build.json through edit.
func editRecord(t *testing.T, dir string, edit func(*Info)) {
	t.Helper()
	var info Info
	b, err := os.ReadFile(filepath.Join(dir, "build.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	edit(&info)
	if b, err = json.Marshal(info); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "build.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A cache entry is used only when its record is the build requested and its files are the
// recorded ones; otherwise the build starts over, and the progress says which entry was
// refused and what differed. Each case tampers with a finished entry the way a copied,
// moved, edited or damaged cache would be.
func TestCacheEntryIsVerifiedOrRebuiltWithAWarning(t *testing.T) {
	outside := t.TempDir() // a folder outside the cache
	cases := []struct {
		name   string
		tamper func(t *testing.T, dir string)
		want   string
	}{
		{"binary outside the entry", func(t *testing.T, dir string) {
			elsewhere := filepath.Join(outside, "offline_replay_bench")
			if err := copyFile(filepath.Join(dir, "bin", BenchTarget), elsewhere); err != nil {
				t.Fatal(err)
			}
			editRecord(t, dir, func(i *Info) { i.Binary = elsewhere }) // same bytes, same checksum
		}, "binary " + filepath.Join(outside, "offline_replay_bench") + " is outside the cache entry"},
		{"binary a link out of the entry", func(t *testing.T, dir string) {
			bin := filepath.Join(dir, "bin", BenchTarget)
			elsewhere := filepath.Join(outside, "linked_bench")
			if err := os.Rename(bin, elsewhere); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, bin); err != nil {
				t.Fatal(err)
			}
		}, "resolves to " + filepath.Join(outside, "linked_bench") + ", outside the cache entry"},
		{"binary missing", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "bin", BenchTarget))
		}, BenchTarget + " is missing"},
		{"binary changed", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "bin", BenchTarget), []byte("#!another build\n"), 0o755)
		}, "not the recorded"},
		{"applied patch changed", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "timing-extension.patch"), []byte("--- edited\n"), 0o644)
		}, "timing-extension.patch has SHA-256"},
		{"source differs", func(t *testing.T, dir string) {
			editRecord(t, dir, func(i *Info) { i.Source = "crate:dynamo-bench@9.9.8" })
		}, "source: cached crate:dynamo-bench@9.9.8, requested crate:dynamo-bench@9.9.9"},
		{"features differ", func(t *testing.T, dir string) {
			editRecord(t, dir, func(i *Info) { i.Features = []string{"replay-bench", "test-support"} })
		}, `features: cached ["replay-bench" "test-support"], requested ["replay-bench"]`},
		{"toolchain differs", func(t *testing.T, dir string) {
			editRecord(t, dir, func(i *Info) { i.Rustc = "rustc 1.94.0 (4a4ef493e 2026-03-02)" })
		}, `toolchain (rustc -vV): cached "rustc 1.94.0 (4a4ef493e 2026-03-02)", requested "rustc 1.95.0-fake`},
		{"recipe differs", func(t *testing.T, dir string) {
			editRecord(t, dir, func(i *Info) { i.Recipe = "kvparity-build/1" })
		}, "recipe: cached kvparity-build/1, requested " + recipe},
		{"timing extension differs", func(t *testing.T, dir string) {
			editRecord(t, dir, func(i *Info) { i.ExtensionSHA256 = strings.Repeat("0", 64) })
		}, "timing extension SHA-256: cached " + strings.Repeat("0", 64)},
		{"variant differs", func(t *testing.T, dir string) {
			editRecord(t, dir, func(i *Info) { i.Variant = "slowdown-10" })
		}, "variant: cached slowdown-10, requested none"},
		{"environment differs", func(t *testing.T, dir string) {
			editRecord(t, dir, func(i *Info) { i.InheritedEnv = []string{"RUSTFLAGS=-C target-cpu=native"} })
		}, `build environment: cached ["RUSTFLAGS=-C target-cpu=native"], requested []`},
		{"record of another entry", func(t *testing.T, dir string) {
			editRecord(t, dir, func(i *Info) { i.CacheKey = "0123456789abcdef01234567" })
		}, "cache key (the record was copied or moved from another entry): cached 0123456789abcdef01234567"},
		{"record damaged", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "build.json"), []byte(`{"binary": `), 0o644)
		}, "build.json is not a build record"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log := fakeToolchain(t, fixtureCopy(t))
			cache := t.TempDir()
			first, err := Build(context.Background(), fixtureSpec, Options{Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(cache, first.CacheKey)
			tc.tamper(t, dir)
			before := len(calls(t, log))
			var warnings []string
			again, err := Build(context.Background(), fixtureSpec, Options{Cache: cache, Progress: func(p Progress) {
				if p.Warning != "" {
					warnings = append(warnings, p.Phase+": "+p.Warning)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if again.Cached || !slices.ContainsFunc(calls(t, log)[before:], func(c string) bool { return strings.HasPrefix(c, "cargo build") }) {
				t.Fatalf("the tampered entry was used: %+v", again)
			}
			if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "rebuilding: the cached build in "+dir+" cannot be used (") ||
				!strings.Contains(warnings[0], tc.want) || !strings.HasSuffix(warnings[0], "): building it again") {
				t.Errorf("warnings %q, want one naming %q", warnings, tc.want)
			}
			// The rebuilt entry is whole again, and what lay outside the cache was left alone.
			if _, why, ok := cached(dir, request{spec: fixtureSpec, toolchain: Toolchain{again.Rustc, again.Cargo}}); !ok {
				t.Errorf("the rebuilt entry is refused: %s", why)
			}
			if !inside(dir, again.Binary) {
				t.Errorf("rebuilt binary %s outside %s", again.Binary, dir)
			}
			entries, _ := os.ReadDir(outside)
			for _, e := range entries {
				if b, err := os.ReadFile(filepath.Join(outside, e.Name())); err != nil || !strings.HasPrefix(string(b), "#!fake offline_replay_bench") {
					t.Errorf("%s outside the cache changed: %q %v", e.Name(), b, err)
				}
			}
		})
	}
}

// A sound entry is taken as it is, whatever order its features were written in; a folder
// without a finished build is no warning.
func TestCachedAcceptsASoundEntrySilently(t *testing.T) {
	fakeToolchain(t, fixtureCopy(t))
	cache := t.TempDir()
	spec := fixtureSpec
	spec.Features = []string{"replay-bench", "test-support"}
	info, err := Build(context.Background(), spec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, info.CacheKey)
	reordered := spec
	reordered.Features = []string{"test-support", "replay-bench"}
	got, why, ok := cached(dir, request{spec: reordered, toolchain: Toolchain{info.Rustc, info.Cargo}})
	if !ok || !got.Cached || got.BinarySHA256 != info.BinarySHA256 {
		t.Errorf("a sound entry was refused: %s", why)
	}
	if _, why, ok := cached(filepath.Join(cache, "no-such-entry"), request{spec: spec}); ok || why != "" {
		t.Errorf("an empty folder: ok %v, why %q", ok, why)
	}
	// An interrupted build leaves its work folder and no record: nothing to warn about.
	os.MkdirAll(filepath.Join(cache, "interrupted", "work"), 0o755)
	if _, why, ok := cached(filepath.Join(cache, "interrupted"), request{spec: spec}); ok || why != "" {
		t.Errorf("an interrupted build: ok %v, why %q", ok, why)
	}
}

// A record written before records named their recipe (recipe 2's first builds, such as the
// published crates already in users' caches) is still used: its cache key commits to the
// recipe, and the key is checked.
func TestCachedAcceptsARecordWithoutItsRecipe(t *testing.T) {
	fakeToolchain(t, fixtureCopy(t))
	cache := t.TempDir()
	info, err := Build(context.Background(), fixtureSpec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, info.CacheKey)
	editRecord(t, dir, func(i *Info) { i.Recipe = "" })
	if _, why, ok := cached(dir, request{spec: fixtureSpec, toolchain: Toolchain{info.Rustc, info.Cargo}}); !ok {
		t.Errorf("refused: %s", why)
	}
}

// A cache entry whose folder is itself a link out of the cache is refused like a binary
// linked out of it: the warning names the entry and where it points, nothing found there is
// taken (so nothing of it runs), the link is replaced by a folder of the cache built again,
// and what it pointed to is left as it was.
func TestCacheEntryFolderLinkedOutOfTheCacheIsRefused(t *testing.T) {
	log := fakeToolchain(t, fixtureCopy(t))
	cache := t.TempDir()
	first, err := Build(context.Background(), fixtureSpec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, first.CacheKey)
	elsewhere := filepath.Join(t.TempDir(), "planted")
	if err := os.Rename(dir, elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, dir); err != nil {
		t.Fatal(err)
	}
	// The planted folder holds a sound build record of its own: every other check passes.
	planted, err := os.ReadFile(filepath.Join(elsewhere, "bin", BenchTarget))
	if err != nil {
		t.Fatal(err)
	}
	req := request{spec: fixtureSpec, toolchain: Toolchain{first.Rustc, first.Cargo}}
	want := "the entry " + dir + " is a link to " + elsewhere + ", not a folder of the cache " + cache
	if _, why, ok := cached(dir, req); ok || why != want {
		t.Fatalf("cached: ok %v, why %q; want refused with %q", ok, why, want)
	}
	before := len(calls(t, log))
	var warnings []string
	again, err := Build(context.Background(), fixtureSpec, Options{Cache: cache, Progress: func(p Progress) {
		if p.Warning != "" {
			warnings = append(warnings, p.Phase+": "+p.Warning)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if again.Cached || !slices.ContainsFunc(calls(t, log)[before:], func(c string) bool { return strings.HasPrefix(c, "cargo build") }) {
		t.Fatalf("the linked entry was used: %+v", again)
	}
	if len(warnings) != 1 || warnings[0] != "rebuilding: "+refused(dir, want) {
		t.Errorf("warnings %q, want one naming the entry and where it points (%q)", warnings, want)
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		t.Errorf("the rebuilt entry %s is not a folder of the cache: %v %v", dir, st, err)
	}
	if !inside(dir, again.Binary) {
		t.Errorf("rebuilt binary %s outside %s", again.Binary, dir)
	}
	if b, err := os.ReadFile(filepath.Join(elsewhere, "bin", BenchTarget)); err != nil || string(b) != string(planted) {
		t.Errorf("the folder the link pointed to was changed: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "build.json")); err != nil {
		t.Errorf("the folder the link pointed to lost its record: %v", err)
	}
}

// A dangling link in an entry's place is refused naming what it says, and replaced by a
// fresh build rather than written through.
func TestCacheEntryDanglingLinkIsReplaced(t *testing.T) {
	fakeToolchain(t, fixtureCopy(t))
	cache := t.TempDir()
	first, err := Build(context.Background(), fixtureSpec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, first.CacheKey)
	gone := filepath.Join(t.TempDir(), "gone")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(gone, dir); err != nil {
		t.Fatal(err)
	}
	if _, why, ok := cached(dir, request{spec: fixtureSpec}); ok || !strings.Contains(why, "is a link to "+gone) {
		t.Errorf("cached: ok %v, why %q", ok, why)
	}
	again, err := Build(context.Background(), fixtureSpec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() || again.Cached {
		t.Errorf("the entry was not rebuilt as a folder: %v %v cached %v", st, err, again.Cached)
	}
	if _, err := os.Lstat(gone); !os.IsNotExist(err) {
		t.Errorf("the rebuild wrote through the link into %s: %v", gone, err)
	}
}

// A cache whose root is a link (a cache on another disk) is no entry out of the cache: its
// sound entries are used as they are.
func TestCacheRootLinkIsNoEntryLink(t *testing.T) {
	log := fakeToolchain(t, fixtureCopy(t))
	root := t.TempDir()
	cache := filepath.Join(t.TempDir(), "cache")
	if err := os.Symlink(root, cache); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), fixtureSpec, Options{Cache: cache}); err != nil {
		t.Fatal(err)
	}
	before := len(calls(t, log))
	again, err := Build(context.Background(), fixtureSpec, Options{Cache: cache, Progress: func(p Progress) {
		if p.Warning != "" {
			t.Errorf("warning: %s", p.Warning)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Cached || slices.ContainsFunc(calls(t, log)[before:], func(c string) bool { return strings.HasPrefix(c, "cargo build") }) {
		t.Errorf("the sound entry under a linked cache root was rebuilt: %+v", again)
	}
}
