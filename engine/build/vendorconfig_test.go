package build

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 44, item 1: Dynamo takes llm-multimodal and llm-tokenizer from a git repository
// ([patch.crates-io]), and so does the faithful fixture. The build's cargo configuration used to
// replace crates.io only: the offline build then read the git source from cargo's own database,
// which only a fetch on this machine had filled. Now every git source of the lock is replaced
// by the vendored sources too, as `cargo vendor` prints it.
func TestVendorConfigReplacesEveryGitSource(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "Cargo.lock")
	os.WriteFile(lock, []byte(`version = 4

[[package]]
name = "fastrand"
version = "2.4.1"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "llm-multimodal"
version = "1.9.0"
source = "git+https://github.com/lightseekorg/smg?rev=e3eccacf#e3eccacf96bc6e041a7ec6623e2251dba1129f28"

[[package]]
name = "llm-tokenizer"
version = "1.6.0"
source = "git+https://github.com/lightseekorg/smg?rev=e3eccacf#e3eccacf96bc6e041a7ec6623e2251dba1129f28"

[[package]]
name = "tiny"
version = "0.1.0"
source = "git+file:///srv/git/tiny.git?branch=release%2F1.x#0123456789abcdef0123456789abcdef01234567"

[[package]]
name = "head"
version = "0.1.0"
source = "git+file:///srv/git/head.git#0123456789abcdef0123456789abcdef01234567"
`), 0o644)
	got, err := vendorConfig(lock)
	if err != nil {
		t.Fatal(err)
	}
	want := `[source.crates-io]
replace-with = "vendored-sources"

[source."git+file:///srv/git/head.git"]
git = "file:///srv/git/head.git"
replace-with = "vendored-sources"

[source."git+file:///srv/git/tiny.git?branch=release%2F1.x"]
git = "file:///srv/git/tiny.git"
branch = "release/1.x"
replace-with = "vendored-sources"

[source."git+https://github.com/lightseekorg/smg?rev=e3eccacf"]
git = "https://github.com/lightseekorg/smg"
rev = "e3eccacf"
replace-with = "vendored-sources"

[source.vendored-sources]
directory = "vendor"

[net]
offline = true
`
	if got != want {
		t.Errorf("config:\n%s\nwant:\n%s", got, want)
	}
	// A lock without git sources gets what every build had before.
	os.WriteFile(lock, []byte("version = 4\n\n[[package]]\nname = \"fastrand\"\nversion = \"2.4.1\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n"), 0o644)
	if got, _ := vendorConfig(lock); got != "[source.crates-io]\nreplace-with = \"vendored-sources\"\n\n[source.vendored-sources]\ndirectory = \"vendor\"\n\n[net]\noffline = true\n" {
		t.Errorf("a lock without git sources: %s", got)
	}
}

// With real cargo: a crate that takes a dependency from a local git repository is vendored,
// the repository removed, and the crate built offline in a cargo home that never fetched it.
// Replacing crates.io only, that build fails (it did before); with vendorConfig it builds.
func TestAGitSourceBuildsOfflineFromVendor(t *testing.T) {
	for _, tool := range []string{"cargo", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	dir := t.TempDir()
	repo, app := filepath.Join(dir, "tiny"), filepath.Join(dir, "app")
	run := func(cwd, home string, args ...string) error {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = cwd
		cmd.Env = append(os.Environ(), "CARGO_HOME="+home, "CARGO_TARGET_DIR="+filepath.Join(dir, "target"),
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return err
	}
	os.MkdirAll(filepath.Join(repo, "src"), 0o755)
	os.WriteFile(filepath.Join(repo, "Cargo.toml"), []byte("[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "src", "lib.rs"), []byte("pub fn one() -> u32 { 1 }\n"), 0o644)
	fetched := filepath.Join(dir, "fetched-home")
	for _, args := range [][]string{{"git", "init", "-q", "-b", "main"}, {"git", "add", "-A"},
		{"git", "-c", "user.name=kvparity", "-c", "user.email=test@kvparity.invalid", "commit", "-qm", "tiny"}} {
		if err := run(repo, fetched, args...); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(app, "src"), 0o755)
	os.WriteFile(filepath.Join(app, "Cargo.toml"), []byte("[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ntiny = { git = \"file://"+repo+"\", branch = \"main\" }\n"), 0o644)
	os.WriteFile(filepath.Join(app, "src", "lib.rs"), []byte("pub fn two() -> u32 { tiny::one() + 1 }\n"), 0o644)
	if err := run(app, fetched, "cargo", "vendor", "--quiet", "vendor"); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(repo)
	os.MkdirAll(filepath.Join(app, ".cargo"), 0o755)
	config := filepath.Join(app, ".cargo", "config.toml")

	cratesIOOnly := "[source.crates-io]\nreplace-with = \"vendored-sources\"\n\n[source.vendored-sources]\ndirectory = \"vendor\"\n\n[net]\noffline = true\n"
	os.WriteFile(config, []byte(cratesIOOnly), 0o644)
	if err := run(app, filepath.Join(dir, "home-1"), "cargo", "build", "--offline", "--quiet"); err == nil {
		t.Fatal("built offline with crates.io replaced only: the git source came from somewhere else")
	}
	cfg, err := vendorConfig(filepath.Join(app, "Cargo.lock"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(config, []byte(cfg), 0o644)
	if err := run(app, filepath.Join(dir, "home-2"), "cargo", "build", "--offline", "--quiet"); err != nil {
		t.Fatalf("with the git source replaced by vendor/ too, the offline build failed; the config:\n%s", cfg)
	}
}
