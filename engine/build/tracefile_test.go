package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const traceBytes = "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [1]}\n"

func sumOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestPublicTraceIsDownloadedOnceAndKeptByItsChecksum(t *testing.T) {
	hits := 0
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Write([]byte(traceBytes))
	}))
	defer srv.Close()
	saved := http.DefaultClient
	http.DefaultClient = srv.Client()
	defer func() { http.DefaultClient = saved }()

	cache := t.TempDir()
	pt, err := ParsePublicTrace(srv.URL+"/t.jsonl", sumOf(traceBytes))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		p, err := pt.Local(context.Background(), cache)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != traceBytes || p != CachedTracePath(cache, sumOf(traceBytes)) {
			t.Fatalf("kept %s: %q", p, b)
		}
	}
	if hits != 1 {
		t.Fatalf("downloaded %d times, want once", hits)
	}

	// A download with another checksum is never kept.
	wrong, _ := ParsePublicTrace(srv.URL+"/t.jsonl", strings.Repeat("0", 64))
	_, err = wrong.Local(context.Background(), cache)
	if err == nil || !strings.Contains(err.Error(), "its SHA-256 is "+sumOf(traceBytes)+", the row expects 000") || !strings.Contains(err.Error(), "kvparity trace add FILE") {
		t.Fatalf("err = %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "trace-files", "*")); len(left) != 1 {
		t.Fatalf("cache holds %v, want only the good trace", left)
	}
}

func TestAddTraceServesARowOffline(t *testing.T) {
	cache := t.TempDir()
	src := filepath.Join(t.TempDir(), "copy.jsonl")
	os.WriteFile(src, []byte(traceBytes), 0o644)
	sum, kept, err := AddTrace(cache, src)
	if err != nil || sum != sumOf(traceBytes) {
		t.Fatalf("AddTrace = %s, %v", sum, err)
	}
	pt, _ := ParsePublicTrace("https://example.invalid/t.jsonl", sum)
	p, err := pt.Local(context.Background(), cache)
	if err != nil || p != kept {
		t.Fatalf("Local = %s, %v; want the added copy %s", p, err, kept)
	}
}

func TestParsePublicTraceNeedsAChecksumAndAFile(t *testing.T) {
	for _, c := range []struct{ addr, sum, want string }{
		{"https://example.org/t.jsonl", "", "needs [trace] sha256"},
		{"https://example.org/", sumOf("x"), "name a file"},
		{"http://example.org/t.jsonl", sumOf("x"), "name a file by its https:// address"},
	} {
		if _, err := ParsePublicTrace(c.addr, c.sum); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePublicTrace(%q, %q) = %v, want %q", c.addr, c.sum, err, c.want)
		}
	}
}
