package otherrows_test

import (
	"os"
	"testing"

	"kvparity/e2e"
	"kvparity/e2e/consistency"
)

// The suite's kvparity is built once for its test, and the suite runs from the repository's root.
func TestMain(m *testing.M) { os.Exit(e2e.SuiteMain(m)) }

// TestOneVerdictEverywhereOnTheOtherRows runs every shipped row outside the semantic half
// (the built-in default row, tiny, the fixtures rows, the real Dynamo rows) through every surface in
// every state.
func TestOneVerdictEverywhereOnTheOtherRows(t *testing.T) {
	consistency.OneVerdictEverywhere(t, consistency.OtherHalf)
}
