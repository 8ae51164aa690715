package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TraceFilePrefix starts a row's trace path that names a public trace by its address
// (e.g. a raw GitHub blob at a fixed commit). Such a trace is trusted only by its SHA-256:
// the row must pin one, and the file is kept in the build cache under that checksum, so a
// row works from any clone without a copy of the trace in the repository.
const TraceFilePrefix = "https://"

// traceFileLimit bounds a downloaded trace: the largest public Mooncake trace is ~30 MB, so
// a server sending gigabytes is an error, not a trace.
const traceFileLimit = 1 << 30

// A PublicTrace is a trace named by its https:// address and pinned by its SHA-256.
type PublicTrace struct {
	URL    string
	SHA256 string
}

// ParsePublicTrace checks an https:// trace address and its pinned checksum.
func ParsePublicTrace(address, sum string) (PublicTrace, error) {
	u, err := url.Parse(address)
	switch {
	case err != nil:
		return PublicTrace{}, fmt.Errorf("%q is not an address: %v", address, err)
	case u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/":
		return PublicTrace{}, fmt.Errorf("%q: name a file by its https:// address", address)
	case sum == "":
		return PublicTrace{}, fmt.Errorf("%q: a trace named by its address needs [trace] sha256 (the only thing that makes a download the trace the row was frozen with)", address)
	}
	return PublicTrace{URL: address, SHA256: sum}, nil
}

// CachedTracePath is where the cache keeps a trace with this SHA-256.
func CachedTracePath(cache, sum string) string {
	return filepath.Join(cache, "trace-files", sum+".jsonl")
}

// Local returns the cache's copy of the trace, downloading it first (checked against its
// SHA-256 before it is kept) when the cache has none.
func (t PublicTrace) Local(ctx context.Context, cache string) (string, error) {
	kept := CachedTracePath(cache, t.SHA256)
	if _, err := os.Stat(kept); err == nil {
		return kept, nil
	}
	if err := t.download(ctx, cache, kept); err != nil {
		return "", fmt.Errorf("%s is not in the trace cache (%s) and could not be downloaded: %w; "+
			"with a copy of the file at hand, `kvparity trace add FILE` puts it there (checked against its SHA-256)", t.URL, kept, err)
	}
	return kept, nil
}

func (t PublicTrace) download(ctx context.Context, cache, kept string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.URL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the server answered %s", resp.Status)
	}
	_, err = storeTrace(cache, io.LimitReader(resp.Body, traceFileLimit+1), t.SHA256, kept)
	return err
}

// AddTrace copies a local trace file into the cache under its SHA-256 (what a row's
// https:// trace with that checksum then reads) and returns the checksum and the kept path.
func AddTrace(cache, file string) (sum, kept string, err error) {
	f, err := os.Open(file)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sum, err = storeTrace(cache, f, "", "")
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", file, err)
	}
	return sum, CachedTracePath(cache, sum), nil
}

// storeTrace writes r into the cache beside kept (or at the checksum's own path when kept is
// empty), hashing as it goes; the file appears under its final name only when complete and,
// if want is set, only when its SHA-256 is want.
func storeTrace(cache string, r io.Reader, want, kept string) (string, error) {
	dir := filepath.Join(cache, "trace-files")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".trace-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), r)
	if err == nil && n > traceFileLimit {
		err = fmt.Errorf("more than %d bytes: not a trace", traceFileLimit)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if want != "" && sum != want {
		return "", fmt.Errorf("its SHA-256 is %s, the row expects %s", sum, want)
	}
	if kept == "" {
		kept = CachedTracePath(cache, sum)
	}
	if err := os.Rename(tmp.Name(), kept); err != nil {
		return "", err
	}
	return sum, nil
}

// IsPublicTrace reports whether a row's trace path names a trace by its https:// address.
func IsPublicTrace(path string) bool { return strings.HasPrefix(path, TraceFilePrefix) }
