package chaos_test

import (
	"os"
	"testing"

	"kvparity/e2e"
)

// The suite's kvparity is built once for all its tests, and the suite runs from the
// repository's root.
func TestMain(m *testing.M) { os.Exit(e2e.SuiteMain(m)) }
