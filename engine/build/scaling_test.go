package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// published161 copies the files the timing extension and the scale-events variant edit out of
// the published dynamo-bench 1.6.1 and aisimulate-core 0.13.0 (cargo's registry); it skips
// when they were never fetched.
func published161(t *testing.T) (core, pkg string) {
	t.Helper()
	home, _ := os.UserHomeDir()
	reg := filepath.Join(home, ".cargo", "registry", "src", "index.crates.io-1949cf8c6b5b557f")
	if v := os.Getenv("CARGO_HOME"); v != "" {
		reg = filepath.Join(v, "registry", "src", "index.crates.io-1949cf8c6b5b557f")
	}
	srcCore, srcPkg := filepath.Join(reg, "aisimulate-core-0.13.0"), filepath.Join(reg, "dynamo-bench-1.6.1")
	if _, err := os.Stat(filepath.Join(srcPkg, "offline_replay_bench.rs")); err != nil {
		t.Skip("dynamo-bench 1.6.1 is not in cargo's registry (a real-row build fetches it)")
	}
	dir := t.TempDir()
	core, pkg = filepath.Join(dir, "core"), filepath.Join(dir, "pkg")
	for _, f := range []string{"src/replay/replayer.rs", "src/replay/mod.rs", "src/replay/report.rs", "src/replay/evidence.rs"} {
		copyInto(t, filepath.Join(srcCore, f), filepath.Join(core, f))
	}
	copyInto(t, filepath.Join(srcPkg, "offline_replay_bench.rs"), filepath.Join(pkg, "offline_replay_bench.rs"))
	return core, pkg
}

func copyInto(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// On the published 1.6.1 harness and its replay core, the variant's anchors hold after the
// timing extension's edits; its diff hands the schedule over only when --scale-event is given,
// and the timing extension's diff (the determinism patch) carries none of it.
func TestScaleEventsVariantAnchorsOnPublished161(t *testing.T) {
	core, pkg := published161(t)
	ext, err := applyEdits(core, "timing extension", "aisimulate-core 0.13.0", replayEdits)
	if err != nil {
		t.Fatal(err)
	}
	extHarness, err := applyEdits(pkg, "timing extension", BenchPackage, harnessEdits)
	if err != nil {
		t.Fatal(err)
	}
	coreFiles, err := applyEdits(core, "scale-events variant", "aisimulate-core 0.13.0", scaleCoreEdits)
	if err != nil {
		t.Fatal(err)
	}
	harness, err := applyEdits(pkg, "scale-events variant", BenchPackage, scaleHarnessEdits)
	if err != nil {
		t.Fatal(err)
	}
	vp := unifiedPatch("aisimulate-core-0.13.0", coreFiles) + unifiedPatch(BenchPackage, harness)
	for _, want := range []string{
		"+        let scaling = scaling.or_else(bench_scaling::take);",
		"+pub mod bench_scaling {",
		"+pub use replayer::bench_scaling;",
		`+    #[arg(long = "scale-event", value_name = "AT_MS:WORKERS")]`,
		"+    scale_event: Vec<String>,",
		"+    let kvparity_scale_events = parse_kvparity_scale_events(&args)?;",
		"+        if !kvparity_scale_events.is_empty() {",
		"+    let metadata = kvparity_scale_metadata(metadata);",
		`"kvparity_scale_events"`,
	} {
		if !strings.Contains(vp, want) {
			t.Errorf("variant patch lacks %q:\n%s", want, vp)
		}
	}
	// Every line the variant adds or removes, outside the appended module and functions, is one
	// of these: nothing else of the published code changes.
	var changed int
	for _, l := range strings.Split(vp, "\n") {
		if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && !strings.HasPrefix(l, "+++") && !strings.HasPrefix(l, "---") {
			changed++
			if strings.HasPrefix(l, "-") {
				t.Errorf("the variant removes a line: %q", l)
			}
		}
	}
	if changed > 150 {
		t.Errorf("the variant changes %d lines: more than a small patch", changed)
	}
	detPatch := unifiedPatch("aisimulate-core-0.13.0", ext) + unifiedPatch(BenchPackage, extHarness)
	if strings.Contains(detPatch, "scale") {
		t.Error("the timing extension's patch (the determinism patch) carries the scale-events variant")
	}
	// The schedule reaches the core only through set(), which the harness calls only for a
	// non-empty --scale-event list; the metadata changes only when a schedule was set.
	main, _ := os.ReadFile(filepath.Join(pkg, "offline_replay_bench.rs"))
	if n := strings.Count(string(main), "bench_scaling::set("); n != 1 ||
		!strings.Contains(string(main), "if !kvparity_scale_events.is_empty() {\n            aisimulate_core::replay::bench_scaling::set(") {
		t.Errorf("bench_scaling::set is called %d times, or not only for a non-empty schedule", n)
	}
}

// A version whose code has another shape is refused naming the variant, the file and the
// function, never patched on a guess.
func TestScaleEventsVariantRefusesAMissingAnchor(t *testing.T) {
	core, pkg := published161(t)
	if _, err := applyEdits(core, "timing extension", "aisimulate-core 0.13.0", replayEdits); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(pkg, "offline_replay_bench.rs"))
	os.WriteFile(filepath.Join(pkg, "offline_replay_bench.rs"), []byte(strings.Replace(string(b), "/// Ignored -- passed by cargo bench", "/// Ignored (cargo bench)", 1)), 0o644)
	if _, err := applyEdits(pkg, "scale-events variant", BenchPackage, scaleHarnessEdits); err == nil ||
		!strings.Contains(err.Error(), "scale-events variant: dynamo-bench offline_replay_bench.rs") || !strings.Contains(err.Error(), "in struct Args {") ||
		!strings.Contains(err.Error(), "never patches a guess") {
		t.Fatalf("err = %v", err)
	}
	r, _ := os.ReadFile(filepath.Join(core, "src/replay/replayer.rs"))
	os.WriteFile(filepath.Join(core, "src/replay/replayer.rs"), []byte(strings.Replace(string(r), "let belady_oracle = if", "let oracle = if", 1)), 0o644)
	if _, err := applyEdits(core, "scale-events variant", "aisimulate-core 0.13.0", scaleCoreEdits); err == nil ||
		!strings.Contains(err.Error(), "src/replay/replayer.rs") || !strings.Contains(err.Error(), "in fn run_inner") {
		t.Fatalf("err = %v", err)
	}
}

// Through a whole (fake-toolchain) build, a replay core without the variant's anchor is refused.
func TestScaleEventsVariantBuildRefusesAnotherShape(t *testing.T) {
	fakeToolchain(t, fixtureCopy(t)) // the miniature replay core has no scaling component
	_, err := Build(context.Background(), Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}, Variant: Variant{ScaleEvents: true}}, Options{Cache: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "scale-events variant") || !strings.Contains(err.Error(), "src/replay/replayer.rs") || !strings.Contains(err.Error(), "never patches a guess") {
		t.Fatalf("err = %v", err)
	}
}

// The variant is named in a row as scale-events; it is its own build (cache key), and
// slowdown-PCT still parses as before.
func TestParseVariantTakesScaleEventsAndSlowdowns(t *testing.T) {
	if v, err := ParseVariant("scale-events"); err != nil || !v.ScaleEvents {
		t.Fatalf("scale-events: %+v %v", v, err)
	}
	if v, err := ParseVariant("slowdown-10"); err != nil || v.SlowdownPct != 10 {
		t.Fatalf("slowdown-10: %+v %v", v, err)
	}
	for _, bad := range []string{"scale-event", "scale-events-2", "slowdown-0", "slowdown--1"} {
		if _, err := ParseVariant(bad); err == nil || !strings.Contains(err.Error(), "slowdown-PCT") || !strings.Contains(err.Error(), "scale-events") {
			t.Errorf("ParseVariant(%q) = %v", bad, err)
		}
	}
	spec := Spec{Kind: "crate", Crate: "dynamo-bench", Version: "1.6.1", Features: []string{"replay-bench"}, Variant: Variant{ScaleEvents: true}}
	if spec.variant() != "scale-events" || spec.Variant.sha256() != scaleEventsSHA256() || scaleEventsSHA256() == (Variant{SlowdownPct: 10}).sha256() {
		t.Fatalf("variant %q", spec.variant())
	}
	tc := Toolchain{"rustc 1.95.0", "cargo 1.95.0"}
	plain, slow := spec, spec
	plain.Variant, slow.Variant = Variant{}, Variant{SlowdownPct: 10}
	k := cacheKey(request{spec: spec, toolchain: tc})
	if k == cacheKey(request{spec: plain, toolchain: tc}) || k == cacheKey(request{spec: slow, toolchain: tc}) {
		t.Error("the cache key ignores the scale-events variant")
	}
}
