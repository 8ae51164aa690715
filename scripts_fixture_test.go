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
