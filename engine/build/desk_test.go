package build

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// A desk build is the release profile with LTO off, many codegen units and incremental
// compilation, defined on cargo's command line (the checkout's manifest untouched); it is
// another cache entry than the release build of the same source, in the same lineage, and its
// record says it is not the release artifact.
func TestDeskProfileIsAnotherBuildOfTheSameLineage(t *testing.T) {
	log := fakeToolchain(t, fixtureCopy(t))
	cache := t.TempDir()
	release := Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}}
	rel, err := Build(context.Background(), release, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	deskSpec := release
	deskSpec.Profile = ProfileDesk
	desk, err := Build(context.Background(), deskSpec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if desk.Cached || desk.CacheKey == rel.CacheKey || desk.Lineage != rel.Lineage || !desk.Desk() || rel.Desk() {
		t.Fatalf("desk %+v\nrelease %+v", desk, rel)
	}
	cmd := strings.Join(desk.Command, " ")
	for _, want := range []string{"--profile kvparity-desk", `--config profile.kvparity-desk.inherits="release"`, `--config profile.kvparity-desk.lto="off"`,
		"--config profile.kvparity-desk.codegen-units=256", "--config profile.kvparity-desk.incremental=true"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("desk command %q lacks %q", cmd, want)
		}
	}
	if slices.Contains(desk.Command, "--release") || !slices.Contains(rel.Command, "--release") || slices.Contains(rel.Command, "--profile") {
		t.Errorf("commands: desk %q, release %q", desk.Command, rel.Command)
	}
	if !strings.Contains(desk.Profile, DeskNote) || !strings.Contains(desk.Profile, "release (") || strings.Contains(rel.Profile, DeskNote) {
		t.Errorf("profiles: desk %q, release %q", desk.Profile, rel.Profile)
	}
	// Each is found again as itself; a release record is never taken for a desk build.
	again, err := Build(context.Background(), deskSpec, Options{Cache: cache})
	if err != nil || !again.Cached || again.CacheKey != desk.CacheKey {
		t.Fatalf("desk again: %+v %v", again, err)
	}
	req := newRequest(deskSpec, Toolchain{rel.Rustc, rel.Cargo})
	if _, why, ok := cached(cache+"/"+rel.CacheKey, req); ok || !strings.Contains(why, "build profile: cached release, requested desk") {
		t.Errorf("the release entry asked for a desk build: ok %v, %q", ok, why)
	}
	if n := countCalls(calls(t, log), "cargo build"); n != 2 {
		t.Errorf("%d cargo builds, want 2 (release, desk)", n)
	}
}

func TestCheckProfileNamesTheChoices(t *testing.T) {
	for _, ok := range []string{"", "release", "desk"} {
		if err := CheckProfile(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	if err := CheckProfile("fast"); err == nil || !strings.Contains(err.Error(), `"fast" is not a build profile`) || !strings.Contains(err.Error(), DeskNote) {
		t.Errorf("fast: %v", err)
	}
}
