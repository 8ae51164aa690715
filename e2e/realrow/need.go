package realrow

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"kvparity/engine"
)

// Row is the shipped row comparing two published Dynamo versions built from source.
const Row = "rows/dynamo-1.5.1-vs-1.6.1.toml"

// NeedBuilds runs a test of real Dynamo builds only when they are in the build cache: on a
// developer's machine (cargo or not, empty caches) it skips naming the one command that builds
// them, so the README's test command stays within go test's default timeout. Under CI it never
// skips: .ci/run builds first, and a missing toolchain or build fails.
func NeedBuilds(t testing.TB, rows ...string) {
	t.Helper()
	inCI := os.Getenv("CI") != ""
	if _, err := exec.LookPath("cargo"); err != nil {
		if inCI {
			t.Fatalf("CI runs the real Dynamo rows and needs cargo: %v", err)
		}
		t.Skipf("cargo not installed: %v", err)
	}
	if inCI {
		return
	}
	for _, path := range rows {
		row, err := engine.LoadRow(path)
		if err != nil {
			t.Fatal(err)
		}
		missing, err := engine.UnbuiltArms(context.Background(), row, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(missing) > 0 {
			t.Skipf("%s is not built yet (%s): run `go run . build %s` first (several minutes per arm on 2 cores)", path, strings.Join(missing, ", "), path)
		}
	}
}
