package consistency_test

import (
	"testing"

	"kvparity/e2e/consistency"
)

// TestOneVerdictEverywhere runs the semantic half of the shipped rows through every surface in
// every state (consistency.OneVerdictEverywhere); e2e/consistency/otherrows runs the rest.
func TestOneVerdictEverywhere(t *testing.T) {
	consistency.OneVerdictEverywhere(t, consistency.SemanticHalf)
}
