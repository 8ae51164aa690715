package build

import (
	"context"
	"encoding/json"
	"kvparity/engine/build/buildtest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The build tests run the whole pipeline against a fake toolchain: the test binary itself plays
// cargo and rustc (KVPARITY_FAKE_TOOL=1, invoked through symlinks named after the tools), with
// testdata's miniature dynamo-bench and aisimulate-core as the "registry". Real git is used.
// The real toolchain and the published crates are exercised by the root package's real-row test.

func TestMain(m *testing.M) {
	if code, ok := buildtest.Main(); ok {
		os.Exit(code)
	}
	buildtest.NoRaceExitSleep()
	os.Exit(m.Run())
}

// fakeToolchain puts buildtest's fake cargo and rustc first on PATH; it returns the call log.
func fakeToolchain(t *testing.T, fixture string) string {
	return buildtest.Install(t, buildtest.Options{Fixture: fixture})
}

func calls(t *testing.T, log string) []string { return buildtest.Calls(t, log) }

// patchedLockLines are the fixture's aisimulate-core registry lines (buildtest.PatchedLockLines).
const patchedLockLines = buildtest.PatchedLockLines

func fixtureCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "fixture")
	if err := os.CopyFS(dir, os.DirFS("testdata")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestBuildPublishedCrateAppliesTheExtensionAndCaches(t *testing.T) {
	log := fakeToolchain(t, fixtureCopy(t))
	cache := t.TempDir()
	var phases []string
	spec := Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}}
	info, err := Build(context.Background(), spec, Options{Cache: cache, Progress: func(p Progress) {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"toolchain", "fetching", "vendoring", "patching", "compiling", "done"}; !slices.Equal(phases, want) {
		t.Errorf("phases %v, want %v", phases, want)
	}
	if info.Version != "9.9.9" || info.CrateSHA256 != "abc123" || info.Units != 4 || info.Rustc == "" || !strings.HasPrefix(info.Cargo, "cargo 1.95.0-fake") ||
		info.ExtensionSHA256 != ExtensionSHA256() || info.LockSHA256 == "" || info.ReplayCrate != ReplayCrate || info.Cached {
		t.Errorf("info %+v", info)
	}
	if !slices.Contains(info.Command, "--no-default-features") || !slices.Contains(info.Command, "replay-bench") || slices.Contains(info.Command, "--locked") {
		t.Errorf("command %v", info.Command)
	}
	if b, err := os.ReadFile(info.Binary); err != nil || !strings.HasPrefix(string(b), "#!fake offline_replay_bench") {
		t.Fatalf("binary %s: %v", info.Binary, err)
	}
	patch, _ := os.ReadFile(info.AppliedPatch)
	for _, want := range []string{"+        bench_timing::clear();", "+pub use replayer::bench_timing;",
		"+pub use report::bench_fingerprint;", "+        bench_fingerprint::placement(uuid, pool, logical_worker_id, dp_rank);",
		"+        bench_fingerprint::admission();", "+        crate::replay::report::bench_fingerprint::pressure();",
		`+        determinism: if enabled || cfg!(feature = "replay-bench") {`, `+                    "work_fingerprint": work_fingerprint,`,
		`+                    "replay_execution_ms": replay_execution_ms,`, "+[patch.crates-io]", `+version = "=0.13.0"`} {
		if !strings.Contains(string(patch), want) {
			t.Errorf("applied patch lacks %q:\n%s", want, patch)
		}
	}
	// Only the two run() calls inside run_inner were wrapped, not the one in other().
	if n := strings.Count(string(patch), "+                bench_timing::timed_region(|| runtime.run()).map_err(runtime_error)?.0"); n != 2 {
		t.Errorf("%d run() calls wrapped, want 2", n)
	}
	if _, err := os.Stat(filepath.Join(cache, info.CacheKey, "work")); !os.IsNotExist(err) {
		t.Errorf("the build's sources and target were not removed: %v", err)
	}

	// A second build of the same source, features and toolchain is the cached one: no cargo build.
	before := len(calls(t, log))
	again, err := Build(context.Background(), spec, Options{Cache: cache})
	if err != nil || !again.Cached || again.BinarySHA256 != info.BinarySHA256 {
		t.Fatalf("second build: %+v %v", again, err)
	}
	for _, c := range calls(t, log)[before:] {
		if strings.HasPrefix(c, "cargo build") || strings.HasPrefix(c, "cargo vendor") {
			t.Errorf("the cached build ran %q", c)
		}
	}
	// Other features are another build.
	other := spec
	other.Features = []string{"replay-bench", "test-support"}
	if cacheKey(request{spec: other, toolchain: Toolchain{info.Rustc, info.Cargo}}) == info.CacheKey {
		t.Error("the cache key ignores the features")
	}
}

func TestBuildRefusesUnknownFeaturesAndMissingBench(t *testing.T) {
	fixture := fixtureCopy(t)
	fakeToolchain(t, fixture)
	_, err := Build(context.Background(), Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench", "seeded-router"}},
		Options{Cache: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `feature "seeded-router" is not in dynamo-bench 9.9.9's [features] (default, offline-replay, replay-bench, test-support): this protocol needs updating`) {
		t.Errorf("unknown feature: %v", err)
	}
	toml := filepath.Join(fixture, "dynamo-bench", "Cargo.toml")
	b, _ := os.ReadFile(toml)
	os.WriteFile(toml, []byte(strings.Replace(string(b), `name = "offline_replay_bench"`, `name = "other_bench"`, 1)), 0o644)
	_, err = Build(context.Background(), Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}}, Options{Cache: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "has no [[bench]] offline_replay_bench (its benches: mooncake_bench, other_bench)") {
		t.Errorf("missing bench: %v", err)
	}
}

// A version whose replay loop does not have the expected shape is refused, naming the file and
// the function; nothing is patched by guess.
func TestExtensionRefusesAnUnexpectedShape(t *testing.T) {
	fixture := fixtureCopy(t)
	fakeToolchain(t, fixture)
	rp := filepath.Join(fixture, "aisimulate-core", "src", "replay", "replayer.rs")
	b, _ := os.ReadFile(rp)
	os.WriteFile(rp, []byte(strings.Replace(string(b), "runtime.run().map_err(runtime_error)?.0", "runtime.execute()?.0", 1)), 0o644)
	_, err := Build(context.Background(), Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}}, Options{Cache: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "aisimulate-core 0.13.0 src/replay/replayer.rs: expected 2× `runtime.run().map_err(runtime_error)?.0` in fn run_inner, found 1") ||
		!strings.Contains(err.Error(), "kvparity never patches a guess") {
		t.Errorf("got %v", err)
	}
	// The seeded timed runs and the work fingerprint are anchored the same way: a harness
	// whose capture options have another shape, or a collector without the expected guard.
	for _, c := range []struct{ file, from, to, want string }{
		{"dynamo-bench/offline_replay_bench.rs", "determinism: if enabled {", "determinism: ReplayDeterminism::Random, //",
			"dynamo-bench offline_replay_bench.rs: expected 1× `determinism: if enabled {` in fn canonical_capture_options, found 0"},
		{"aisimulate-core/src/replay/report.rs", "fn on_route_released(", "fn on_route_freed(",
			`aisimulate-core 0.13.0 src/replay/report.rs: expected exactly one function "fn on_route_released", found 0`},
		{"aisimulate-core/src/replay/evidence.rs", "if !self.options.capture_canonical_evidence {\n            return None;", "if self.skip() {\n            return None;",
			"aisimulate-core 0.13.0 src/replay/evidence.rs: expected 1× `if !self.options.capture_canonical_evidence {` in fn record_pressure, found 0"},
	} {
		fixture := fixtureCopy(t)
		fakeToolchain(t, fixture)
		path := filepath.Join(fixture, c.file)
		b, _ := os.ReadFile(path)
		os.WriteFile(path, []byte(strings.Replace(string(b), c.from, c.to, 1)), 0o644)
		_, err := Build(context.Background(), Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}}, Options{Cache: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "kvparity never patches a guess") {
			t.Errorf("%s: got %v\nwant %s", c.file, err, c.want)
		}
	}
	for _, e := range []edit{{within: "fn run_inner(", anchor: "x", count: 1, mode: "after"}} {
		if _, err := e.apply("fn main() {}\n"); err == nil || !strings.Contains(err.Error(), `expected exactly one function "fn run_inner", found 0`) {
			t.Errorf("no run_inner: %v", err)
		}
	}
}

// A git source is read with `git archive`: the user's checkout (worktree, index, HEAD, refs)
// is exactly as it was.
func TestBuildFromAGitCommitLeavesTheCheckoutAlone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	fixture := fixtureCopy(t)
	fakeToolchain(t, fixture)
	repo, git := buildtest.Checkout(t, fixture)
	git("add", ".")
	git("commit", "-qm", "bench")
	commit := git("rev-parse", "HEAD")
	os.WriteFile(filepath.Join(repo, "uncommitted.txt"), []byte("work in progress\n"), 0o644) // the user's own edit
	state := func() string {
		return git("status", "--porcelain") + "|" + git("rev-parse", "HEAD") + "|" + git("for-each-ref") + "|" + git("stash", "list")
	}
	before := state()
	info, err := Build(context.Background(), Spec{Kind: "git", Repo: repo, Commit: commit, Features: []string{"replay-bench"}}, Options{Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if info.Commit != commit || info.Version != "9.9.9" || !slices.Contains(info.Command, "-p") {
		t.Errorf("info %+v", info)
	}
	if after := state(); after != before {
		t.Errorf("the checkout changed:\nbefore %s\nafter  %s", before, after)
	}
	if _, err := Build(context.Background(), Spec{Kind: "git", Repo: repo, Commit: strings.Repeat("0", 40), Features: []string{"replay-bench"}}, Options{Cache: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "has no commit 0000000000") {
		t.Errorf("a missing commit: %v", err)
	}
}

func TestBuildErrorsNameTheCause(t *testing.T) {
	fakeToolchain(t, fixtureCopy(t))
	t.Setenv("KVPARITY_FAKE_CARGO_FAIL", "cannot find value `x` in this scope")
	_, err := Build(context.Background(), Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}}, Options{Cache: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "building crate:dynamo-bench@9.9.9") || !strings.Contains(err.Error(), "error[E0425]: cannot find value `x`") {
		t.Errorf("a failing cargo build: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err = Build(context.Background(), Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9"}, Options{Cache: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "rustc not found on PATH: the row builds an arm from source, which needs the Rust toolchain") {
		t.Errorf("no toolchain: %v", err)
	}
	if _, err := Build(context.Background(), Spec{Kind: "crate", Crate: "serde", Version: "1.0.0"}, Options{Cache: t.TempDir()}); err == nil {
		t.Error("a crate other than dynamo-bench was accepted")
	}
}

func TestInfoJSONIsSnakeCase(t *testing.T) {
	b, _ := json.Marshal(Info{})
	var m map[string]any
	json.Unmarshal(b, &m)
	for k := range m {
		if strings.ToLower(k) != k {
			t.Errorf("key %q", k)
		}
	}
}

// A calibrated slowdown variant is built on top of the timing extension with its own diff: both
// runtimes' drive loops pay it in the one named function, the determinism patch (the applied
// timing extension) does not carry it, and it is another build than the published code.
func TestBuildSlowdownVariantKeepsItsDiffApart(t *testing.T) {
	fakeToolchain(t, fixtureCopy(t))
	cache := t.TempDir()
	spec := Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}, Variant: Variant{SlowdownPct: 10}}
	info, err := Build(context.Background(), spec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if info.Variant != "slowdown-10" || info.VariantPatch == "" || info.VariantPatchSHA256 == "" {
		t.Fatalf("info %+v", info)
	}
	vp, _ := os.ReadFile(info.VariantPatch)
	for _, want := range []string{"src/replay/agg.rs", "src/replay/disagg.rs", "+            kvparity_slowdown.step();",
		"+        kvparity_slowdown.kvparity_calibrated_slowdown(true);", "+    const PCT: f64 = 10.0;", "fn " + slowdownFunction + "("} {
		if !strings.Contains(string(vp), want) {
			t.Errorf("variant patch lacks %q:\n%s", want, vp)
		}
	}
	ext, _ := os.ReadFile(info.AppliedPatch)
	if strings.Contains(string(ext), slowdownFunction) {
		t.Errorf("the timing extension's patch (the determinism patch) carries the slowdown")
	}
	if !strings.Contains(info.Profile, `debug = "line-tables-only"`) {
		t.Errorf("profile %q does not say the line tables", info.Profile)
	}
	plain := spec
	plain.Variant = Variant{}
	tc := Toolchain{info.Rustc, info.Cargo}
	if cacheKey(request{spec: plain, toolchain: tc}) == info.CacheKey ||
		cacheKey(request{spec: Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}, Variant: Variant{SlowdownPct: 20}}, toolchain: tc}) == info.CacheKey {
		t.Error("the cache key ignores the variant")
	}
	for _, bad := range []string{"slowdown-0", "slowdown-1001", "slowdown-05", "leak-wallclock", "slowdown-"} {
		if _, err := ParseVariant(bad); err == nil || !strings.Contains(err.Error(), "slowdown-PCT") {
			t.Errorf("ParseVariant(%q) = %v", bad, err)
		}
	}
}

// A version whose drive loop has another shape is refused, naming the variant and the file.
func TestSlowdownRefusesAnUnexpectedLoop(t *testing.T) {
	fixture := fixtureCopy(t)
	os.WriteFile(filepath.Join(fixture, "aisimulate-core/src/replay/disagg.rs"), []byte("fn run_to_completion(&mut self) {\n    loop { self.step(); }\n}\n"), 0o644)
	fakeToolchain(t, fixture)
	_, err := Build(context.Background(), Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}, Variant: Variant{SlowdownPct: 10}}, Options{Cache: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "calibrated slowdown-10") || !strings.Contains(err.Error(), "src/replay/disagg.rs") || !strings.Contains(err.Error(), "never patches a guess") {
		t.Fatalf("err = %v", err)
	}
}

// A published crate's calibrated slowdown compiles in the plain build's lineage: the same
// vendored dependencies and target folder, with only the replay core's edited files newer, so
// cargo recompiles that crate and its dependents only. The plain build's entry stays.
func TestSlowdownVariantBuildsInThePlainCratesLineage(t *testing.T) {
	log := fakeToolchain(t, fixtureCopy(t))
	cache := t.TempDir()
	plain := Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}}
	first, err := Build(context.Background(), plain, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if first.Lineage == "" || first.Incremental {
		t.Fatalf("the first build of a crate: lineage %q, incremental %v", first.Lineage, first.Incremental)
	}
	src := filepath.Join(cache, first.Lineage, "src")
	old := time.Now().Add(-time.Hour)
	for _, f := range []string{"Cargo.toml", "patches/aisimulate-core/src/replay/agg.rs"} {
		os.Chtimes(filepath.Join(src, f), old, old) // as if compiled an hour ago
	}
	vendorsBefore := countCalls(calls(t, log), "cargo vendor --locked")
	slow := plain
	slow.Variant = Variant{SlowdownPct: 10}
	second, err := Build(context.Background(), slow, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if second.Lineage != first.Lineage || !second.Incremental || second.CacheKey == first.CacheKey {
		t.Errorf("the slowdown: lineage %q (plain %q), incremental %v, key %s (plain %s)", second.Lineage, first.Lineage, second.Incremental, second.CacheKey, first.CacheKey)
	}
	if st, _ := os.Stat(filepath.Join(src, "Cargo.toml")); !st.ModTime().Equal(old) {
		t.Errorf("dynamo-bench's manifest is unchanged but got a new time %v: cargo would recompile it", st.ModTime())
	}
	if st, _ := os.Stat(filepath.Join(src, "patches/aisimulate-core/src/replay/agg.rs")); !st.ModTime().After(old) {
		t.Error("the slowed replay loop kept its old time: cargo would not recompile it")
	}
	if n := countCalls(calls(t, log), "cargo vendor --locked"); n != vendorsBefore {
		t.Errorf("the lock did not change but the dependencies were vendored again (%d calls, %d before)", n, vendorsBefore)
	}
	if !entryHasBinary(filepath.Join(cache, first.CacheKey)) {
		t.Error("the plain build's binary left the cache")
	}
}
