package journal

import (
	"kvparity/internal/layout"
	"os"
	"path/filepath"
	"testing"
)

func TestTailReadsWholeRecordsOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, layout.FileJournal)
	tail := NewTail[testRecord](path)
	if recs, reset, err := tail.Read(); err != nil || reset || len(recs) != 0 {
		t.Fatalf("no journal yet: %v %v %v", recs, reset, err)
	}
	j, err := Open[testRecord](path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, typ := range []string{"campaign", "pinned"} {
		if _, err := j.Append(testRecord{Type: typ}); err != nil {
			t.Fatal(err)
		}
	}
	recs, _, err := tail.Read()
	if err != nil || len(recs) != 2 || recs[0].Type != "campaign" || recs[1].Seq != 2 {
		t.Fatalf("first read: %+v %v", recs, err)
	}
	// A record being written (no newline yet) is left for the next read.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`0000abcd {"seq":3,"type":"run_st`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if recs, _, err := tail.Read(); err != nil || len(recs) != 0 {
		t.Fatalf("torn tail must not be read: %+v %v", recs, err)
	}
	// The engine drops the torn tail on resume and appends again: the file shrinks first.
	j.Close()
	j2, err := Open[testRecord](path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if _, err := j2.Append(testRecord{Type: "run_start", Run: "det/baseline-1"}); err != nil {
		t.Fatal(err)
	}
	recs, reset, err := tail.Read()
	if err != nil || reset || len(recs) != 1 || recs[0].Run != "det/baseline-1" || recs[0].Seq != 3 {
		t.Fatalf("after resume: %+v reset %v %v", recs, reset, err)
	}
	// A recreated (shorter) journal makes the reader start over.
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, reset, _ := tail.Read(); !reset {
		t.Fatal("a shrunk journal must reset the reader")
	}
}
