package build

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"kvparity/internal/digest"
)

// The record keeps both locks apart: the published Cargo.lock (as the crate ships it, a copy
// kept in the entry) and the one the build used, which cargo rewrote for the timing
// extension's patched replay crate.
func TestBuildRecordsThePublishedAndThePatchedLock(t *testing.T) {
	fixture := fixtureCopy(t)
	fakeToolchain(t, fixture)
	cache := t.TempDir()
	info, err := Build(context.Background(), fixtureSpec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	published, err := digest.File(filepath.Join(fixture, "dynamo-bench", "Cargo.lock"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, info.CacheKey)
	patched, err := digest.File(filepath.Join(dir, "Cargo.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if info.PublishedLockSHA256 != published || info.LockSHA256 != patched || published == patched {
		t.Errorf("published lock %s (want %s), patched lock %s (want %s, another file)", info.PublishedLockSHA256, published, info.LockSHA256, patched)
	}
	if kept, err := digest.File(filepath.Join(dir, "Cargo.lock.published")); err != nil || kept != published {
		t.Errorf("the entry's copy of the published lock: %s %v", kept, err)
	}
	if info.Recipe != recipe {
		t.Errorf("recipe %q", info.Recipe)
	}
}

// The record keeps the command's environment: what kvparity set (the target folder, plain
// output, line tables) and what the build took from the caller's environment that changes
// what is compiled; that part is in the cache key too, so other flags are another build.
func TestBuildRecordsItsEnvironment(t *testing.T) {
	fakeToolchain(t, fixtureCopy(t))
	cache := t.TempDir()
	plain, err := Build(context.Background(), fixtureSpec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"CARGO_TARGET_DIR=" + filepath.Join(cache, plain.Lineage, "target"), "CARGO_TERM_COLOR=never", "CARGO_TERM_PROGRESS_WHEN=never", "CARGO_PROFILE_RELEASE_DEBUG=line-tables-only"}
	if !slices.Equal(plain.Env, want) || len(plain.InheritedEnv) != 0 {
		t.Errorf("environment %q, inherited %q; want %q and none", plain.Env, plain.InheritedEnv, want)
	}

	t.Setenv("RUSTFLAGS", "-C target-cpu=native")
	t.Setenv("CARGO_PROFILE_RELEASE_LTO", "fat")
	t.Setenv("CARGO_TERM_COLOR", "always") // set over by kvparity: not inherited
	t.Setenv("CARGO_HOME", t.TempDir())    // a location: changes no generated code
	t.Setenv("CARGO_NET_GIT_FETCH_WITH_CLI", "true")
	flagged, err := Build(context.Background(), fixtureSpec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"CARGO_PROFILE_RELEASE_LTO=fat", "RUSTFLAGS=-C target-cpu=native"}; !slices.Equal(flagged.InheritedEnv, want) {
		t.Errorf("inherited %q, want %q", flagged.InheritedEnv, want)
	}
	if flagged.Cached || flagged.CacheKey == plain.CacheKey {
		t.Errorf("other RUSTFLAGS took the plain build from the cache (key %s)", flagged.CacheKey)
	}
}

func TestBuildEnvironmentKeepsWhatChangesCompilation(t *testing.T) {
	got := buildEnvironment([]string{"PATH=/bin", "RUSTFLAGS=-Copt-level=1", "RUSTC_WRAPPER=sccache", "RUST_BACKTRACE=1", "CARGO_TARGET_DIR=/tmp/t",
		"CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER=clang", "CARGO_BUILD_JOBS=2", "CARGO_BUILD_RUSTFLAGS=-g", "RUSTFLAGS=-Copt-level=2", "NOEQUALS"})
	want := []string{"CARGO_BUILD_RUSTFLAGS=-g", "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER=clang", "RUSTC_WRAPPER=sccache", "RUSTFLAGS=-Copt-level=2"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if k := cacheKey(request{spec: fixtureSpec}); k != cacheKey(request{spec: fixtureSpec, inherited: []string{}}) || k == cacheKey(request{spec: fixtureSpec, inherited: want}) {
		t.Error("the inherited environment does not enter the key only when there is one")
	}
	if buildEnv("/w/target")[0] != "CARGO_TARGET_DIR=/w/target" {
		t.Errorf("buildEnv %q", buildEnv("/w/target"))
	}
}
