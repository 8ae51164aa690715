package main

import (
	"bytes"
	"strings"
	"testing"
)

// The report and clean commands: usage errors and input errors exit 3 and name the problem.
// The end-to-end behaviour is in campaignreport/e2e*_test.go, through the built binary.
func TestReportAndCleanInputErrors(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		name string
		run  func([]string, *bytes.Buffer, *bytes.Buffer) int
		args []string
		want string
	}{
		{"report without DIR", func(a []string, o, e *bytes.Buffer) int { return reportCmd(a, o, e) }, nil, "usage: kvparity report [--github] DIR"},
		{"report on a non-campaign", func(a []string, o, e *bytes.Buffer) int { return reportCmd(a, o, e) }, []string{empty}, "journal.jsonl"},
		{"clean without DIR", func(a []string, o, e *bytes.Buffer) int { return cleanCmd(a, o, e) }, nil, "usage: kvparity clean DIR"},
		{"clean on a non-campaign", func(a []string, o, e *bytes.Buffer) int { return cleanCmd(a, o, e) }, []string{"--dry-run", empty}, "journal.jsonl"},
		{"clean with an unknown flag", func(a []string, o, e *bytes.Buffer) int { return cleanCmd(a, o, e) }, []string{"--force", empty}, "flag provided but not defined"},
	} {
		var out, errb bytes.Buffer
		if code := c.run(c.args, &out, &errb); code != 3 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 3 mentioning %q", c.name, code, errb.String(), c.want)
		}
	}
}
