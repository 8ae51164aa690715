package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const conversationSHA256 = "b8cbb061a85206d729d91cdc2981f43c9e0d99209dce588d3af5f7934408b9df"

// sharedTrace returns a real trace from ../shared/traces: missing is a failure in CI and a
// skip elsewhere.
func sharedTrace(t *testing.T, name string) string {
	t.Helper()
	p, _ := filepath.Abs(filepath.Join("..", "..", "shared", "traces", name))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs the shared trace %s: %v", p, err)
		}
		t.Skipf("shared trace not available: %v", err)
	}
	return p
}

func TestRealTraceWindowIsPinnedWithChecksums(t *testing.T) {
	src := sharedTrace(t, "conversation_trace.jsonl")
	row := tinyTestRow("", "")
	row.Trace = TraceSpec{Path: src, Offset: 1000, Count: 5000, SHA256: conversationSHA256}
	dir := filepath.Join(t.TempDir(), "c")
	c, err := Create(row, testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	drain(c)
	defer c.Close()
	window, _ := os.ReadFile(c.Host().TraceWindow())
	all, _ := os.ReadFile(src)
	lines := bytes.SplitAfter(all, []byte("\n"))
	if want := bytes.Join(lines[1000:6000], nil); !bytes.Equal(window, want) {
		t.Fatalf("window is not rows 1000..5999 of the source verbatim (%d bytes, want %d)", len(window), len(want))
	}
	info := c.Info()
	if info.TraceSHA256 != conversationSHA256 || info.Window != "offset 1000 · 5000 requests" {
		t.Fatalf("info %+v", info)
	}
	var tc TraceChecksums
	if err := ReadJSONFile(filepath.Join(dir, "trace", "checksums.json"), &tc); err != nil || tc.SourceSHA256 != conversationSHA256 || tc.WindowBytes != int64(len(window)) {
		t.Fatalf("checksums %+v %v", tc, err)
	}
}

func TestRealTraceWindowRefusesTooFewRowsAndAWrongChecksum(t *testing.T) {
	src := sharedTrace(t, "conversation_trace.jsonl")
	row := tinyTestRow("", "")
	row.Trace = TraceSpec{Path: src, Offset: 10000, Count: 5000}
	_, err := Create(row, testOptions(t, filepath.Join(t.TempDir(), "c")))
	if err == nil || !strings.Contains(err.Error(), "[trace] window") {
		t.Fatalf("a window past the end was accepted: %v", err)
	}
	row.Trace = TraceSpec{Path: src, Offset: 0, Count: 5000, SHA256: strings.Repeat("a", 64)}
	_, err = Create(row, testOptions(t, filepath.Join(t.TempDir(), "c")))
	if err == nil || !strings.Contains(err.Error(), "[trace] sha256: "+src+" has SHA-256 "+conversationSHA256) {
		t.Fatalf("a wrong checksum was accepted: %v", err)
	}
}
