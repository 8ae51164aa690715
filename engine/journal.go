package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"kvparity/verdict"
	"os"
	"sync"
	"time"

	"kvparity/internal/atomicfile"
)

// The journal (journal.jsonl) is the campaign's append-only history. Each line is
//
//	<crc32c of the payload, 8 hex digits> <payload JSON>\n
//
// and is fsync'd before Append returns, so a record that Append acknowledged survives a crash.
// A crash mid-write leaves a torn last line; Open detects it by its missing newline or bad
// checksum, drops it with a warning and truncates the file back to the last whole record (the
// only bytes ever removed are ones never acknowledged). Earlier lines are never rewritten.

// A RecordType names what a journal record says.
type RecordType string

// Record types of the engine core. Other stages add their own (a stage's records carry its
// payload in Record.Data).
const (
	RecCampaign    RecordType = "campaign"     // the campaign was created (Note: kvparity version)
	RecPinned      RecordType = "pinned"       // an artifact was pinned (Artifact)
	RecRunStart    RecordType = "run_start"    // a process started (Run, Arm, Kind, Index, Attempt, Gen, CPUs, PID)
	RecRunEnd      RecordType = "run_end"      // a process ended and its outputs were checked
	RecVerdict     RecordType = "verdict"      // a stage verdict (Stage, Arm, Verdict, Reason)
	RecStale       RecordType = "stale"        // an arm's source changed: its results up to Gen are stale
	RecBlocked     RecordType = "blocked"      // the row was blocked (Stage, Reason)
	recReportsGone RecordType = "reports_gone" // matching full reports were deleted (Runs)
)

// A Record is one journal entry. Fields are optional per type; Data carries a stage-specific
// payload for record types other packages define.
type Record struct {
	Seq  int64      `json:"seq"`
	Type RecordType `json:"type"`
	At   time.Time  `json:"at"`

	Run     RunID   `json:"run,omitempty"`
	Arm     Arm     `json:"arm,omitempty"`
	Kind    RunKind `json:"kind,omitempty"`
	Index   int     `json:"index,omitempty"`   // repetition, pair or warmup index (1-based)
	Attempt int     `json:"attempt,omitempty"` // 1-based
	Gen     int     `json:"gen,omitempty"`     // the arm's artifact generation the run used
	CPUs    []int   `json:"cpus,omitempty"`
	PID     int     `json:"pid,omitempty"`

	ExitCode   int     `json:"exit_code,omitempty"`
	Signal     string  `json:"signal,omitempty"`
	TimedOut   bool    `json:"timed_out,omitempty"`
	ElapsedMs  float64 `json:"elapsed_ms,omitempty"`
	Error      string  `json:"error,omitempty"`
	Digest     string  `json:"digest,omitempty"`
	FixedPoint string  `json:"fixed_point,omitempty"`
	ReportPath string  `json:"report_path,omitempty"` // relative to the campaign dir
	Evidence   string  `json:"evidence,omitempty"`    // relative path of the evidence JSON

	Stage   Stage        `json:"stage,omitempty"`
	Verdict verdict.Word `json:"verdict,omitempty"`
	Reason  string       `json:"reason,omitempty"`

	Artifact *ArtifactInfo `json:"artifact,omitempty"`
	OldSHA   string        `json:"old_sha256,omitempty"`
	NewSHA   string        `json:"new_sha256,omitempty"`
	Runs     []RunID       `json:"runs,omitempty"`
	Note     string        `json:"note,omitempty"`

	Data json.RawMessage `json:"data,omitempty"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// A Journal appends records to journal.jsonl. It is safe for concurrent use.
type Journal struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	seq     int64
	records []Record
	failed  error // the first write error: the journal refuses further appends
}

// OpenJournal opens (or creates) a journal and replays its whole records. warn receives one
// message per dropped torn tail; a corrupt line before the tail is an error naming its line.
func OpenJournal(path string, warn func(string)) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	recs, good, err := parseJournal(data, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	if good < len(data) {
		if warn != nil {
			warn(fmt.Sprintf("journal %s: dropped a torn or corrupt last record (%d bytes at offset %d); it was never acknowledged", path, len(data)-good, good))
		}
		if err := f.Truncate(int64(good)); err != nil {
			f.Close()
			return nil, fmt.Errorf("journal %s: dropping the torn tail: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, fmt.Errorf("journal %s: %w", path, err)
		}
	}
	if _, err := f.Seek(int64(good), io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	j := &Journal{f: f, path: path, records: recs}
	if n := len(recs); n > 0 {
		j.seq = recs[n-1].Seq
	}
	return j, nil
}

// ReadJournal returns a journal's whole records without opening it for appending (a reader
// such as a report or the matrix): a torn last line is ignored, not dropped from the file.
func ReadJournal(path string) ([]Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	recs, _, err := parseJournal(data, path)
	return recs, err
}

// parseJournal returns the whole records and the byte length they span. Only the last line may
// be bad (torn by a crash); a bad line followed by good ones means the file was damaged.
func parseJournal(data []byte, path string) ([]Record, int, error) {
	var recs []Record
	off, line := 0, 0
	for off < len(data) {
		line++
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			return recs, off, nil // torn: no newline
		}
		rec, err := decodeLine(data[off : off+nl])
		if err != nil {
			if off+nl+1 == len(data) {
				return recs, off, nil // corrupt last line: treat as torn
			}
			return nil, 0, fmt.Errorf("journal %s: line %d: %v (not the last line: the journal is damaged, refusing to resume)", path, line, err)
		}
		recs = append(recs, rec)
		off += nl + 1
	}
	return recs, off, nil
}

func decodeLine(b []byte) (Record, error) {
	var rec Record
	if len(b) < 10 || b[8] != ' ' {
		return rec, errors.New("not a checksummed record")
	}
	var want uint32
	if _, err := fmt.Sscanf(string(b[:8]), "%08x", &want); err != nil {
		return rec, errors.New("bad checksum field")
	}
	payload := b[9:]
	if got := crc32.Checksum(payload, castagnoli); got != want {
		return rec, fmt.Errorf("checksum mismatch (crc32c %08x, line says %08x)", got, want)
	}
	if err := json.Unmarshal(payload, &rec); err != nil {
		return rec, fmt.Errorf("payload: %v", err)
	}
	return rec, nil
}

// Records returns a copy of every record, oldest first (including those appended since Open).
func (j *Journal) Records() []Record {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]Record(nil), j.records...)
}

// Append writes one record (Seq and, when zero, At are filled in) and fsyncs it. After a write
// error (a full disk, say) the journal refuses every later append with that error, so nothing
// after a lost record is recorded out of order.
func (j *Journal) Append(rec Record) (Record, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.failed != nil {
		return rec, j.failed
	}
	if j.f == nil {
		return rec, fmt.Errorf("journal %s: closed", j.path)
	}
	rec.Seq = j.seq + 1
	line, err := encodeLine(&rec)
	if err != nil {
		return rec, fmt.Errorf("journal %s: %w", j.path, err)
	}
	if _, err := j.f.Write(line); err != nil {
		j.failed = fmt.Errorf("journal %s: write failed, stage stopped (records before this one are safe): %w", j.path, err)
		return rec, j.failed
	}
	if err := j.f.Sync(); err != nil {
		j.failed = fmt.Errorf("journal %s: fsync failed, stage stopped (records before this one are safe): %w", j.path, err)
		return rec, j.failed
	}
	j.seq = rec.Seq
	j.records = append(j.records, rec)
	return rec, nil
}

// encodeLine fills At when zero and returns the checksummed line of rec.
func encodeLine(rec *Record) ([]byte, error) {
	if rec.At.IsZero() {
		rec.At = time.Now().UTC()
	}
	payload, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(payload)+10)
	line = fmt.Appendf(line, "%08x ", crc32.Checksum(payload, castagnoli))
	line = append(line, payload...)
	return append(line, '\n'), nil
}

// createJournal writes a new journal holding recs in one atomic step (temporary file, fsync,
// rename), so a campaign never exists with half its founding records.
func createJournal(path string, recs []Record) error {
	var data []byte
	for i := range recs {
		recs[i].Seq = int64(i + 1)
		line, err := encodeLine(&recs[i])
		if err != nil {
			return err
		}
		data = append(data, line...)
	}
	return atomicfile.Update(path, data, 0o644)
}

// Close closes the file; later appends fail.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}
