package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/verdict"
)

// gen-trace refuses a size above the largest generated trace kvparity accepts, naming the
// flag and the limit, and creates no file (issue 42: --requests 999999999999 grew kvparity
// to 23 GB until the kernel killed it).
func TestGenTraceRefusesRequestsAboveTheLimit(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.jsonl")
	for _, n := range []string{"999999999999", "10000000", "1000001", "-1"} {
		var stdout, stderr strings.Builder
		code := runGenTrace([]string{"--requests", n, "-o", out}, &stdout, &stderr)
		if code != verdict.ExitUsage || !strings.Contains(stderr.String(), "gen-trace: --requests "+n+" is out of bounds: must be 0..1000000") {
			t.Errorf("--requests %s: exit %d, %s", n, code, stderr.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("--requests %s: a refused size created %s", n, out)
		}
	}
	var stdout, stderr strings.Builder
	if code := runGenTrace([]string{"--requests", "3", "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("--requests 3: exit %d, %s", code, stderr.String())
	}
	if b, _ := os.ReadFile(out); strings.Count(string(b), "\n") != 3 {
		t.Errorf("--requests 3 wrote %q", b)
	}
}
