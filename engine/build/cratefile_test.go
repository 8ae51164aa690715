package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseCrateFile(t *testing.T) {
	f, err := ParseCrateFile("crate:dynamo-bench@1.6.1/testdata/mooncake_trace_1000.jsonl")
	if err != nil || f.crate != "dynamo-bench" || f.version != "1.6.1" || f.path != "testdata/mooncake_trace_1000.jsonl" {
		t.Fatalf("%+v %v", f, err)
	}
	for _, bad := range []string{"crate:dynamo-bench/testdata/t.jsonl", "crate:@1.6.1/t.jsonl", "crate:x@1/",
		"crate:x@1/../../etc/passwd", "crate:x@1//abs", "crate:x@1/a/./b", "dynamo-bench@1/t"} {
		if _, err := ParseCrateFile(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

// A crate cargo already unpacked is read where cargo keeps it; nothing is fetched.
func TestCrateFileReadsCargosRegistry(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CARGO_HOME", home)
	want := filepath.Join(home, "registry", "src", "index.crates.io-1949cf8c6b5b557f", "dynamo-bench-1.6.1", "testdata", "t.jsonl")
	os.MkdirAll(filepath.Dir(want), 0o755)
	os.WriteFile(want, []byte("{}\n"), 0o644)
	f, _ := ParseCrateFile("crate:dynamo-bench@1.6.1/testdata/t.jsonl")
	got, err := f.Local(context.Background(), t.TempDir())
	if err != nil || got != want {
		t.Fatalf("Local = %q, %v; want %q", got, err, want)
	}
	// A file the unpacked crate lacks is fetched for (and, with no cargo here, the error says which).
	t.Setenv("PATH", t.TempDir())
	missing, _ := ParseCrateFile("crate:dynamo-bench@1.6.1/testdata/none.jsonl")
	if _, err := missing.Local(context.Background(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "crate:dynamo-bench@1.6.1/testdata/none.jsonl") {
		t.Fatalf("a missing file: %v", err)
	}
}
