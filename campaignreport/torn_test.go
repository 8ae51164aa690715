package campaignreport_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/internal/layout"
)

// Issue 13 case 4: the report reads a journal with a torn tail without modifying it and says
// that it ignored the tail.
func TestReportWarnsAboutATornTailAndNeverModifiesTheJournal(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := campaignCopy(t, "e2e-pass")
	path := filepath.Join(dir, layout.FileJournal)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`0badc0de {"seq":99,"ty`)
	f.Close()
	before, _ := os.ReadFile(path)
	_, errs, code := kv(t, "report", dir)
	if code != 0 || !strings.Contains(errs, "warning: journal "+path+": ignored a torn last record") {
		t.Fatalf("kvparity report exited %d, stderr %q: want a warning about the torn tail", code, errs)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("the report modified the journal")
	}
	if qs, _ := filepath.Glob(path + ".torn-*"); len(qs) != 0 {
		t.Fatalf("the report quarantined the tail: %v", qs)
	}
}
