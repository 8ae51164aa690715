package build

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPruneRemovesLeastRecentlyUsedFirst(t *testing.T) {
	cache := t.TempDir()
	mk := func(name string, kb int, age time.Duration) string {
		dir := filepath.Join(cache, name)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "blob"), make([]byte, kb<<10), 0o644)
		os.WriteFile(filepath.Join(dir, usedFile), nil, 0o644)
		when := time.Now().Add(-age)
		os.Chtimes(filepath.Join(dir, usedFile), when, when)
		return dir
	}
	oldest := mk(strings.Repeat("a", 24), 400, 3*time.Hour)
	busyDir := mk("lineage-"+strings.Repeat("b", 24), 400, 2*time.Hour)
	middle := mk(strings.Repeat("c", 24), 400, time.Hour)
	newest := mk(strings.Repeat("d", 24), 400, 0)
	os.MkdirAll(filepath.Join(cache, "crate-files"), 0o755) // not an entry: never listed or removed
	unlock, err := lockDir(busyDir)                         // a build is running in it
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	entries, err := List(cache)
	if err != nil || len(entries) != 4 || entries[0].Dir != oldest || !entries[1].Busy || entries[1].Kind != "lineage" {
		t.Fatalf("List: %v %+v", err, entries)
	}
	removed, err := Prune(cache, 900<<10, newest)
	if err != nil {
		t.Fatal(err)
	}
	// 1.6 MB over a 0.9 MB limit: the oldest and the middle go; the busy lineage and the kept
	// newest stay although the cache is still over its limit.
	if len(removed) != 2 || removed[0].Dir != oldest || removed[1].Dir != middle {
		t.Errorf("removed %+v", removed)
	}
	for _, d := range []string{busyDir, newest, filepath.Join(cache, "crate-files")} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed", d)
		}
	}
	if removed, _ := Prune(cache, 0); len(removed) != 0 {
		t.Error("a limit of 0 (off) removed entries")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"30G": 30 << 30, "500M": 500 << 20, "1.5T": 3 << 39, "10gb": 10 << 30, "off": 0, "0": 0, "2048": 2048} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ten", "-1G", "G"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

// The cache's listing tells a calibrated slowdown's entry from the plain build of its source.
func TestListNamesASlowdownsVariant(t *testing.T) {
	fakeToolchain(t, fixtureCopy(t))
	cache := t.TempDir()
	spec := Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}}
	for _, pct := range []int{0, 10} {
		spec.Variant = Variant{SlowdownPct: pct}
		if _, err := Build(context.Background(), spec, Options{Cache: cache}); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := List(cache)
	if err != nil {
		t.Fatal(err)
	}
	var builds []string
	for _, e := range entries {
		if e.Kind == "build" {
			builds = append(builds, e.Source)
		}
	}
	slices.Sort(builds)
	if want := []string{"crate:dynamo-bench@9.9.9", "crate:dynamo-bench@9.9.9 (slowdown-10)"}; !slices.Equal(builds, want) {
		t.Errorf("listed builds %q, want %q", builds, want)
	}
}
