package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// CampaignDir is a campaign folder named name inside a new folder of the test's: kvparity
// creates it (its parent exists).
func CampaignDir(t testing.TB, name string) string {
	t.Helper()
	return filepath.Join(t.TempDir(), name)
}

// An Encoder is a row as kvparity writes it (engine.Row).
type Encoder interface{ Encode() ([]byte, error) }

// RowFile writes row as name in a new folder of the test's and returns its path.
func RowFile(t testing.TB, name string, row Encoder) string {
	t.Helper()
	b, err := row.Encode()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// SuiteMain is an end-to-end suite's TestMain (os.Exit(e2e.SuiteMain(m))): Main, run from the
// repository's root, so the suite names the shipped rows and the repository's files as a user
// in the repository does (rows/tiny.toml, testdata/golden-points.md).
func SuiteMain(m *testing.M) int {
	for {
		if _, err := os.Stat("go.mod"); err == nil {
			return Main(m)
		}
		wd, err := os.Getwd()
		if err != nil || filepath.Dir(wd) == wd || os.Chdir("..") != nil {
			fmt.Fprintln(os.Stderr, "e2e: the repository's root (its go.mod) is not above the suite's folder")
			return 1
		}
	}
}
