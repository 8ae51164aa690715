package build

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kvparity/engine/build/buildtest"
)

// Issue 44, item C: a developer adds a dependency to lib/kv-router/Cargo.toml without
// updating Cargo.lock. The worktree build used to fail at once with cargo's raw offline error
// ("retry without the offline flag"), not a word about the lock; now the error says the
// manifest changed since the vendoring and the lock did not, and names the one command that
// updates the lock. Once the lock is updated the build vendors again by itself and builds.
func TestAManifestEditWithoutItsLockSaysSo(t *testing.T) {
	fixture := fixtureCopy(t)
	log := fakeToolchain(t, fixture)
	c := newCheckout(t, fixture, false)
	root := mustRead(t, filepath.Join(c.repo, "Cargo.toml"))
	c.write("Cargo.toml", strings.Replace(root, `members = ["lib/bench"]`, `members = ["lib/bench", "lib/kv-router"]`, 1))
	os.MkdirAll(filepath.Join(c.repo, "lib", "kv-router"), 0o755)
	router := "[package]\nname = \"dynamo-kv-router\"\nversion = \"9.9.9\"\n"
	c.write("lib/kv-router/Cargo.toml", router)
	lock := mustRead(t, filepath.Join(c.repo, "Cargo.lock"))
	c.write("Cargo.lock", lock+"\n[[package]]\nname = \"dynamo-kv-router\"\nversion = \"9.9.9\"\n")
	c.git("add", ".")
	c.git("commit", "-qm", "the router crate")
	cache := t.TempDir()
	spec := Spec{Kind: "worktree", Repo: c.repo, Features: []string{"replay-bench"}}
	if _, err := Build(context.Background(), spec, Options{Cache: cache}); err != nil {
		t.Fatal(err)
	}

	c.write("lib/kv-router/Cargo.toml", router+"\n[dependencies]\nitoa = \"1\"\n")
	_, err := Build(context.Background(), spec, Options{Cache: cache})
	if err == nil {
		t.Fatal("a dependency the lock does not lock was built offline")
	}
	t.Logf("the error: %v", err)
	for _, want := range []string{
		"Cargo.lock is out of date: lib/kv-router/Cargo.toml changed since the dependencies were vendored and Cargo.lock did not",
		"run `cargo update --workspace --manifest-path " + filepath.Join(c.repo, "Cargo.toml") + "` in the checkout",
		"the next build sees the new Cargo.lock and vendors again",
		"cargo said: ", "no matching package named `itoa` found", // cargo's own words stay below
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}

	// What `cargo update --workspace` does: the lock gains the new dependency. The build
	// vendors again from it, by itself, and builds.
	c.write("Cargo.lock", mustRead(t, filepath.Join(c.repo, "Cargo.lock"))+"\n[[package]]\nname = \"itoa\"\nversion = \"1.0.15\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n")
	if _, err := Build(context.Background(), spec, Options{Cache: cache}); err != nil {
		t.Fatalf("after the lock was updated: %v", err)
	}
	vendorings := 0
	for _, call := range calls(t, log) {
		if call == "cargo vendor --locked vendor" {
			vendorings++
		}
	}
	if vendorings != 2 {
		t.Errorf("vendored %d times, want 2 (the first build, then the new lock):\n%s", vendorings, strings.Join(calls(t, log), "\n"))
	}

	// A lock that changed but still does not lock a manifest's dependency: vendoring (--locked)
	// refuses, and the error says why in the same words.
	c.write("lib/kv-router/Cargo.toml", router+"\n[dependencies]\nitoa = \"1\"\nryu = \"1\"\n")
	c.write("Cargo.lock", mustRead(t, filepath.Join(c.repo, "Cargo.lock"))+"\n")
	_, err = Build(context.Background(), spec, Options{Cache: cache})
	if err == nil || !strings.Contains(err.Error(), "vendoring the dependencies of") ||
		!strings.Contains(err.Error(), "Cargo.lock is out of date: a manifest of the checkout declares a dependency its Cargo.lock does not lock") ||
		!strings.Contains(err.Error(), "cargo update --workspace --manifest-path") {
		t.Errorf("vendoring a lock that does not lock the manifests: %v", err)
	}
}

// Issue 44, item D: cargo prints nothing through a long link (LTO), and the build's progress
// used to go silent with it. Now the progress is said again, with the crate being compiled and
// a fresh elapsed time, whenever cargo was silent for progressEvery.
func TestBuildProgressIsNeverSilentThroughALongLink(t *testing.T) {
	old := progressEvery
	progressEvery = 60 * time.Millisecond
	t.Cleanup(func() { progressEvery = old })
	fakeToolchain(t, fixtureCopy(t))
	t.Setenv(buildtest.SilentFor, "900ms")
	var compiling []Progress
	_, err := Build(context.Background(), Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}},
		Options{Cache: t.TempDir(), Progress: func(p Progress) {
			if p.Phase == "compiling" && p.Current == "dynamo-bench v9.9.9" {
				compiling = append(compiling, p)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	// 900 ms of silence at one report per 60–80 ms: well over 5 reports of the last crate.
	if len(compiling) < 6 {
		t.Fatalf("%d progress reports of the crate being linked through 900 ms of silence, want one at least every %v", len(compiling), 4*progressEvery/3)
	}
	elapsed := make([]time.Duration, len(compiling))
	for i, p := range compiling {
		elapsed[i] = p.Elapsed
	}
	if !slices.IsSorted(elapsed) || elapsed[len(elapsed)-1]-elapsed[0] < 600*time.Millisecond {
		t.Errorf("the reports' elapsed times do not advance through the silence: %v", elapsed)
	}
}
