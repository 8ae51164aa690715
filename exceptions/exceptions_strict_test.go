package exceptions

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/internal/layout"
)

// recordLine is one valid record as saveExceptions writes it, with the given id.
func recordLine(id string) string {
	return `{"id":"` + id + `","differs":"d","pointers":["/a"],"baseline":"b","candidate":"c","cause":"x","regression_test":"t","impact":"i","disposition":"ok"}`
}

func writeExceptions(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, layout.FileExceptions), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Every way a line can hold more, or other, than one record is refused naming the file, the
// line and (for a key) the key: a record the loader did not read would be lost on the next save.
func TestLoadExceptionsStrict(t *testing.T) {
	e1, e2 := recordLine("e1"), recordLine("e2")
	cases := []struct{ name, content, want string }{
		{"two records on one line", e1 + e2 + "\n", "exceptions.jsonl:1: more input after the record at byte "},
		{"two records, space between", e1 + "\n" + recordLine("e3") + " " + e2 + "\n", "exceptions.jsonl:2: more input after the record at byte "},
		{"trailing data", e1 + " trailing\n", "exceptions.jsonl:1: more input after the record at byte "},
		{"trailing comma", e1 + ",\n", "exceptions.jsonl:1: more input after the record at byte "},
		{"repeated key", strings.Replace(e1, `"disposition":"ok"`, `"disposition":"ok","disposition":"rejected"`, 1), `exceptions.jsonl:1: key "disposition": named twice in this record`},
		{"repeated id", strings.Replace(e1, `"differs":"d"`, `"id":"e9","differs":"d"`, 1), `exceptions.jsonl:1: key "id": named twice in this record`},
		{"repeated key in a nested object", strings.Replace(e1, `"impact":"i"`, `"impact":{"a":1,"a":2}`, 1), `exceptions.jsonl:1: key "a" at /impact: named twice in this record`},
		{"unknown key", strings.Replace(e1, `{"id"`, `{"colour":1,"id"`, 1), `exceptions.jsonl:1: key "colour": not a field of an exception record`},
		{"key in another case", strings.Replace(e1, `"id":"e1"`, `"ID":"e1"`, 1), `exceptions.jsonl:1: key "ID": not a field of an exception record (keys are case-sensitive: "id")`},
		{"case twin of a key", strings.Replace(e1, `"impact":"i"`, `"impact":"i","Impact":"j"`, 1), `exceptions.jsonl:1: key "Impact": not a field of an exception record (keys are case-sensitive: "impact")`},
		{"not an object", e1 + "\n[1,2]\n", "exceptions.jsonl:2: a record is a JSON object, not an array"},
		{"invalid UTF-8", strings.Replace(e1, `"b"`, "\"b\xff\"", 1), "exceptions.jsonl:1: at \"/baseline\""},
		{"broken JSON", e1 + "\n{oops\n", "exceptions.jsonl:2: byte 1: expected a string key"},
		{"wrong type", strings.Replace(e1, `["/a"]`, `"/a"`, 1), "exceptions.jsonl:1: json: cannot unmarshal string into Go struct field ExceptionRecord.pointers of type []string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeExceptions(t, c.content)
			recs, err := LoadExceptions(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %d record(s), err %v; want an error containing %q", len(recs), err, c.want)
			}
			if !strings.HasPrefix(err.Error(), filepath.Join(dir, layout.FileExceptions)+":") {
				t.Errorf("the error does not start with the file's path: %v", err)
			}
		})
	}
}

// Blank lines hold no record: they are tolerated anywhere (a hand edit leaves them), and so are
// a missing final newline and CRLF line ends. Line numbers still count them.
func TestLoadExceptionsBlankLines(t *testing.T) {
	content := "\n" + recordLine("e1") + "\r\n  \n\t\n" + recordLine("e2")
	recs, err := LoadExceptions(writeExceptions(t, content))
	if err != nil || len(recs) != 2 || recs[0].ID != "e1" || recs[1].ID != "e2" {
		t.Fatalf("blank lines: %d records, %v", len(recs), err)
	}
	_, err = LoadExceptions(writeExceptions(t, "\n\n"+recordLine("e1")+"x\n"))
	if err == nil || !strings.Contains(err.Error(), "exceptions.jsonl:3:") {
		t.Fatalf("line numbers count blank lines: %v", err)
	}
	if recs, err := LoadExceptions(writeExceptions(t, "")); err != nil || len(recs) != 0 {
		t.Fatalf("an empty file is no records: %v %v", recs, err)
	}
}

// A file that does not parse whole is never rewritten: deleting or saving an unrelated record
// is refused with the parse error and the file stays byte for byte as it was (before, a delete
// of e1 rewrote the file without e3, which the loose loader had never read).
func TestExceptionsNoRewriteOfABadFile(t *testing.T) {
	content := recordLine("e1") + "\n" + recordLine("e2") + recordLine("e3") + "\n"
	for _, mutate := range []struct {
		name string
		do   func(dir string) error
	}{
		{"delete", func(dir string) error { return DeleteException(dir, "e1") }},
		{"put new", func(dir string) error { _, err := PutException(dir, validRecord("/summary/**")); return err }},
		{"put edit", func(dir string) error {
			r := validRecord("/summary/**")
			r.ID = "e2"
			_, err := PutException(dir, r)
			return err
		}},
	} {
		t.Run(mutate.name, func(t *testing.T) {
			dir := writeExceptions(t, content)
			err := mutate.do(dir)
			if err == nil || !strings.Contains(err.Error(), "exceptions.jsonl:2: more input after the record") {
				t.Fatalf("%s on a file that does not parse whole: %v", mutate.name, err)
			}
			got, _ := os.ReadFile(filepath.Join(dir, layout.FileExceptions))
			if !bytes.Equal(got, []byte(content)) {
				t.Fatalf("the file changed:\n%s", got)
			}
		})
	}
}

// FuzzParseExceptions: the strict reader never panics; what it accepts holds exactly one record
// per non-blank line (none is dropped), and saving those records and reading them back gives
// the same records (compared as saved: an empty list and a missing one save alike) (seed corpus: testdata/fuzz/FuzzParseExceptions).
func FuzzParseExceptions(f *testing.F) {
	f.Add([]byte(recordLine("e1") + "\n" + recordLine("e2") + "\n"))
	f.Add([]byte(recordLine("e1") + recordLine("e2") + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := parseExceptions("exceptions.jsonl", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "exceptions.jsonl:") {
				t.Fatalf("the error does not name the file and line: %v", err)
			}
			return
		}
		lines := 0
		for l := range bytes.Lines(data) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines++
			}
		}
		if len(recs) != lines {
			t.Fatalf("%d records from %d non-blank lines", len(recs), lines)
		}
		saved, err := encodeExceptions(recs)
		if err != nil {
			t.Fatalf("accepted records do not save: %v", err)
		}
		again, err := parseExceptions("exceptions.jsonl", saved)
		if err != nil {
			t.Fatalf("saved records do not read back: %v\n%s", err, saved)
		}
		if resaved, _ := encodeExceptions(again); !bytes.Equal(resaved, saved) {
			t.Fatalf("a save and a read changed the records:\n%s\n%s", saved, resaved)
		}
	})
}
