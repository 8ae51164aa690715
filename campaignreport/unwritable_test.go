package campaignreport_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/campaignreport"
	"kvparity/e2e"
	"kvparity/engine"
)

// Issue 42: the report of a campaign whose folder nobody can write (a read-only mount, no
// write permission) is refused saying it cannot be written, naming the folder and why, and
// not a temporary file's failure.
func TestReportOnAnUnwritableFolderSaysItCannotBeWritten(t *testing.T) {
	stand, err := exec.LookPath("true") // the arms are pinned, never run
	if err != nil {
		t.Skip("no true(1) to pin as the arms' binary")
	}
	dir := filepath.Join(t.TempDir(), "c")
	c, err := engine.Create(engine.TinyRow("", ""), engine.Options{Dir: dir, BuiltinPath: stand})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	why := e2e.ReadOnly(t, dir)
	_, err = campaignreport.WriteReport(dir)
	want := "the report cannot be written: campaign folder " + dir + " cannot be written (" + why + ")"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "campaign report: "+dir+string(filepath.Separator)) {
		t.Errorf("report on an unwritable folder: %v, want the file it could not write and %q", err, want)
	}
}
