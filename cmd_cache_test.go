package main

import (
	"path/filepath"
	"strings"
	"testing"

	"kvparity/verdict"
)

// A bad build-cache setting is a usage error naming the variable and its value (issue 42: a
// relative KVPARITY_BUILD_CACHE failed later in git, an unparseable limit became 30G).
func TestCacheRefusesBadEnvironmentSettings(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "builds")
	for _, c := range []struct{ cache, limit, want string }{
		{"rel/builds", "", `kvparity cache: KVPARITY_BUILD_CACHE="rel/builds": not an absolute path`},
		{cache, "banana", `kvparity cache: KVPARITY_BUILD_CACHE_LIMIT="banana": "banana" is not a size`},
	} {
		t.Setenv("KVPARITY_BUILD_CACHE", c.cache)
		t.Setenv("KVPARITY_BUILD_CACHE_LIMIT", c.limit)
		var stdout, stderr strings.Builder
		if code := cacheCmd([]string{"list"}, &stdout, &stderr); code != verdict.ExitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%s, %s: exit %d, stderr %q, stdout %q", c.cache, c.limit, code, stderr.String(), stdout.String())
		}
	}
}

// KVPARITY_BUILD_CACHE_LIMIT and `cache prune --max` read sizes with one parser: a size one
// takes the other takes, a value one refuses the other refuses (0 and "off" aside: no limit
// for the setting, nothing to prune to for --max).
func TestCacheLimitSettingAndMaxTakeTheSameSizes(t *testing.T) {
	t.Setenv("KVPARITY_BUILD_CACHE", filepath.Join(t.TempDir(), "builds"))
	for _, v := range []string{"10G", "500M", "1.5T", "2048", "10gb", "banana", "-1G", "G", "NaN", "inf", "1e400", "0.5", "30Q"} {
		var stdout, stderr strings.Builder
		t.Setenv("KVPARITY_BUILD_CACHE_LIMIT", v)
		listed := cacheCmd([]string{"list"}, &stdout, &stderr)
		t.Setenv("KVPARITY_BUILD_CACHE_LIMIT", "")
		pruned := cacheCmd([]string{"prune", "--max", v}, &stdout, &stderr)
		if (listed == 0) != (pruned == 0) || (listed != 0 && listed != verdict.ExitUsage) || (pruned != 0 && pruned != verdict.ExitUsage) {
			t.Errorf("%q: the setting gives exit %d, --max exit %d\n%s", v, listed, pruned, stderr.String())
		}
	}
}
