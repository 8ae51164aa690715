package campaignreport

import (
	"testing"

	"kvparity/engine"
	"kvparity/engine/matrix"
)

// The matrix report's digest cell: the one digest, the count when repetitions disagreed, or
// nothing yet (the words engine/matrix's RowStatus.Digest wrote before they moved here).
func TestArmDigest(t *testing.T) {
	s := matrix.RowStatus{Digests: map[engine.Arm][]string{engine.Baseline: {"aa"}, engine.Candidate: {"aa", "bb"}}}
	if got := armDigest(s, engine.Baseline); got != "aa" {
		t.Errorf("one digest: %q", got)
	}
	if got := armDigest(s, engine.Candidate); got != "UNSTABLE (2 digests)" {
		t.Errorf("two digests: %q", got)
	}
	if got := armDigest(matrix.RowStatus{}, engine.Baseline); got != "" {
		t.Errorf("no digest yet: %q", got)
	}
}
