package campaignreport

import (
	"strings"
	"testing"

	"kvparity/engine"
)

// A nested instruction campaign's counts are the row's only when it counted exactly what the
// row measures: each arm's current pin (SHA-256 and variant: a built-in arm's variant is not in
// its bytes), the trace window and the frozen row. Any difference is named.
func TestNestedInstructionCountsMustCountTheRowsArtifacts(t *testing.T) {
	row := engine.TinyRow("", "")
	mk := func(baseSHA, candSHA, candVariant, window, rowSHA string) *campaign {
		h := engine.NewHistory(row)
		h.Current[engine.Baseline] = engine.PinnedArtifact{Arm: engine.Baseline, Gen: 1, SHA256: baseSHA}
		h.Current[engine.Candidate] = engine.PinnedArtifact{Arm: engine.Candidate, Gen: 1, SHA256: candSHA, Variant: candVariant}
		return &campaign{hist: h, trace: engine.TraceChecksums{WindowSHA256: window}, rowSHA: rowSHA}
	}
	const a, b = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	rowCampaign := mk(a, a, "", "w1", "r1")
	if why := rowCampaign.countedOther(mk(a, a, "", "w1", "r1")); why != "" {
		t.Fatalf("the same artifacts, window and row: %q", why)
	}
	for _, c := range []struct {
		nested *campaign
		want   string
	}{
		{mk(a, b, "", "w1", "r1"), "they counted other artifacts (candidate: sha256 bbbbbbbbbbbb; this campaign's current pin: sha256 aaaaaaaaaaaa)"},
		{mk(b, a, "", "w1", "r1"), "they counted other artifacts (baseline: sha256 bbbbbbbbbbbb;"},
		{mk(a, a, "slowdown-10", "w1", "r1"), "(candidate: sha256 aaaaaaaaaaaa variant slowdown-10; this campaign's current pin: sha256 aaaaaaaaaaaa)"},
		{mk(a, "", "", "w1", "r1"), "(candidate: not pinned;"},
		{mk(a, a, "", "w2", "r1"), "they replayed another trace window (SHA-256 w2; this campaign's: w1)"},
		{mk(a, a, "", "w1", "r2"), "they ran another frozen row (row.toml SHA-256 r2; this campaign's: r1)"},
	} {
		if why := rowCampaign.countedOther(c.nested); !strings.Contains(why, c.want) {
			t.Errorf("countedOther = %q, want it to contain %q", why, c.want)
		}
	}
}
