package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const patchText = "--- a/src/replay.rs\n+++ b/src/replay.rs\n@@ -1 +1 @@\n-let ids = HashMap::new();\n+let ids = BTreeMap::new();\n"

func patchSum() string {
	s := sha256.Sum256([]byte(patchText))
	return hex.EncodeToString(s[:])
}

func TestRowPatchKeys(t *testing.T) {
	row := strings.Replace(designRow, "repetitions = 2\n", "repetitions = 2\npatch = \"fix.patch\"\npatch_sha256 = \""+patchSum()+"\"\n", 1)
	r, err := ParseRow([]byte(row), "row.toml")
	if err != nil {
		t.Fatal(err)
	}
	r.WithBaseDir("/rows")
	if r.Determinism.Patch != "/rows/fix.patch" || r.Determinism.PatchSHA256 != patchSum() || !r.Determinism.patched() {
		t.Errorf("determinism %+v: the patch path resolves against the row's folder", r.Determinism)
	}
	if _, err := ParseRow([]byte(ExampleRowTOML), "example.toml"); err != nil {
		t.Fatalf("the example row with its commented patch keys: %v", err)
	}
}

func TestCreateRecordsTheDeterminismPatch(t *testing.T) {
	dir := t.TempDir()
	patch := filepath.Join(dir, "fix.patch")
	if err := os.WriteFile(patch, []byte(patchText), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(name string, d DeterminismSpec) (*Campaign, error) {
		row := tinyTestRow("", "")
		row.Determinism.Patch, row.Determinism.PatchSHA256 = d.Patch, d.PatchSHA256
		opts := testOptions(t, filepath.Join(dir, name))
		opts.RowPath = "row.toml"
		return Create(row, opts)
	}

	c, err := open("computed", DeterminismSpec{Patch: patch})
	if err != nil {
		t.Fatal(err)
	}
	h := FoldJournal(c.journal.Records(), c.Row())
	summary := c.Summary()
	c.Close()
	if h.Patch == nil || h.Patch.SHA256 != patchSum() || h.Patch.Declared || h.Patch.Bytes != int64(len(patchText)) {
		t.Fatalf("recorded patch %+v, want its computed SHA-256 %s", h.Patch, patchSum())
	}
	if summary.Patch == nil || *summary.Patch != *h.Patch {
		t.Errorf("the headless summary's patch %+v, want %+v", summary.Patch, h.Patch)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "computed", filepath.FromSlash(h.Patch.Path))); err != nil || string(got) != patchText {
		t.Errorf("the patch copy %s: %v", h.Patch.Path, err)
	}

	c, err = open("declared-only", DeterminismSpec{PatchSHA256: patchSum()})
	if err != nil {
		t.Fatal(err)
	}
	h = FoldJournal(c.journal.Records(), c.Row())
	c.Close()
	if h.Patch == nil || h.Patch.Path != "" || !h.Patch.Declared || h.Patch.SHA256 != patchSum() {
		t.Errorf("a declared checksum alone: recorded %+v", h.Patch)
	}

	c, err = open("none", DeterminismSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if h = FoldJournal(c.journal.Records(), c.Row()); h.Patch != nil {
		t.Errorf("no patch declared, recorded %+v", h.Patch)
	}
	c.Close()

	wrong := strings.Repeat("0", 64)
	_, err = open("mismatch", DeterminismSpec{Patch: patch, PatchSHA256: wrong})
	var re *RowError
	if !errors.As(err, &re) || re.Key != "patch_sha256" || re.File != "row.toml" || !strings.Contains(err.Error(), patchSum()) {
		t.Errorf("a patch that does not match its declared checksum: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "mismatch")); !os.IsNotExist(err) {
		t.Errorf("the refused campaign left its folder behind: %v", err)
	}
	_, err = open("missing", DeterminismSpec{Patch: filepath.Join(dir, "gone.patch")})
	if !errors.As(err, &re) || re.Key != "patch" || !strings.Contains(err.Error(), "gone.patch does not exist") {
		t.Errorf("a missing patch file: %v", err)
	}
}
