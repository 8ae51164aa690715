package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"kvparity/engine/run"
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
// Records carry their sequence number (1, 2, 3, ...): the reader refuses a gap, a duplicate or
// a reordering, naming the line. A crash mid-write leaves a torn last line, one without its
// newline (a record is acknowledged only once its newline is written and fsync'd); OpenJournal
// moves those bytes aside to a quarantine file (journal.jsonl.torn-<unix seconds>) with a
// warning, then truncates the file back to the last whole record. A complete line (newline and
// all) that fails its checksum was acknowledged, so it is corruption wherever it is, the last
// line too: the journal is refused, never repaired. Earlier lines are never rewritten, and a
// reader (ReadJournal, JournalTail) never modifies the file.

// A RecordType names what a journal record says.
type RecordType string

// Record types of the engine core (defined in records.go). Other stages add their own, each
// defined in its file with its payload's Go type (doc.go, "Adding a record kind").
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
// payload, decoded only by History (records.go): readers ask History, never a Record's Data.
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
	PGID    int     `json:"pgid,omitempty"` // run_start: the replay's process group (killed on resume if the run never ended)
	// Owner is run_start's kvparity: a resume kills a run's survivors only once it is dead.
	Owner *run.Owner `json:"owner,omitempty"`

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

	// The founding campaign record's frozen row: row.toml's SHA-256 and text, so an edited
	// row.toml is refused on resume, naming its first differing key (row_frozen.go).
	RowSHA256 string `json:"row_sha256,omitempty"`
	RowTOML   string `json:"row_toml,omitempty"`

	// A perturbed repetition's set ("set": the row's whole set at once; else the one variation
	// tried alone, Index being the try) and the variations applied.
	Variation  string      `json:"variation,omitempty"`
	Variations []Variation `json:"variations,omitempty"`

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

// OpenJournal opens (or creates) a journal and replays its whole records. A torn tail (no
// newline: never acknowledged) is moved to a quarantine file next to the journal, with one
// warning, before the file is truncated back to its whole records; any other damage is an
// error naming its line.
func OpenJournal(path string, warn func(string)) (*Journal, error) {
	f, err := atomicfile.OpenNoFollow(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	recs, good, err := parseJournal(data, path, RefuseDamage)
	if err != nil {
		f.Close()
		return nil, err
	}
	if good < len(data) {
		q := fmt.Sprintf("%s.torn-%d", path, time.Now().Unix())
		if err := atomicfile.Write(q, data[good:], 0o644); err != nil {
			f.Close()
			return nil, fmt.Errorf("journal %s: keeping the torn tail in %s before dropping it: %w", path, q, err)
		}
		if warn != nil {
			warn(fmt.Sprintf("journal %s: moved a torn last record (%d bytes at offset %d, no newline: it was never acknowledged) to %s", path, len(data)-good, good, q))
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

// A TailMode is what a journal reader does with a damaged end of the file.
type TailMode int

const (
	// RefuseDamage reads as a resuming writer does: only a torn last line (no newline: never
	// acknowledged) is skipped; a complete line that fails its checksum or does not parse, and
	// a sequence number that is not the previous one plus one (a gap, a duplicate, a
	// reordering), are an error naming the line. For readers of a campaign that is not being
	// written (the report, clean, Open).
	RefuseDamage TailMode = iota
	// SkipDamagedTail reads as a follower of a journal another kvparity may be writing (the
	// matrix, possibly from another node over a shared filesystem): reading stops before the
	// first line that is torn or does not decode, leaving it for a later read; the writer
	// quarantines or refuses it when it resumes. Sequence numbers are not checked.
	SkipDamagedTail
)

// ReadJournal returns a journal's whole records without opening it for appending, and the
// length of the damaged tail it skipped (0 when there is none) so a read-only caller can say
// so. The file is never modified.
func ReadJournal(path string, mode TailMode) ([]Record, int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("journal: %w", err)
	}
	recs, good, err := parseJournal(data, path, mode)
	return recs, len(data) - good, err
}

// parseJournal returns the whole records and the byte length they span, the damaged tail
// handled as mode says.
func parseJournal(data []byte, path string, mode TailMode) ([]Record, int, error) {
	var recs []Record
	off, line := 0, 0
	for off < len(data) {
		line++
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			return recs, off, nil // torn: no newline, never acknowledged
		}
		rec, err := decodeLine(data[off : off+nl])
		if err != nil && mode == SkipDamagedTail {
			return recs, off, nil // a corrupt line: the writer drops or refuses it when it resumes
		}
		if err != nil {
			where := "not the last line"
			if off+nl+1 == len(data) {
				where = "the last line, complete with its newline, so it was acknowledged"
			}
			return nil, 0, fmt.Errorf("journal %s: line %d: %v (%s: the journal is damaged, refusing to resume)", path, line, err, where)
		}
		if want := int64(len(recs)) + 1; mode == RefuseDamage && rec.Seq != want {
			what := fmt.Sprintf("a gap or a reordering (record %d is missing here)", want)
			switch {
			case len(recs) > 0 && rec.Seq == recs[len(recs)-1].Seq:
				what = "a duplicate of the line before it"
			case rec.Seq < want:
				what = "a duplicate or a reordering (that seq was already read)"
			}
			return nil, 0, fmt.Errorf("journal %s: line %d: seq %d, expected %d: %s; the journal is damaged, refusing to resume", path, line, rec.Seq, want, what)
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
	if rec.Type == RecRunStart && rec.PGID == 0 {
		rec.PGID = rec.PID // the runner makes every replay the leader of its own process group
	}
	if rec.Type == RecRunStart && rec.Owner == nil {
		o := run.Self()
		rec.Owner = &o
	}
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

// followed adds a record another kvparity appended to a read-only journal's memory (the file is
// that kvparity's to write).
func (j *Journal) followed(rec Record) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq = rec.Seq
	j.records = append(j.records, rec)
}

// lastSeq is the sequence number of the last record held.
func (j *Journal) lastSeq() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seq
}
