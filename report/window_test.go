package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func hexSHA(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

const (
	rowA = `{"timestamp": 0, "input_length": 8, "output_length": 2, "hash_ids": [1]}`
	rowB = `{"timestamp": 1, "input_length": 8, "output_length": 2, "hash_ids": [1]}`
	rowC = `{"timestamp": 2, "input_length": 700, "output_length": 3, "hash_ids": [1, 2]}`
	rowD = `{"timestamp": 3, "input_length": 9, "output_length": 1, "hash_ids": [4]}`
)

func writeTrace(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWriteWindowCopiesRowsVerbatimSkippingBlankLines(t *testing.T) {
	// Blank lines (lines 2 and 5) are not rows; CRLF and odd spacing are kept byte for byte;
	// the last line has no newline and gets one.
	body := rowA + "\n\n" + rowB + "\r\n" + rowC + "\n   \n" + rowD
	src := writeTrace(t, body)
	var out bytes.Buffer
	info, err := WriteWindow(src, 1, 3, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := rowB + "\r\n" + rowC + "\n" + rowD + "\n"
	if out.String() != want {
		t.Fatalf("window:\n%q\nwant\n%q", out.String(), want)
	}
	if info.Rows != 3 || info.FirstLine != 3 || info.LastLine != 6 || info.offset != 1 || info.sourceRows != 4 ||
		info.SourceSHA256 != hexSHA([]byte(body)) || info.WindowSHA256 != hexSHA([]byte(want)) || info.Bytes != int64(len(want)) {
		t.Fatalf("info %+v", info)
	}
}

func TestWriteWindowRefusesShortWindows(t *testing.T) {
	src := writeTrace(t, rowA+"\n"+rowB+"\n\n"+rowC+"\n")
	var out bytes.Buffer
	_, err := WriteWindow(src, 1, 3, &out)
	if err == nil || !strings.Contains(err.Error(), "has 3 usable rows, so offset 1 leaves 2, but the window asks for 3") {
		t.Fatalf("got %v", err)
	}
	if out.Len() != 0 {
		t.Fatalf("a refused window wrote %d bytes", out.Len())
	}
	if _, err := WriteWindow(src, 5, 1, &out); err == nil || !strings.Contains(err.Error(), "offset 5 leaves 0") {
		t.Fatalf("got %v", err)
	}
	for _, c := range []struct{ off, n int }{{-1, 1}, {0, 0}, {0, -2}} {
		if _, err := WriteWindow(src, c.off, c.n, &out); err == nil {
			t.Errorf("offset %d count %d accepted", c.off, c.n)
		}
	}
}

func TestWriteWindowMalformedLineNamesFileAndLine(t *testing.T) {
	src := writeTrace(t, rowA+"\n\n"+`{"timestamp": 1, "input_length": 8, "hash_ids": [1]}`+"\n"+rowC+"\n"+"garbage\n")
	var out bytes.Buffer
	_, err := WriteWindow(src, 0, 2, &out)
	var fe *mooncakeFileError
	if !errors.As(err, &fe) || fe.Err.Line != 3 || !strings.Contains(err.Error(), src+":3:") {
		t.Fatalf("got %v", err)
	}
	// Lines after the window are not read as rows: the garbage on line 5 does not matter.
	src = writeTrace(t, rowA+"\n"+rowB+"\ngarbage\n")
	if info, err := WriteWindow(src, 0, 2, &out); err != nil || info.Rows != 2 {
		t.Fatalf("got %+v %v", info, err)
	}
	if _, err := WriteWindow(filepath.Join(t.TempDir(), "missing.jsonl"), 0, 1, &out); err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestWriteWindowGenerated(t *testing.T) {
	var full bytes.Buffer
	if err := GenerateConversationTrace(&full, 50, 7); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(full.String(), "\n")
	var a, b bytes.Buffer
	info, err := WriteWindow("generated:conversation?seed=7&requests=50", 10, 20, &a)
	if err != nil {
		t.Fatal(err)
	}
	if a.String() != strings.Join(lines[10:30], "") || info.FirstLine != 11 || info.LastLine != 30 || info.SourceSHA256 != hexSHA(full.Bytes()) {
		t.Fatalf("generated window differs from the generator's rows 10..29: %+v", info)
	}
	info2, _ := WriteWindow("generated:conversation?requests=50&seed=7", 10, 20, &b)
	if info2.WindowSHA256 != info.WindowSHA256 || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same generated spec gave different windows")
	}
	if _, err := WriteWindow("generated:conversation?seed=7&requests=50", 40, 20, &b); err == nil || !strings.Contains(err.Error(), "has 50 usable rows") {
		t.Fatalf("got %v", err)
	}
	for _, bad := range []string{
		"generated:chat?seed=1&requests=5", "generated:conversation?seed=1", "generated:conversation?seed=x&requests=5",
		"generated:conversation?seed=1&requests=0", "generated:conversation?seed=1&requests=5&extra=1",
		"generated:conversation?seed=1&seed=2&requests=5",
	} {
		if _, err := WriteWindow(bad, 0, 1, &b); err == nil || !strings.Contains(err.Error(), "want generated:conversation?seed=S&requests=N") {
			t.Errorf("%s: got %v", bad, err)
		}
	}
}

// sharedTrace returns a path under ../../shared/traces, failing under CI when it is missing.
func sharedTrace(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "shared", "traces", name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and %s is missing: %v", p, err)
		}
		t.Skipf("%s not available: %v", p, err)
	}
	return p
}

func TestWriteWindowRealTraces(t *testing.T) {
	src := sharedTrace(t, "mooncake_trace_1000.jsonl")
	whole, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	info, err := WriteWindow(src, 0, 1000, &out)
	if err != nil {
		t.Fatal(err)
	}
	// The spec's checksum of the committed fixture; the whole-file window is the file itself.
	if info.SourceSHA256 != "e2bec9bccd21978f69a2ace7886ee2e5192a64839f7aa2c4dd5d8766fd392510" || info.WindowSHA256 != info.SourceSHA256 ||
		!bytes.Equal(out.Bytes(), whole) || info.LastLine != 1000 {
		t.Fatalf("whole-file window: %+v", info)
	}
	if _, err := WriteWindow(src, 0, 1001, &out); err == nil || !strings.Contains(err.Error(), "has 1000 usable rows") {
		t.Fatalf("got %v", err)
	}

	conv := sharedTrace(t, "conversation_trace.jsonl")
	out.Reset()
	info, err = WriteWindow(conv, 12000, 31, &out)
	if err != nil || info.FirstLine != 12001 || info.LastLine != 12031 || bytes.Count(out.Bytes(), []byte("\n")) != 31 {
		t.Fatalf("tail window: %+v %v", info, err)
	}
	if _, err := WriteWindow(conv, 12000, 32, &out); err == nil || !strings.Contains(err.Error(), "12031 usable rows, so offset 12000 leaves 31, but the window asks for 32") {
		t.Fatalf("got %v", err)
	}
}
