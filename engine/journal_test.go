package engine

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestJournalAppendReplayAndChecksums(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, err := OpenJournal(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := j.Append(Record{Type: RecRunEnd, Run: RunID("det/baseline-" + string(rune('0'+i))), Index: i, Digest: "d"}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 || len(lines[0]) < 10 || lines[0][8] != ' ' {
		t.Fatalf("journal lines %q", lines)
	}
	j, err = OpenJournal(path, func(s string) { t.Errorf("unexpected warning %s", s) })
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	recs := j.Records()
	if len(recs) != 3 || recs[2].Seq != 3 || recs[2].Index != 3 {
		t.Fatalf("replayed %+v", recs)
	}
	if r, _ := j.Append(Record{Type: RecVerdict}); r.Seq != 4 {
		t.Fatalf("seq after reopen %d", r.Seq)
	}
}

func TestJournalDropsTornOrCorruptTail(t *testing.T) {
	for name, tail := range map[string]string{
		"torn":    `0badc0de {"seq":3,"ty`,
		"corrupt": `00000000 {"seq":3,"type":"run_end"}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.jsonl")
			j, _ := OpenJournal(path, nil)
			j.Append(Record{Type: RecCampaign})
			j.Append(Record{Type: RecRunStart, Run: "det/baseline-1"})
			j.Close()
			good, _ := os.ReadFile(path)
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(tail)
			f.Close()
			var warned string
			j, err := OpenJournal(path, func(s string) { warned = s })
			if err != nil {
				t.Fatal(err)
			}
			if len(j.Records()) != 2 || !strings.Contains(warned, "dropped a torn or corrupt last record") {
				t.Fatalf("records %d, warning %q", len(j.Records()), warned)
			}
			if _, err := j.Append(Record{Type: RecRunEnd, Run: "det/baseline-1"}); err != nil {
				t.Fatal(err)
			}
			j.Close()
			after, _ := os.ReadFile(path)
			if !strings.HasPrefix(string(after), string(good)) {
				t.Fatal("earlier lines were rewritten")
			}
			j, _ = OpenJournal(path, func(s string) { t.Errorf("warning after repair: %s", s) })
			if n := len(j.Records()); n != 3 {
				t.Fatalf("%d records after repair", n)
			}
			j.Close()
		})
	}
}

func TestJournalRefusesDamageBeforeTheTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, _ := OpenJournal(path, nil)
	j.Append(Record{Type: RecCampaign})
	j.Append(Record{Type: RecRunStart})
	j.Close()
	data, _ := os.ReadFile(path)
	data[12] ^= 0x20 // flip a payload byte of line 1
	os.WriteFile(path, data, 0o644)
	_, err := OpenJournal(path, nil)
	if err == nil || !strings.Contains(err.Error(), "line 1: checksum mismatch") {
		t.Fatalf("got %v", err)
	}
}

func TestJournalWriteFailureStopsAndKeepsRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	j, _ := OpenJournal(path, nil)
	j.Append(Record{Type: RecCampaign})
	// Simulate a full disk: the descriptor starts refusing writes.
	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	j.f.Close()
	j.f = ro
	_, err = j.Append(Record{Type: RecRunEnd})
	if err == nil || !strings.Contains(err.Error(), "write failed, stage stopped") {
		t.Fatalf("got %v", err)
	}
	if _, err2 := j.Append(Record{Type: RecVerdict}); err2 == nil {
		t.Fatal("append after a write failure succeeded")
	}
	j.Close()
	j, err = OpenJournal(path, nil)
	if err != nil || len(j.Records()) != 1 {
		t.Fatalf("records before the failure lost: %v %v", err, j.Records())
	}
	j.Close()
}

var errFullDisk = &os.PathError{Op: "write", Path: "journal.jsonl", Err: syscall.ENOSPC}
