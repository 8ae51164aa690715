package build

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/engine/build/buildtest"
)

// A relative KVPARITY_BUILD_CACHE is refused naming the variable and its value, before git or
// cargo run (issue 42: git, running in the checkout, failed on a path inside it), and nothing
// is created in the working directory.
func TestBuildRefusesARelativeCacheSetting(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	fixture := fixtureCopy(t)
	log := fakeToolchain(t, fixture)
	repo, git := buildtest.Checkout(t, fixture)
	git("add", ".")
	git("commit", "-qm", "bench")
	wd := t.TempDir()
	t.Chdir(wd)
	t.Setenv("KVPARITY_BUILD_CACHE", "rel/cache")
	_, err := Build(context.Background(), Spec{Kind: "git", Repo: repo, Ref: "HEAD", Features: []string{"replay-bench"}}, Options{})
	if err == nil || !strings.Contains(err.Error(), `KVPARITY_BUILD_CACHE="rel/cache": not an absolute path`) {
		t.Fatalf("got %v", err)
	}
	if des, _ := os.ReadDir(wd); len(des) != 0 {
		t.Errorf("a refused cache setting created %s in the working directory", des[0].Name())
	}
	if b, _ := os.ReadFile(log); len(b) != 0 {
		t.Errorf("the toolchain ran: %s", b)
	}
	abs := filepath.Join(t.TempDir(), "cache") + "/"
	t.Setenv("KVPARITY_BUILD_CACHE", abs)
	if d, err := DefaultCache(); err != nil || d != filepath.Clean(abs) {
		t.Errorf("an absolute setting: %q %v", d, err)
	}
}

// An unparseable KVPARITY_BUILD_CACHE_LIMIT is refused before the build (it used to become 30G
// silently, while `kvparity cache prune --max` refused the same value).
func TestBuildRefusesAnUnparseableLimitBeforeBuilding(t *testing.T) {
	log := fakeToolchain(t, fixtureCopy(t))
	spec := Spec{Kind: "crate", Crate: "dynamo-bench", Version: "9.9.9", Features: []string{"replay-bench"}}
	for _, v := range []string{"banana", "-1G", "NaN", "inf", "30Q"} {
		t.Setenv("KVPARITY_BUILD_CACHE_LIMIT", v)
		_, err := Build(context.Background(), spec, Options{Cache: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "KVPARITY_BUILD_CACHE_LIMIT="+`"`+v+`": "`+v+`" is not a size`) {
			t.Errorf("%s: got %v", v, err)
		}
	}
	if b, _ := os.ReadFile(log); len(b) != 0 {
		t.Errorf("the toolchain ran: %s", b)
	}
}

// Limit reads the setting: unset or empty the default, "off" or 0 no limit, else a size.
func TestLimitReadsTheSetting(t *testing.T) {
	for v, want := range map[string]int64{"": defaultLimit, "off": 0, "0": 0, "10G": 10 << 30, " 512m ": 512 << 20} {
		t.Setenv(envCacheLimit, v)
		if n, err := Limit(); err != nil || n != want {
			t.Errorf("%q: %d %v, want %d", v, n, err, want)
		}
	}
}

// ParseSize takes whole byte counts only, and quotes the value as given when it refuses one.
func TestParseSizeRefusesWhatIsNoByteCount(t *testing.T) {
	for _, bad := range []string{"NaN", "inf", "-inf", "+Inf", "1e400", "9e18T", "0.1", "0.5", "banana"} {
		_, err := ParseSize(bad)
		if err == nil || !strings.HasPrefix(err.Error(), `"`+bad+`" is not a size`) {
			t.Errorf("%q: got %v", bad, err)
		}
	}
	if n, err := ParseSize("0.5K"); err != nil || n != 512 {
		t.Errorf("0.5K: %d %v", n, err)
	}
}
