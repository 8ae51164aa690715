package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Input errors are reported before the terminal is taken over, with exit status 3.
func TestWorkbenchInputErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--row", "bogus"}, `--row "bogus": the built-in rows are default and tiny`},
		{[]string{"a.toml", "b.toml"}, "one row file at most"},
		{[]string{filepath.Join(dir, "missing.toml")}, "missing.toml"},
		{[]string{"open"}, "usage: kvparity open DIR"},
		{[]string{"open", filepath.Join(dir, "nowhere")}, "nowhere is not a campaign directory (no journal.jsonl)"},
		// go test has no terminal: the workbench refuses before creating a campaign.
		{[]string{"--row", "tiny", "--campaign", filepath.Join(dir, "c")}, "the workbench needs a terminal"},
	} {
		var out, errb bytes.Buffer
		if code := dispatch(c.args, &out, &errb); code != 3 {
			t.Errorf("%v: exit %d, want 3 (stderr %q)", c.args, code, errb.String())
		}
		if !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, errb.String(), c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "c")); !os.IsNotExist(err) {
		t.Fatalf("no campaign may be created without a terminal (stat: %v)", err)
	}
}
