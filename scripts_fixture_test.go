package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 44, item D: scripts/desk-loop.sh and scripts/bisect-fixture.sh remake their checkout
// in DESK_DIR/dynamo (BISECT_DIR/dynamo) every run. Pointed at a real checkout's parent they
// used to delete it; now they delete only a folder they made (a marker in its .git) and refuse
// any other, naming it. The scripts run up to making the fixture, with stand-ins for tmux and
// cargo that fail, so nothing is built or fetched.
func TestFixtureScriptsDeleteOnlyWhatTheyMade(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	stubs := t.TempDir()
	for _, tool := range []string{"tmux", "cargo"} {
		if err := os.WriteFile(filepath.Join(stubs, tool), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// checkout-shape.sh takes the checkout folder itself (CHECKOUT); CI points it at the desk
	// loop's folder, so the three scripts share one marker.
	for _, c := range []struct {
		script, dirVar string
		whole          bool
	}{{"scripts/desk-loop.sh", "DESK_DIR", false}, {"scripts/bisect-fixture.sh", "BISECT_DIR", false}, {"scripts/checkout-shape.sh", "CHECKOUT", true}} {
		t.Run(filepath.Base(c.script), func(t *testing.T) {
			parent := t.TempDir()
			checkout := filepath.Join(parent, "dynamo")
			work := filepath.Join(checkout, "lib", "kv-router", "src", "lib.rs")
			if err := os.MkdirAll(filepath.Dir(work), 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(work, []byte("// a developer's uncommitted work\n"), 0o644)
			run := func() (int, string) {
				cmd := exec.Command("bash", c.script)
				dir := parent
				if c.whole {
					dir = checkout
				}
				cmd.Env = append(os.Environ(), c.dirVar+"="+dir, "KVPARITY_BIN=/bin/true", "TMPDIR="+t.TempDir(),
					"KVPARITY_FIXTURE_CACHE="+t.TempDir(), "PATH="+stubs+string(os.PathListSeparator)+os.Getenv("PATH"))
				out, err := cmd.CombinedOutput()
				var ee *exec.ExitError
				if err != nil && !errors.As(err, &ee) {
					t.Fatal(err)
				}
				return cmd.ProcessState.ExitCode(), string(out)
			}
			code, out := run()
			if _, err := os.Stat(work); err != nil {
				t.Fatalf("%s deleted a checkout it did not make (exit %d):\n%s", c.script, code, out)
			}
			if code != 2 || !strings.Contains(out, checkout+" exists and was not made by "+filepath.Base(c.script)) ||
				!strings.Contains(out, "refusing to delete it; set "+c.dirVar+" to another folder") {
				t.Fatalf("exit %d, want 2 and the refusal naming the folder and %s:\n%s", code, c.dirVar, out)
			}
			// A checkout the script made carries its marker: that one is deleted and made again
			// (here the stand-in cargo stops the making).
			os.MkdirAll(filepath.Join(checkout, ".git"), 0o755)
			os.WriteFile(filepath.Join(checkout, ".git", "kvparity-fixture"), []byte("made by the script\n"), 0o644)
			if code, out := run(); code == 0 || !errors.Is(statErr(work), os.ErrNotExist) {
				t.Fatalf("a checkout the script made was not deleted (exit %d):\n%s", code, out)
			}
		})
	}
}

func statErr(p string) error { _, err := os.Stat(p); return err }

// Issue 41 item 4: dynamo-checkout.sh --version 1.4.2 lays out seed 000's release (no separate
// replay core; the KVBM crates as published registry crates) with the published lock's every
// third-party version, heck 0.4.1 included, which the workspace's resolve drops for the heck
// 0.5.0 a member's dev-dependency brings: the script puts it back where cargo writes it, and
// cargo accepts the lock as it stands. Its commits have the same SHAs on every machine.
func TestDynamoCheckout142KeepsThePublishedLock(t *testing.T) {
	for _, tool := range []string{"bash", "cargo", "git", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: the checkout is made with it", tool)
		}
	}
	dest := filepath.Join(t.TempDir(), "dynamo")
	cmd := exec.Command("bash", "scripts/dynamo-checkout.sh", dest, "--version", "1.4.2")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dynamo-checkout.sh --version 1.4.2: %v\n%s", err, stderr.String())
	}
	if want := "base=5f0146eca45e73e8b718389b6c61ca6fb9800ba9\nedit=c461996a3c5c6dd3a0ee0463551e90eac6f63326\n"; string(out) != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	for _, want := range []string{"restored from the published lock: heck 0.4.1", "changed versions: 0;"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	lock, err := os.ReadFile(filepath.Join(dest, "Cargo.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(lock), "name = \"prost-build\"\nversion = \"0.13.5\"") || !strings.Contains(string(lock), " \"heck 0.4.1\",") {
		t.Error("Cargo.lock: prost-build 0.13.5 does not depend on heck 0.4.1")
	}
	check := exec.Command("cargo", "metadata", "--locked", "--offline", "--format-version", "1")
	check.Dir = dest
	if b, err := check.CombinedOutput(); err != nil {
		t.Fatalf("cargo metadata --locked --offline: %v\n%s", err, b[:min(len(b), 2000)])
	}
	if _, err := os.Stat(filepath.Join(dest, "lib", "aisimulate-core")); err == nil {
		t.Error("1.4.2 has no separate replay core, yet the checkout holds lib/aisimulate-core")
	}
}

// Issue 44, item 1: dynamo-checkout.sh --faithful has Dynamo's shape where the default fixture
// is small: its release profile (thin LTO, one codegen unit), every library the release
// published from Dynamo's tree as a member, a Python package beside the workspace that is no
// member, and Dynamo's git patch of llm-multimodal and llm-tokenizer from a local bare
// repository; cargo accepts the lock offline as it stands. Its commits have the same SHAs on
// every machine (the repository's place, /tmp/kvparity-fixture-git, is fixed for that).
func TestDynamoCheckoutFaithfulHasDynamosShape(t *testing.T) {
	for _, tool := range []string{"bash", "cargo", "git", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: the checkout is made with it", tool)
		}
	}
	dest := filepath.Join(t.TempDir(), "dynamo")
	cmd := exec.Command("bash", "scripts/dynamo-checkout.sh", dest, "--faithful")
	cmd.Env = append(os.Environ(), "KVPARITY_FIXTURE_GIT=") // the default place, whatever the caller's
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dynamo-checkout.sh --faithful: %v\n%s", err, stderr.String())
	}
	if want := "base=55b80d58539266bb99d4e468385f85cb5539df9f\nedit=151be2cb3de792e602adb010d5290683d612f420\n"; string(out) != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	root, err := os.ReadFile(filepath.Join(dest, "Cargo.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"[profile.release]\n# These make the build much slower but shrink the binary, and could help performance\ncodegen-units = 1\nlto = \"thin\"\n",
		"[profile.profiling]\ninherits = \"release\"\n",
		`"lib/llm",`, `"lib/runtime",`, `"lib/memory",`, `"lib/rl",`, `"lib/kv-router",`, `"lib/bench",`,
		`llm-multimodal = { git = "file:///tmp/kvparity-fixture-git/smg.git", rev = "938b1d85396aa25c2e2830dfc4bccefe7c397450" }`,
		`llm-tokenizer = { git = "file:///tmp/kvparity-fixture-git/smg.git", rev = "938b1d85396aa25c2e2830dfc4bccefe7c397450" }`,
	} {
		if !strings.Contains(string(root), want) {
			t.Errorf("the root manifest lacks %q", want)
		}
	}
	if strings.Contains(string(root), "bindings") {
		t.Error("the Python package is a workspace member")
	}
	if _, err := os.Stat(filepath.Join(dest, "lib", "bindings", "python", "pyproject.toml")); err != nil {
		t.Errorf("no Python package beside the workspace: %v", err)
	}
	lock, err := os.ReadFile(filepath.Join(dest, "Cargo.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(lock), "name = \"llm-tokenizer\"\nversion = \"1.6.0\"\nsource = \"git+file:///tmp/kvparity-fixture-git/smg.git?rev=938b1d85396aa25c2e2830dfc4bccefe7c397450#938b1d85396aa25c2e2830dfc4bccefe7c397450\"") {
		t.Error("Cargo.lock does not take llm-tokenizer 1.6.0 from the git repository")
	}
	check := exec.Command("cargo", "metadata", "--locked", "--offline", "--format-version", "1")
	check.Dir = dest
	if b, err := check.CombinedOutput(); err != nil {
		t.Fatalf("cargo metadata --locked --offline: %v\n%s", err, b[:min(len(b), 2000)])
	}
}
