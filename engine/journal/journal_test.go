package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testRecord is the smallest record a journal holds: a sequence number and a type.
type testRecord struct {
	Seq    int64  `json:"seq"`
	Type   string `json:"type"`
	Run    string `json:"run,omitempty"`
	Index  int    `json:"index,omitempty"`
	Digest string `json:"digest,omitempty"`
}

func (r *testRecord) Sequence() int64   { return r.Seq }
func (r *testRecord) Prepare(seq int64) { r.Seq = seq }

func TestJournalAppendReplayAndChecksums(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := Open[testRecord](path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := j.Append(testRecord{Type: "run_end", Run: "det/baseline-" + string(rune('0'+i)), Index: i, Digest: "d"}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 || len(lines[0]) < 10 || lines[0][8] != ' ' {
		t.Fatalf("journal lines %q", lines)
	}
	j, err = Open[testRecord](path, func(s string) { t.Errorf("unexpected warning %s", s) })
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	recs := j.Records()
	if len(recs) != 3 || recs[2].Seq != 3 || recs[2].Index != 3 {
		t.Fatalf("replayed %+v", recs)
	}
	if r, _ := j.Append(testRecord{Type: "verdict"}); r.Seq != 4 {
		t.Fatalf("seq after reopen %d", r.Seq)
	}
}

// Issue 13 case 4: a torn tail (no newline: never acknowledged) is moved to a quarantine file
// before the journal is truncated, never just deleted.
func TestJournalQuarantinesTornTail(t *testing.T) {
	tail := `0badc0de {"seq":3,"ty`
	dir := t.TempDir()
	path := filepath.Join(dir, "journal.jsonl")
	j, _ := Open[testRecord](path, nil)
	j.Append(testRecord{Type: "campaign"})
	j.Append(testRecord{Type: "run_start", Run: "det/baseline-1"})
	j.Close()
	good, _ := os.ReadFile(path)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(tail)
	f.Close()
	// A reader ignores it and says so, and never modifies the file.
	recs, torn, err := Read[testRecord](path, RefuseDamage)
	if err != nil || len(recs) != 2 || torn != len(tail) {
		t.Fatalf("Read: %d records, torn %d, %v", len(recs), torn, err)
	}
	if now, _ := os.ReadFile(path); string(now) != string(good)+tail {
		t.Fatal("a reader modified the journal")
	}
	var warned string
	j, err = Open[testRecord](path, func(s string) { warned = s })
	if err != nil {
		t.Fatal(err)
	}
	qs, _ := filepath.Glob(path + ".torn-*")
	if len(j.Records()) != 2 || !strings.Contains(warned, "moved a torn last record") || len(qs) != 1 || !strings.Contains(warned, qs[0]) {
		t.Fatalf("records %d, warning %q, quarantine files %v", len(j.Records()), warned, qs)
	}
	if q, _ := os.ReadFile(qs[0]); string(q) != tail {
		t.Fatalf("quarantine holds %q, want the torn tail %q", q, tail)
	}
	if _, err := j.Append(testRecord{Type: "run_end", Run: "det/baseline-1"}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	after, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(after), string(good)) {
		t.Fatal("earlier lines were rewritten")
	}
	j, _ = Open[testRecord](path, func(s string) { t.Errorf("warning after repair: %s", s) })
	if n := len(j.Records()); n != 3 {
		t.Fatalf("%d records after repair", n)
	}
	j.Close()
}

// Issue 13 case 4: a complete last line (newline and all: acknowledged) with a bad checksum is
// corruption, refused naming its line; the file is left as it is.
func TestJournalRefusesCorruptAcknowledgedLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, _ := Open[testRecord](path, nil)
	j.Append(testRecord{Type: "campaign"})
	j.Append(testRecord{Type: "run_start", Run: "det/baseline-1"})
	j.Close()
	data, _ := os.ReadFile(path)
	data[len(data)-5] ^= 0x01 // a bit flip in the last record's payload
	os.WriteFile(path, data, 0o644)
	_, err := Open[testRecord](path, func(s string) { t.Errorf("warning %s", s) })
	if err == nil || !strings.Contains(err.Error(), "line 2: checksum mismatch") || !strings.Contains(err.Error(), "acknowledged") {
		t.Fatalf("got %v", err)
	}
	if _, _, err := Read[testRecord](path, RefuseDamage); err == nil {
		t.Fatal("Read accepted a corrupt acknowledged record")
	}
	if after, _ := os.ReadFile(path); string(after) != string(data) {
		t.Fatal("the journal was modified")
	}
}

// Issue 13 case 4: a deleted, duplicated or reordered line is refused naming the line.
func TestJournalRefusesGapDuplicateReorder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, _ := Open[testRecord](path, nil)
	for i := 1; i <= 4; i++ {
		j.Append(testRecord{Type: "run_end", Index: i})
	}
	j.Close()
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	lines[3] += "\n"
	for name, tc := range map[string]struct {
		lines []string
		want  string
	}{
		"gap":       {[]string{lines[0], lines[1], lines[3]}, "line 3: seq 4, expected 3: a gap"},
		"duplicate": {[]string{lines[0], lines[1], lines[1], lines[2], lines[3]}, "line 3: seq 2, expected 3: a duplicate of the line before it"},
		"reorder":   {[]string{lines[0], lines[2], lines[1], lines[3]}, "line 2: seq 3, expected 2"},
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "journal.jsonl")
			os.WriteFile(p, []byte(strings.Join(tc.lines, "")), 0o644)
			if _, err := Open[testRecord](p, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open: %v, want %q", err, tc.want)
			}
			if _, _, err := Read[testRecord](p, RefuseDamage); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Read: %v, want %q", err, tc.want)
			}
		})
	}
}

func TestJournalRefusesDamageBeforeTheTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, _ := Open[testRecord](path, nil)
	j.Append(testRecord{Type: "campaign"})
	j.Append(testRecord{Type: "run_start"})
	j.Close()
	data, _ := os.ReadFile(path)
	data[12] ^= 0x20 // flip a payload byte of line 1
	os.WriteFile(path, data, 0o644)
	_, err := Open[testRecord](path, nil)
	if err == nil || !strings.Contains(err.Error(), "line 1: checksum mismatch") {
		t.Fatalf("got %v", err)
	}
}

func TestJournalWriteFailureStopsAndKeepsRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, _ := Open[testRecord](path, nil)
	j.Append(testRecord{Type: "campaign"})
	// Simulate a full disk: the descriptor starts refusing writes.
	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	j.f.Close()
	j.f = ro
	_, err = j.Append(testRecord{Type: "run_end"})
	if err == nil || !strings.Contains(err.Error(), "write failed, stage stopped") {
		t.Fatalf("got %v", err)
	}
	if _, err2 := j.Append(testRecord{Type: "verdict"}); err2 == nil {
		t.Fatal("append after a write failure succeeded")
	}
	j.Close()
	j, err = Open[testRecord](path, nil)
	if err != nil || len(j.Records()) != 1 {
		t.Fatalf("records before the failure lost: %v %v", err, j.Records())
	}
	j.Close()
}

// The two tail modes read the same file differently: a corrupt complete line is an error
// naming it under RefuseDamage, the end of the records under SkipDamagedTail; a torn last
// line is skipped by both, and the file is never modified.
func TestReadTailModes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := Open[testRecord](path, nil)
	if err != nil {
		t.Fatal(err)
	}
	j.Append(testRecord{Type: "campaign"})
	j.Append(testRecord{Type: "run_start", Run: "det/baseline-1"})
	j.Close()
	good, _ := os.ReadFile(path)
	torn := `0badc0de {"seq":3`
	os.WriteFile(path, append(append([]byte(nil), good...), torn...), 0o644)
	for _, mode := range []TailMode{RefuseDamage, SkipDamagedTail} {
		recs, skipped, err := Read[testRecord](path, mode)
		if err != nil || len(recs) != 2 || skipped != len(torn) {
			t.Errorf("mode %d, torn tail: %d records, skipped %d, %v", mode, len(recs), skipped, err)
		}
	}
	corrupt := "0badc0de {\"seq\":3}\n"
	os.WriteFile(path, append(append([]byte(nil), good...), corrupt...), 0o644)
	if _, _, err := Read[testRecord](path, RefuseDamage); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("RefuseDamage on a corrupt acknowledged line: %v", err)
	}
	recs, skipped, err := Read[testRecord](path, SkipDamagedTail)
	if err != nil || len(recs) != 2 || skipped != len(corrupt) {
		t.Errorf("SkipDamagedTail: %d records, skipped %d, %v", len(recs), skipped, err)
	}
	if now, _ := os.ReadFile(path); string(now) != string(good)+corrupt {
		t.Error("a reader modified the journal")
	}
}
