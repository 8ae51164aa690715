package campaignreport_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// report.md reads the same from any folder the campaign is in: the same campaign copied to two
// folders reports the same bytes, naming neither folder nor the temporary folder the pinned
// binary was copied from (report.json keeps that source as recorded).
func TestE2EReportMDReadsTheSameWhereverTheCampaignIs(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	one, two := campaignCopy(t, "e2e-pass"), campaignCopy(t, "e2e-pass")
	mdOne, jsOne := reportTwice(t, one)
	mdTwo, _ := reportTwice(t, two)
	if !bytes.Equal(mdOne, mdTwo) {
		t.Fatalf("report.md differs between %s and %s", one, two)
	}
	for _, local := range []string{filepath.Dir(one), filepath.Dir(two), filepath.Dir(kvparity), os.TempDir()} {
		if bytes.Contains(mdOne, []byte(local)) {
			t.Errorf("report.md names the machine-local path %s", local)
		}
	}
	mustContain(t, mdOne, "copied from `kvparity` (outside the campaign; its path is in report.json)")
	if !bytes.Contains(jsOne, []byte(`"source": "`+kvparity+`"`)) && !bytes.Contains(jsOne, []byte(`"source":"`+kvparity+`"`)) {
		t.Errorf("report.json should keep the pinned binary's source %s", kvparity)
	}
}
