package build

import (
	"context"
	"kvparity/engine/build/buildtest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A checkout shaped like Dynamo's: a workspace root with its own release profile and a
// [patch.crates-io] table, the bench crate at lib/bench; with core, the replay core is a path
// member at lib/aisimulate-core instead of a registry crate.
type checkout struct {
	t    *testing.T
	repo string
	git  func(args ...string) string
}

const checkoutRoot = `[workspace]
members = ["lib/bench"]
resolver = "2"

[profile.release]
codegen-units = 16

[patch.crates-io]
anyhow = { path = "third_party/anyhow" } # the real manifest ends with such a table
`

func newCheckout(t *testing.T, fixture string, core bool) *checkout {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	c := &checkout{t: t}
	c.repo, c.git = buildtest.Checkout(t, fixture)
	root := checkoutRoot
	if core {
		if err := os.CopyFS(filepath.Join(c.repo, "lib", "aisimulate-core"), os.DirFS(filepath.Join(fixture, "aisimulate-core"))); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(c.repo, "lib", "aisimulate-core", "Cargo.toml"), []byte("[package]\nname = \"aisimulate-core\"\nversion = \"0.13.0\"\n"), 0o644)
		root = strings.Replace(root, `members = ["lib/bench"]`, `members = ["lib/bench", "lib/aisimulate-core"]`, 1)
		lock, _ := os.ReadFile(filepath.Join(c.repo, "Cargo.lock"))
		os.WriteFile(filepath.Join(c.repo, "Cargo.lock"), []byte(strings.Replace(string(lock), patchedLockLines, "", 1)), 0o644)
	}
	os.WriteFile(filepath.Join(c.repo, "Cargo.toml"), []byte(root), 0o644)
	c.git("add", ".")
	c.git("commit", "-qm", "base")
	return c
}

func (c *checkout) write(rel, content string) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.repo, rel), []byte(content), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

func TestCheckoutShapesBuild(t *testing.T) {
	for _, core := range []bool{false, true} {
		t.Run(map[bool]string{false: "registry-core", true: "path-core"}[core], func(t *testing.T) {
			fixture := fixtureCopy(t)
			fakeToolchain(t, fixture)
			c := newCheckout(t, fixture, core)
			cache := t.TempDir()
			info, err := Build(context.Background(), Spec{Kind: "git", Repo: c.repo, Ref: "HEAD", Features: []string{"replay-bench"}}, Options{Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			if info.Commit != c.git("rev-parse", "HEAD") || info.Ref != "HEAD" || info.Source != "git:"+c.repo+"@"+info.Commit {
				t.Errorf("the ref was not resolved and recorded: commit %s ref %q source %s", info.Commit, info.Ref, info.Source)
			}
			if !strings.Contains(info.Profile, "codegen-units") {
				t.Errorf("the workspace's own release profile is not recorded: %s", info.Profile)
			}
			patch, _ := os.ReadFile(info.AppliedPatch)
			root, _ := os.ReadFile(filepath.Join(cache, info.Lineage, "src", "Cargo.toml"))
			if core {
				if !strings.Contains(string(patch), "--- a/lib/aisimulate-core/src/replay/replayer.rs") || strings.Contains(string(root), "patches/") {
					t.Errorf("the in-tree replay core was not edited in place:\n%s\nroot:\n%s", patch, root)
				}
				bench, _ := os.ReadFile(filepath.Join(cache, info.Lineage, "src", "lib", "bench", "Cargo.toml"))
				if !strings.Contains(string(bench), "[dependencies.aisimulate-core]\npath = \"../aisimulate-core\"") {
					t.Errorf("the harness does not depend on the tree's replay core:\n%s", bench)
				}
				return
			}
			// Merged into the checkout's own table: one table, its entry kept.
			if strings.Count(string(root), "[patch.crates-io]") != 1 || !strings.Contains(string(root), "[patch.crates-io]\naisimulate-core = { path = \"patches/aisimulate-core\" }\nanyhow = { path = \"third_party/anyhow\" }") {
				t.Errorf("the patch entry was not merged into the root's table:\n%s", root)
			}
		})
	}
}

func TestCheckoutRefusesShapesItCannotPatch(t *testing.T) {
	fixture := fixtureCopy(t)
	fakeToolchain(t, fixture)
	c := newCheckout(t, fixture, false)
	c.write("Cargo.toml", checkoutRoot+"aisimulate-core = { path = \"elsewhere\" }\n")
	c.git("commit", "-qam", "patch the core twice")
	_, err := Build(context.Background(), Spec{Kind: "git", Repo: c.repo, Ref: "HEAD", Features: []string{"replay-bench"}}, Options{Cache: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "Cargo.toml's [patch.crates-io] already patches aisimulate-core") {
		t.Errorf("a core patched by the checkout while the lock takes the registry's: %v", err)
	}
	lock, _ := os.ReadFile(filepath.Join(c.repo, "Cargo.lock"))
	c.write("Cargo.toml", checkoutRoot)
	c.write("Cargo.lock", strings.Replace(string(lock), "registry+https://github.com/rust-lang/crates.io-index", "git+https://example.com/aisimulate#abc", 1))
	c.git("commit", "-qam", "core from git")
	_, err = Build(context.Background(), Spec{Kind: "git", Repo: c.repo, Ref: "HEAD", Features: []string{"replay-bench"}}, Options{Cache: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "Cargo.lock takes aisimulate-core 0.13.0 from git+https://example.com/aisimulate#abc") {
		t.Errorf("a replay core from git: %v", err)
	}
}

func TestCheckoutSourcesNameTheirCause(t *testing.T) {
	fakeToolchain(t, fixtureCopy(t))
	missing := filepath.Join(t.TempDir(), "missing", "dir")
	for _, kind := range []string{"git", "worktree"} {
		_, err := Build(context.Background(), Spec{Kind: kind, Repo: missing, Ref: "HEAD", Features: []string{"replay-bench"}}, Options{Cache: t.TempDir()})
		if err == nil || err.Error() != "checkout "+missing+": no such folder" {
			t.Errorf("%s: a missing folder: %v", kind, err)
		}
	}
	plain := t.TempDir()
	if _, err := Build(context.Background(), Spec{Kind: "git", Repo: plain, Ref: "HEAD"}, Options{Cache: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "not a git checkout") {
		t.Errorf("a folder that is no checkout: %v", err)
	}
	c := newCheckout(t, fixtureCopy(t), false)
	if _, err := Build(context.Background(), Spec{Kind: "git", Repo: c.repo, Ref: "no-such-branch"}, Options{Cache: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "has no commit no-such-branch (no branch, tag or commit of that name)") {
		t.Errorf("a missing ref: %v", err)
	}
}

// An edit rebuilds in the lineage: unchanged files keep their times (cargo leaves their
// crates alone), the vendored dependencies are kept, and the entry of each revision stays.
func TestCheckoutBuildsAreIncremental(t *testing.T) {
	fixture := fixtureCopy(t)
	log := fakeToolchain(t, fixture)
	c := newCheckout(t, fixture, false)
	cache := t.TempDir()
	spec := Spec{Kind: "git", Repo: c.repo, Ref: "HEAD", Features: []string{"replay-bench"}}
	first, err := Build(context.Background(), spec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if first.Incremental || first.Lineage == "" {
		t.Errorf("the first build of a checkout: incremental %v lineage %q", first.Incremental, first.Lineage)
	}
	src := filepath.Join(cache, first.Lineage, "src")
	old := time.Now().Add(-time.Hour)
	for _, f := range []string{"lib/bench/Cargo.toml", "patches/aisimulate-core/src/replay/agg.rs"} {
		os.Chtimes(filepath.Join(src, f), old, old) // as if compiled an hour ago
	}
	c.write("lib/bench/offline_replay_bench.rs", mustRead(t, filepath.Join(c.repo, "lib/bench/offline_replay_bench.rs"))+"// a one-line edit\n")
	c.git("commit", "-qam", "edit")
	vendorsBefore := countCalls(calls(t, log), "cargo vendor --locked")
	second, err := Build(context.Background(), spec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if second.Lineage != first.Lineage || !second.Incremental || second.CacheKey == first.CacheKey {
		t.Errorf("the second build: lineage %q (first %q), incremental %v, key %s (first %s)", second.Lineage, first.Lineage, second.Incremental, second.CacheKey, first.CacheKey)
	}
	for _, f := range []string{"lib/bench/Cargo.toml", "patches/aisimulate-core/src/replay/agg.rs"} {
		if st, _ := os.Stat(filepath.Join(src, f)); !st.ModTime().Equal(old) {
			t.Errorf("%s is unchanged but got a new time %v: cargo would recompile it", f, st.ModTime())
		}
	}
	if st, _ := os.Stat(filepath.Join(src, "lib/bench/offline_replay_bench.rs")); !st.ModTime().After(old) {
		t.Error("the edited file kept its old time: cargo would not recompile it")
	}
	if second.ChangedFiles < 1 || second.ChangedFiles > 2 { // the edit (and the lock cargo rewrote)
		t.Errorf("changed files %d", second.ChangedFiles)
	}
	if n := countCalls(calls(t, log), "cargo vendor --locked"); n != vendorsBefore {
		t.Errorf("the lock did not change but the dependencies were vendored again (%d calls, %d before)", n, vendorsBefore)
	}
	if !entryHasBinary(filepath.Join(cache, first.CacheKey)) {
		t.Error("the first revision's binary left the cache")
	}
}

func TestFailedBuildLeavesNoEntry(t *testing.T) {
	fakeToolchain(t, fixtureCopy(t))
	t.Setenv("KVPARITY_FAKE_CARGO_FAIL", "mismatched types")
	cache := t.TempDir()
	if _, err := Build(context.Background(), Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}}, Options{Cache: cache}); err == nil {
		t.Fatal("the failing build succeeded")
	}
	// Only its lineage stays (what cargo compiled, for the next build to continue from): no
	// entry, so nothing names the failed build as built.
	des, _ := os.ReadDir(cache)
	var names []string
	for _, d := range des {
		if !strings.HasPrefix(d.Name(), lineagePrefix) {
			names = append(names, d.Name())
		}
	}
	if len(names) != 0 {
		t.Errorf("a failed build left %v in the cache", names)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func countCalls(calls []string, prefix string) int {
	return len(slices.DeleteFunc(slices.Clone(calls), func(c string) bool { return !strings.HasPrefix(c, prefix) }))
}

// entryHasBinary says a cache entry still holds its record and binary.
func entryHasBinary(dir string) bool {
	_, errRecord := os.Stat(filepath.Join(dir, "build.json"))
	_, errBinary := os.Stat(filepath.Join(dir, "bin", BenchTarget))
	return errRecord == nil && errBinary == nil
}

// A worktree is built as it is on disk: edits, untracked files and deletions, never ignored
// files; the checkout (index included) is left exactly as it was, and the diff against the
// base commit says what was measured.
func TestWorktreeBuildsWhatIsOnDisk(t *testing.T) {
	fixture := fixtureCopy(t)
	fakeToolchain(t, fixture)
	c := newCheckout(t, fixture, false)
	c.write(".gitignore", "*.log\n")
	c.git("add", ".gitignore")
	c.git("commit", "-qm", "ignore logs")
	bench := "lib/bench/offline_replay_bench.rs"
	c.write(bench, mustRead(t, filepath.Join(c.repo, bench))+"// work in progress\n")
	c.write("lib/bench/NOTES.md", "untracked, not ignored\n")
	c.write("build.log", "ignored\n")
	statusBefore := c.git("status", "--porcelain") // (git status itself may refresh the index)
	indexBefore, _ := os.Stat(filepath.Join(c.repo, ".git", "index"))
	cache := t.TempDir()
	spec := Spec{Kind: "worktree", Repo: c.repo, Features: []string{"replay-bench"}}
	info, err := Build(context.Background(), spec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if info.Commit != c.git("rev-parse", "HEAD") || len(info.SnapshotSHA256) != 64 || info.Source != "worktree:"+c.repo+"#"+info.SnapshotSHA256 {
		t.Errorf("base %s snapshot %q source %s", info.Commit, info.SnapshotSHA256, info.Source)
	}
	src := filepath.Join(cache, info.Lineage, "src")
	if !strings.Contains(mustRead(t, filepath.Join(src, bench)), "// work in progress") || mustRead(t, filepath.Join(src, "lib/bench/NOTES.md")) == "" {
		t.Error("the build did not get the edit and the untracked file")
	}
	if _, err := os.Stat(filepath.Join(src, "build.log")); err == nil {
		t.Error("an ignored file was built")
	}
	diff := mustRead(t, info.WorktreeDiff)
	for _, want := range []string{"# base commit " + info.Commit, "--- a/" + bench, "+// work in progress", "+++ b/lib/bench/NOTES.md", "+untracked, not ignored"} {
		if !strings.Contains(diff, want) {
			t.Errorf("the worktree diff lacks %q:\n%s", want, diff)
		}
	}
	if strings.Contains(diff, "build.log") {
		t.Errorf("the diff names an ignored file:\n%s", diff)
	}
	indexAfter, _ := os.Stat(filepath.Join(c.repo, ".git", "index"))
	if !indexAfter.ModTime().Equal(indexBefore.ModTime()) || c.git("status", "--porcelain") != statusBefore {
		t.Error("building the worktree changed the checkout or its index")
	}
	// Same content: the cache answers. An edit: a new snapshot, built in the same lineage.
	again, err := Build(context.Background(), spec, Options{Cache: cache})
	if err != nil || !again.Cached || again.SnapshotSHA256 != info.SnapshotSHA256 {
		t.Errorf("an unchanged worktree was not found in the cache: %v %+v", err, again)
	}
	os.Remove(filepath.Join(c.repo, "lib/bench/NOTES.md"))
	edited, err := Build(context.Background(), spec, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if edited.SnapshotSHA256 == info.SnapshotSHA256 || edited.Lineage != info.Lineage || !edited.Incremental {
		t.Errorf("a deletion: snapshot %s (was %s), lineage %s (was %s), incremental %v", edited.SnapshotSHA256, info.SnapshotSHA256, edited.Lineage, info.Lineage, edited.Incremental)
	}
	if _, err := os.Stat(filepath.Join(src, "lib/bench/NOTES.md")); err == nil {
		t.Error("a file deleted from the worktree is still in the build")
	}
}

// A second clone of a repository is the same lineage (issue 44 item 4): its first build reuses
// what the first clone compiled — no new vendoring, unchanged files keep their times — while a
// repository with other roots gets a lineage of its own.
func TestASecondCloneReusesTheFirstClonesLineage(t *testing.T) {
	fixture := fixtureCopy(t)
	log := fakeToolchain(t, fixture)
	c := newCheckout(t, fixture, false)
	cache := t.TempDir()
	first, err := Build(context.Background(), Spec{Kind: "git", Repo: c.repo, Ref: "HEAD", Features: []string{"replay-bench"}}, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(t.TempDir(), "elsewhere", "dynamo")
	if out, err := exec.Command("git", "clone", "-q", c.repo, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	src := filepath.Join(cache, first.Lineage, "src")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(src, "lib/bench/Cargo.toml"), old, old) // as if compiled an hour ago
	vendorsBefore := countCalls(calls(t, log), "cargo vendor --locked")
	second, err := Build(context.Background(), Spec{Kind: "worktree", Repo: clone, Features: []string{"replay-bench"}}, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	// One changed file, as in every rebuild: Cargo.lock, which cargo rewrote for the patched
	// replay crate after the first build.
	if second.Lineage != first.Lineage || !second.Incremental || second.ChangedFiles != 1 {
		t.Errorf("the clone's first build: lineage %q (first clone %q), incremental %v, %d files changed", second.Lineage, first.Lineage, second.Incremental, second.ChangedFiles)
	}
	if st, _ := os.Stat(filepath.Join(src, "lib/bench/Cargo.toml")); !st.ModTime().Equal(old) {
		t.Errorf("the clone's unchanged manifest got a new time %v: cargo would recompile it", st.ModTime())
	}
	if n := countCalls(calls(t, log), "cargo vendor --locked"); n != vendorsBefore {
		t.Errorf("the clone vendored the same lock again (%d calls, %d before)", n, vendorsBefore)
	}
	// Another repository: its first commit has another tree, so another root.
	otherRepo, otherGit := buildtest.Checkout(t, fixtureCopy(t))
	os.WriteFile(filepath.Join(otherRepo, "Cargo.toml"), []byte(checkoutRoot), 0o644)
	os.WriteFile(filepath.Join(otherRepo, "README.md"), []byte("another repository\n"), 0o644)
	otherGit("add", ".")
	otherGit("commit", "-qm", "another root")
	third, err := Build(context.Background(), Spec{Kind: "git", Repo: otherRepo, Ref: "HEAD", Features: []string{"replay-bench"}}, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if third.Lineage == first.Lineage {
		t.Errorf("a repository with another root commit shares the lineage %s", third.Lineage)
	}
}
