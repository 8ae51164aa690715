package driver

import (
	"strings"
	"testing"

	"kvparity/engine"
	"kvparity/engine/build"
)

// A refused cache entry is printed with what differed, before the rebuild's phases.
func TestBuildPrinterSaysARefusedCacheEntry(t *testing.T) {
	var b strings.Builder
	print := BuildPrinter(&b)
	print(engine.BuildProgress{Arm: engine.Baseline, Progress: build.Progress{Source: "crate:dynamo-bench@1.6.1", Phase: "rebuilding",
		Warning: "the cached build in /c/k cannot be used (features: cached [\"a\"], requested [\"b\"]): building it again"}})
	print(engine.BuildProgress{Arm: engine.Baseline, Progress: build.Progress{Source: "crate:dynamo-bench@1.6.1", Phase: "fetching"}})
	want := "build baseline  crate:dynamo-bench@1.6.1: warning: the cached build in /c/k cannot be used (features: cached [\"a\"], requested [\"b\"]): building it again\n" +
		"build baseline  crate:dynamo-bench@1.6.1: fetching · 0s\n"
	if b.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", b.String(), want)
	}
}
