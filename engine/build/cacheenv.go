package build

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The build cache's two environment settings are read here only, and checked as they are
// read: a bad value is an error naming the variable and its value, never a silent default.
const (
	// envCache is the build cache's folder; unset or empty, the user cache directory's
	// kvparity/builds.
	envCache = "KVPARITY_BUILD_CACHE"
	// envCacheLimit is the cache's size limit, in ParseSize's syntax (the same as `kvparity
	// cache prune --max`); unset or empty, defaultLimit; "off" or 0, no limit.
	envCacheLimit = "KVPARITY_BUILD_CACHE_LIMIT"
)

// defaultLimit is the cache's size limit when KVPARITY_BUILD_CACHE_LIMIT is unset: a few
// Dynamo lineages (a target folder is 3–5 GB) and dozens of built binaries.
const defaultLimit = 30 << 30

// A SettingError is an environment setting kvparity refuses: a usage error, not a failure.
type SettingError struct {
	name, value string // the variable and its value as set
	msg         string
}

func (e *SettingError) Error() string { return fmt.Sprintf("%s=%q: %s", e.name, e.value, e.msg) }

// DefaultCache is where builds are kept when Options.Cache is empty.
//
// A relative KVPARITY_BUILD_CACHE is refused, not resolved against the working directory: git
// and cargo run inside the checkout and the build folders, where a relative path means another
// folder, and a cache per working directory would multiply the space the limit is meant to
// bound (each one held to it separately).
func DefaultCache() (string, error) {
	if d := os.Getenv(envCache); d != "" {
		if !filepath.IsAbs(d) {
			return "", &SettingError{name: envCache, value: d, msg: "not an absolute path: name the cache folder from the root (e.g. $PWD/" + d + "), so every kvparity, whatever its working directory, shares one cache held to one limit"}
		}
		return filepath.Clean(d), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder for source builds (set %s): %w", envCache, err)
	}
	return filepath.Join(d, "kvparity", "builds"), nil
}

// Limit is the cache's size limit in bytes from KVPARITY_BUILD_CACHE_LIMIT (0: no limit).
func Limit() (int64, error) {
	v := os.Getenv(envCacheLimit)
	if v == "" {
		return defaultLimit, nil
	}
	n, err := ParseSize(v)
	if err != nil {
		return 0, &SettingError{name: envCacheLimit, value: v, msg: err.Error() + `, or "off" for no limit`}
	}
	return n, nil
}

// ParseSize reads a size such as 500M, 30G or 1.5T: a number of bytes with an optional K, M, G
// or T suffix (powers of 1024, a trailing B allowed); "off" and "0" are 0. A value that is no
// whole byte count (NaN, infinite, above 8 EiB, a fraction of a byte) is refused, quoted as given.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	if t == "OFF" || t == "0" {
		return 0, nil
	}
	mult := int64(1)
	t = strings.TrimSuffix(t, "B")
	for i, u := range []string{"K", "M", "G", "T"} {
		if strings.HasSuffix(t, u) {
			mult, t = int64(1)<<(10*(i+1)), strings.TrimSuffix(t, u)
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	bytes := f * float64(mult)
	if err != nil || math.IsNaN(f) || f < 0 || bytes >= math.MaxInt64 || (f > 0 && bytes < 1) {
		return 0, fmt.Errorf("%q is not a size (a number with an optional K, M, G or T suffix, e.g. 30G)", s)
	}
	return int64(bytes), nil
}
