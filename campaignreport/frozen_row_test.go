package campaignreport_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 25, case "the report prints the edited row as the frozen configuration": with row.toml
// edited after the campaign froze it, the report still states the row the verdicts used (the
// journal's frozen text), byte for byte the report of the unedited campaign, and says on stderr
// which key was edited.
func TestReportStatesTheFrozenRowNotAnEditedOne(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := campaignCopy(t, "e2e-pass")
	want, _ := reportTwice(t, dir)
	path := filepath.Join(dir, "row.toml")
	frozen, _ := os.ReadFile(path)
	edited := strings.Replace(string(frozen), "repetitions = 2", "repetitions = 7", 1)
	if edited == string(frozen) {
		t.Fatalf("the fixture's row has no repetitions = 2:\n%s", frozen)
	}
	os.WriteFile(path, []byte(edited), 0o644)
	_, errs, code := kv(t, "report", dir)
	if code != 0 {
		t.Fatalf("report on an edited row exited %d: %s", code, errs)
	}
	if !strings.Contains(errs, "[determinism] repetitions: frozen 2, now 7") {
		t.Errorf("stderr does not name the edited key: %s", errs)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !bytes.Equal(got, want) {
		t.Error("the report of the edited campaign differs from the frozen one's: it must state the row the verdicts used")
	}
	if !bytes.Contains(got, []byte("repetitions = 2")) || bytes.Contains(got, []byte("repetitions = 7")) {
		t.Error("report.md does not print the frozen row")
	}
}
