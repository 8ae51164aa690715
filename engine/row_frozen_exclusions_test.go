package engine

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kvparity/internal/layout"
)

// Issue 25, case "an edited frozen row.toml goes unnoticed", its first example: widened
// exclusions (a false UNSTABLE waived, or a mismatch hidden, on resume). Widening, narrowing
// and deleting the [canonical] exclusions of a frozen row.toml are each refused on resume,
// naming the file and the first differing key with both values; the journal is not touched.
func TestEditedFrozenExclusionsAreRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, _ := openTest(t, tinyTestRow("", ""), dir)
	c.Close()
	path := filepath.Join(dir, layout.FileRow)
	frozen, _ := os.ReadFile(path)
	journal, _ := os.ReadFile(filepath.Join(dir, layout.FileJournal))
	line := regexp.MustCompile(`(?m)^\s*exclusions\s*=.*$`).FindString(string(frozen))
	if !strings.Contains(line, `"/summary/wall_time_ms"`) {
		t.Fatalf("the frozen row has no exclusions line with the protocol's allowlist:\n%s", frozen)
	}
	for name, tc := range map[string]struct{ to, now string }{
		"widened":  {strings.Replace(line, `"/summary/wall_time_ms"`, `"/summary/wall_time_ms", "/per_request"`, 1), `"/per_request"`},
		"narrowed": {strings.Replace(line, `"/summary/wall_time_ms", `, "", 1), `now ["/summary/processed_tokens_per_s"`},
		"deleted":  {"", "now (absent)"},
	} {
		t.Run(name, func(t *testing.T) {
			edited := strings.Replace(string(frozen), line, tc.to, 1)
			if edited == string(frozen) {
				t.Fatal("the edit changed nothing")
			}
			if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			for open, f := range map[string]func() (*Campaign, error){
				"open":           func() (*Campaign, error) { return Open(dir, testOptions(t, dir)) },
				"open-or-create": func() (*Campaign, error) { return OpenOrCreate(tinyTestRow("", ""), testOptions(t, dir)) },
			} {
				c, err := f()
				var re *RowEditedError
				if !errors.As(err, &re) {
					if c != nil {
						c.Close()
					}
					t.Fatalf("%s: %v, want a *RowEditedError", open, err)
				}
				msg := err.Error()
				if re.key != "[canonical] exclusions" || !strings.HasPrefix(msg, path+" was edited") ||
					!strings.Contains(msg, "first difference at [canonical] exclusions: frozen [") || !strings.Contains(msg, tc.now) {
					t.Errorf("%s: %q; want the file, the key [canonical] exclusions and %s", open, msg, tc.now)
				}
			}
			if after, _ := os.ReadFile(filepath.Join(dir, layout.FileJournal)); string(after) != string(journal) {
				t.Error("a refused resume changed the journal")
			}
		})
	}
	os.WriteFile(path, frozen, 0o644)
	c2, err := Open(dir, testOptions(t, dir))
	if err != nil {
		t.Fatalf("the restored row: %v", err)
	}
	c2.Close()
}
