package campaignreport_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/campaignreport"
	"kvparity/engine"
	"kvparity/internal/layout"
)

// A declared determinism patch (protocol stage 1.3) is stated with its checksum for both
// revisions, in report.json and report.md, instead of "none declared".
func TestReportStatesTheDeterminismPatch(t *testing.T) {
	tmp := t.TempDir()
	text := "--- a/src/replay.rs\n+++ b/src/replay.rs\n@@ -1 +1 @@\n-HashMap\n+BTreeMap\n"
	patch := filepath.Join(tmp, "tie-order.patch")
	if err := os.WriteFile(patch, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(text))
	want := hex.EncodeToString(sum[:])
	row := engine.TinyRow("", "")
	row.Determinism.Patch, row.Determinism.PatchSHA256 = patch, want
	dir := filepath.Join(tmp, "campaign")
	c, err := engine.Create(row, engine.Options{Dir: dir, BuiltinPath: kvparity})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()

	r, err := campaignreport.WriteReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, rv := range r.Revisions {
		if !strings.Contains(rv.DeterminismPatch, "SHA-256 "+want+", applied identically to both revisions") ||
			!strings.Contains(rv.DeterminismPatch, "verified against "+patch) || !strings.Contains(rv.DeterminismPatch, "kept: patch/tie-order.patch") {
			t.Errorf("%s determinism patch %q", rv.Arm, rv.DeterminismPatch)
		}
	}
	if p := r.Config.DeterminismPatch; p == nil || p.SHA256 != want || p.Path != "patch/tie-order.patch" || !p.Declared {
		t.Errorf("report.json determinism_patch %+v", p)
	}
	md, err := os.ReadFile(filepath.Join(dir, layout.FileReportMD))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, md, "SHA-256 "+want+", applied identically to both revisions")
	if strings.Contains(string(md), "none declared") {
		t.Error("report.md still says the determinism patch is none declared")
	}
}
