package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/internal/layout"
)

// `kvparity exceptions delete` of one record in a file whose second line holds two records is
// refused naming the line, and the file stays byte for byte as it was (before, the delete
// rewrote the file from the records read so far and the unread one was lost for good).
func TestCmdExceptionsDeleteAfterABadLine(t *testing.T) {
	rec := func(id string) string {
		return `{"id":"` + id + `","differs":"d","pointers":["/a"],"baseline":"b","candidate":"c","cause":"x","regression_test":"t","impact":"i","disposition":"ok"}`
	}
	dir := t.TempDir()
	path := filepath.Join(dir, layout.FileExceptions)
	content := []byte(rec("e1") + "\n" + rec("e2") + rec("e3") + "\n")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"delete", dir, "e1"}, {"list", dir}} {
		var out, errb bytes.Buffer
		code := runExceptions(args, &out, &errb)
		if code != 3 || !strings.Contains(errb.String(), path+":2: more input after the record") {
			t.Errorf("exceptions %s: exit %d, %q", args[0], code, errb.String())
		}
		if args[0] == "delete" && !strings.Contains(errb.String(), "nothing saved") {
			t.Errorf("delete does not say nothing was saved: %q", errb.String())
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, content) {
			t.Fatalf("exceptions %s changed the file:\n%s", args[0], got)
		}
	}
}
