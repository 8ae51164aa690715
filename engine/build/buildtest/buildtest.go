// Package buildtest is a fake Rust toolchain for tests that build arms from source without
// compiling anything: the test binary itself plays cargo and rustc (KVPARITY_FAKE_TOOL=1,
// invoked through links named after the tools), with a fixture folder holding a miniature
// dynamo-bench and aisimulate-core as the "registry". Its cargo build checks that the timing
// extension was applied and writes a bench executable: a script, or, with Bench set, a copy of
// a runnable replay with the built tree's digest appended (so each source builds other bytes).
// Only tests import it: a test's TestMain calls Main first.
//
// A commit of a test's checkout chooses how it builds by two files at its root (for tests of
// a history, such as bisect's): FailFile makes the fake cargo build fail with the file's text
// as the compiler error; VariantFile's text is built into the bench (appended after the
// digest), and BuiltVariant reads it back when that bench runs, so a fake replay can write
// another report for that commit.
//
// Like cargo, the fake resolves the tree's manifests against Cargo.lock first (resolve.go): a
// dependency the lock does not lock fails the offline build, and `cargo vendor --locked`, with
// cargo's own words. SilentFor keeps its build silent for a while, as a long link does.
package buildtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// NoRaceExitSleep keeps the processes a test starts from its own binary (fake cargo, rustc
// and replays) from sleeping a second at exit, which a -race binary does by default (the race
// runtime's atexit_sleep_ms): a test that starts hundreds of them would wait minutes. A
// TestMain calls it before m.Run; children inherit it.
func NoRaceExitSleep() {
	os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
}

// Main plays the tool when this process was started as the fake cargo or rustc; ok is false
// (and nothing is done) otherwise. A TestMain calls it before anything else:
//
//	if code, ok := buildtest.Main(); ok { os.Exit(code) }
func Main() (code int, ok bool) {
	if os.Getenv("KVPARITY_FAKE_TOOL") != "1" {
		return 0, false
	}
	name := filepath.Base(os.Args[0])
	if name != "cargo" && name != "rustc" {
		return 0, false
	}
	return fakeTool(name, os.Args[1:]), true
}

// Options of Install.
type Options struct {
	Fixture string // the folder with dynamo-bench/ and aisimulate-core/ (engine/build/testdata)
	// Bench, when set, is a runnable executable the fake build copies as offline_replay_bench
	// (with the built tree's digest appended); else the bench is a script that cannot run.
	Bench string
}

// Install puts the fake cargo and rustc first on PATH for this test; it returns the call log.
func Install(t testing.TB, o Options) string {
	t.Helper()
	bin := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"cargo", "rustc"} {
		if err := os.Symlink(self, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(t.TempDir(), "calls.log")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("KVPARITY_FAKE_TOOL", "1")
	t.Setenv("KVPARITY_FAKE_FIXTURE", o.Fixture)
	t.Setenv("KVPARITY_FAKE_LOG", log)
	t.Setenv("KVPARITY_FAKE_BENCH", o.Bench)
	return log
}

// Calls reads the call log Install returned: one line per tool invocation.
func Calls(t testing.TB, log string) []string {
	b, _ := os.ReadFile(log)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// PatchedLockLines are the registry source and checksum of the fixture's aisimulate-core,
// which a build with the timing extension's [patch.crates-io] drops from the lock.
const PatchedLockLines = "source = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"1d2deb095416b9ff555cbf1053f1eb7832c610b9cae06be37944cd939a6ae2b5\"\n"

// fakeTool is cargo or rustc, as far as Build uses them.
func fakeTool(name string, args []string) int {
	fixture := os.Getenv("KVPARITY_FAKE_FIXTURE")
	logCall(name + " " + strings.Join(args, " "))
	switch {
	case name == "rustc" && slices.Equal(args, []string{"-vV"}):
		fmt.Println("rustc 1.95.0-fake (0000000 2026-04-14)\nhost: x86_64-unknown-linux-gnu")
	case name == "cargo" && slices.Equal(args, []string{"-V"}):
		fmt.Println("cargo 1.95.0-fake")
	case name == "cargo" && len(args) > 0 && args[0] == "vendor" && slices.Contains(args, "--versioned-dirs"):
		// The probe crate: the published package into vendor/NAME-VERSION, its checksum in the lock.
		if err := os.CopyFS("vendor/dynamo-bench-9.9.9", os.DirFS(filepath.Join(fixture, "dynamo-bench"))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 101
		}
		os.WriteFile("Cargo.lock", []byte("version = 4\n\n[[package]]\nname = \"dynamo-bench\"\nversion = \"9.9.9\"\nchecksum = \"abc123\"\n"), 0o644)
	case name == "cargo" && len(args) > 0 && args[0] == "vendor":
		if m, dep := unlocked(); m != "" && slices.Contains(args, "--locked") {
			abs, _ := filepath.Abs("Cargo.lock")
			fmt.Fprintf(os.Stderr, "error: the lock file %s needs to be updated but --locked was passed to prevent this\n", abs)
			fmt.Fprintf(os.Stderr, "If you want to try to generate the lock file without accessing the network, remove the --locked flag and use --offline instead.\n(%s declares %s)\n", m, dep)
			return 101
		}
		if err := os.CopyFS("vendor/aisimulate-core", os.DirFS(filepath.Join(fixture, "aisimulate-core"))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 101
		}
	case name == "cargo" && len(args) > 0 && args[0] == "build":
		if m, dep := unlocked(); m != "" { // cargo resolves before it compiles anything
			vendor, _ := filepath.Abs("vendor")
			fmt.Fprintf(os.Stderr, "error: no matching package named `%s` found\nlocation searched: directory source `%s` (which is replacing registry `crates-io`)\n", dep, vendor)
			fmt.Fprintf(os.Stderr, "required by package `%s`\nperhaps a crate was updated and forgotten to be re-vendored?\n", packageOf(m))
			fmt.Fprintln(os.Stderr, "As a reminder, you're using offline mode (--offline) which can sometimes cause surprising resolution failures, if this error is too confusing you may wish to retry without the offline flag.")
			return 101
		}
		if msg := os.Getenv("KVPARITY_FAKE_CARGO_FAIL"); msg != "" {
			fmt.Fprintln(os.Stderr, "error[E0425]: "+msg)
			return 101
		}
		if msg, err := os.ReadFile(FailFile); err == nil { // this commit does not compile
			fmt.Fprintln(os.Stderr, "error[E0425]: "+strings.TrimSpace(string(msg)))
			return 101
		}
		// The build compiles what the extension wrote: check it is there.
		core, err := os.ReadFile("patches/aisimulate-core/src/replay/replayer.rs")
		inTree := err != nil // the checkout's own replay core, edited in place
		if inTree {
			core, _ = os.ReadFile("lib/aisimulate-core/src/replay/replayer.rs")
		}
		toml, _ := os.ReadFile("Cargo.toml")
		harness, err := os.ReadFile("offline_replay_bench.rs")
		if err != nil { // a workspace: the package is a member
			harness, _ = os.ReadFile("lib/bench/offline_replay_bench.rs")
		}
		if n := strings.Count(string(toml), "[patch.crates-io]"); n > 1 {
			fmt.Fprintln(os.Stderr, "error: duplicate key `patch.crates-io` in Cargo.toml")
			return 101
		}
		if !strings.Contains(string(core), "pub mod bench_timing") || (!inTree && !strings.Contains(string(toml), "aisimulate-core = { path = \"patches/aisimulate-core\" }")) ||
			!strings.Contains(string(harness), `"replay_execution_ms": replay_execution_ms,`) {
			fmt.Fprintln(os.Stderr, "error: the timing extension was not applied")
			return 101
		}
		if os.Getenv("CARGO_PROFILE_RELEASE_DEBUG") != "line-tables-only" {
			fmt.Fprintln(os.Stderr, "error: built without line tables")
			return 101
		}
		// Like cargo, the build rewrites the lock: the patched replay crate is a path source now.
		lock, _ := os.ReadFile("Cargo.lock")
		os.WriteFile("Cargo.lock", []byte(strings.Replace(string(lock), PatchedLockLines, "", 1)), 0o644)
		// As cargo: a custom profile (the desk profile's --profile kvparity-desk) has its own folder.
		profileDir := "release"
		if i := slices.Index(args, "--profile"); i >= 0 && i+1 < len(args) {
			profileDir = args[i+1]
		}
		exe := filepath.Join(os.Getenv("CARGO_TARGET_DIR"), profileDir, "deps", "offline_replay_bench-0123456789abcdef")
		os.MkdirAll(filepath.Dir(exe), 0o755)
		if err := writeBench(exe, args); err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			return 101
		}
		for _, c := range []string{"anyhow v1.0.0", "aisimulate-core v0.13.0 (patches/aisimulate-core)", "dynamo-bench v9.9.9"} {
			fmt.Fprintln(os.Stderr, "   Compiling "+c)
			fmt.Printf(`{"reason":"compiler-artifact","target":{"name":%q,"kind":["lib"]}}`+"\n", strings.Fields(c)[0])
		}
		// SilentFor: the last crate's long link (LTO), during which cargo prints nothing.
		if d, err := time.ParseDuration(os.Getenv(SilentFor)); err == nil {
			time.Sleep(d)
		}
		fmt.Printf(`{"reason":"compiler-artifact","target":{"name":"offline_replay_bench","kind":["bench"]},"executable":%q}`+"\n", exe)
		fmt.Println(`{"reason":"build-finished","success":true}`)
	default:
		fmt.Fprintf(os.Stderr, "fake %s: unexpected arguments %q\n", name, args)
		return 2
	}
	return 0
}

func logCall(s string) {
	if p := os.Getenv("KVPARITY_FAKE_LOG"); p != "" {
		f, _ := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		fmt.Fprintln(f, s)
		f.Close()
	}
}

// writeBench writes the built executable: the runnable Bench with the digest of the tree's
// Rust sources appended (an edit builds other bytes, as a compiler would), or a script.
func writeBench(exe string, args []string) error {
	bench := os.Getenv("KVPARITY_FAKE_BENCH")
	if bench == "" {
		return os.WriteFile(exe, []byte("#!fake offline_replay_bench "+strings.Join(args, " ")+"\n"), 0o755)
	}
	b, err := os.ReadFile(bench)
	if err != nil {
		return err
	}
	h := sha256.New()
	filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && (p == "vendor" || p == "target") {
			return filepath.SkipDir
		}
		if err == nil && strings.HasSuffix(p, ".rs") {
			c, _ := os.ReadFile(p)
			fmt.Fprintf(h, "%s %x\n", p, sha256.Sum256(c))
		}
		return nil
	})
	b = append(b, []byte("\n#kvparity-fake-build "+hex.EncodeToString(h.Sum(nil))+"\n")...)
	if v, err := os.ReadFile(VariantFile); err == nil {
		b = append(b, []byte(variantMark+strings.TrimSpace(string(v))+"\n")...)
	}
	return os.WriteFile(exe, b, 0o755)
}

// SilentFor names the variable whose duration ("2s") the fake cargo build stays silent for
// after its last "Compiling" line, as cargo does through a long link.
const SilentFor = "KVPARITY_FAKE_CARGO_SILENT"

// Files at the root of a checkout the fake cargo reads (see the package comment).
const (
	FailFile    = "kvparity-fake-cargo-fail"
	VariantFile = "kvparity-fake-variant"
)

// variantMark precedes the VariantFile's text at the end of a built bench.
const variantMark = "#kvparity-fake-variant "

// BuiltVariant is the variant built into the running executable (a bench the fake cargo built
// from a tree with a VariantFile), or "" for any other executable.
func BuiltVariant() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	tail := make([]byte, 512) // the marks are appended last: the end of the file holds them
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	n, _ := f.ReadAt(tail, max(0, st.Size()-int64(len(tail))))
	_, v, ok := strings.Cut(string(tail[:n]), "\n"+variantMark)
	if !ok {
		return ""
	}
	return strings.TrimSpace(v)
}

// Checkout makes a git checkout shaped like Dynamo's workspace from the fixture (the miniature
// dynamo-bench at lib/bench, Cargo.lock at the root, a workspace manifest), not yet committed,
// and returns it with git run inside it (fixed identity; the fake tools off). Tests that build
// a git or worktree source start from it.
func Checkout(t testing.TB, fixture string) (repo string, git func(args ...string) string) {
	t.Helper()
	repo = filepath.Join(t.TempDir(), "dynamo")
	if err := os.CopyFS(filepath.Join(repo, "lib", "bench"), os.DirFS(filepath.Join(fixture, "dynamo-bench"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(repo, "lib", "bench", "Cargo.lock"), filepath.Join(repo, "Cargo.lock")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "Cargo.toml"), []byte("[workspace]\nmembers = [\"lib/bench\"]\nresolver = \"2\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git = func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Env = append(os.Environ(), "KVPARITY_FAKE_TOOL=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	return repo, git
}
