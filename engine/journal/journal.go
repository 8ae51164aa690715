// Package journal is the campaign's append-only journal as a file: checksummed, fsync'd lines,
// sequence numbers checked on reading, a torn tail quarantined, one reader with an explicit
// damaged-tail mode, and a follower that reads what another kvparity appends. It knows nothing
// of what a record says: the campaign's records (engine.Record) and the bisect's share it.
//
// Each line is
//
//	<crc32c of the payload, 8 hex digits> <payload JSON>\n
//
// and is fsync'd before Append returns, so a record that Append acknowledged survives a crash.
// Records carry their sequence number (1, 2, 3, ...): the reader refuses a gap, a duplicate or
// a reordering, naming the line. A crash mid-write leaves a torn last line, one without its
// newline (a record is acknowledged only once its newline is written and fsync'd); Open moves
// those bytes aside to a quarantine file (journal.jsonl.torn-<unix seconds>) with a warning,
// then truncates the file back to the last whole record. A complete line (newline and all)
// that fails its checksum was acknowledged, so it is corruption wherever it is, the last line
// too: the journal is refused, never repaired. Earlier lines are never rewritten, and a reader
// (Read, Tail) never modifies the file.
//
// It imports internal/atomicfile to open the journal without following a link and to write a
// new journal and a torn tail's quarantine atomically.
package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"time"

	"kvparity/internal/atomicfile"
)

// Entry is what a journal's record type provides, through its pointer: R is the record, a
// JSON object with its sequence number.
type Entry[R any] interface {
	*R
	// Sequence is the record's sequence number (1 for the first record).
	Sequence() int64
	// Prepare readies the record for its line: its sequence number set to seq, and whatever
	// the record type fills in at append time (the time, say).
	Prepare(seq int64)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// A File appends records to a journal. It is safe for concurrent use.
type File[R any, P Entry[R]] struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	seq     int64
	records []R
	failed  error // the first write error: the journal refuses further appends
}

// Open opens (or creates) a journal and replays its whole records. A torn tail (no newline:
// never acknowledged) is moved to a quarantine file next to the journal, with one warning,
// before the file is truncated back to its whole records; any other damage is an error naming
// its line.
func Open[R any, P Entry[R]](path string, warn func(string)) (*File[R, P], error) {
	f, err := atomicfile.OpenNoFollow(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	recs, good, err := parse[R, P](data, path, RefuseDamage)
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
	j := &File[R, P]{f: f, path: path, records: recs}
	if n := len(recs); n > 0 {
		j.seq = P(&recs[n-1]).Sequence()
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

// Read returns a journal's whole records without opening it for appending, and the length of
// the damaged tail it skipped (0 when there is none) so a read-only caller can say so. The
// file is never modified.
func Read[R any, P Entry[R]](path string, mode TailMode) ([]R, int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("journal: %w", err)
	}
	recs, good, err := parse[R, P](data, path, mode)
	return recs, len(data) - good, err
}

// parse returns the whole records and the byte length they span, the damaged tail handled as
// mode says.
func parse[R any, P Entry[R]](data []byte, path string, mode TailMode) ([]R, int, error) {
	var recs []R
	off, line := 0, 0
	for off < len(data) {
		line++
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			return recs, off, nil // torn: no newline, never acknowledged
		}
		var rec R
		err := decodeLine(data[off:off+nl], &rec)
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
		if seq, want := P(&rec).Sequence(), int64(len(recs))+1; mode == RefuseDamage && seq != want {
			what := fmt.Sprintf("a gap or a reordering (record %d is missing here)", want)
			switch {
			case len(recs) > 0 && seq == P(&recs[len(recs)-1]).Sequence():
				what = "a duplicate of the line before it"
			case seq < want:
				what = "a duplicate or a reordering (that seq was already read)"
			}
			return nil, 0, fmt.Errorf("journal %s: line %d: seq %d, expected %d: %s; the journal is damaged, refusing to resume", path, line, seq, want, what)
		}
		recs = append(recs, rec)
		off += nl + 1
	}
	return recs, off, nil
}

func decodeLine(b []byte, rec any) error {
	if len(b) < 10 || b[8] != ' ' {
		return errors.New("not a checksummed record")
	}
	var want uint32
	if _, err := fmt.Sscanf(string(b[:8]), "%08x", &want); err != nil {
		return errors.New("bad checksum field")
	}
	payload := b[9:]
	if got := crc32.Checksum(payload, castagnoli); got != want {
		return fmt.Errorf("checksum mismatch (crc32c %08x, line says %08x)", got, want)
	}
	if err := json.Unmarshal(payload, rec); err != nil {
		return fmt.Errorf("payload: %v", err)
	}
	return nil
}

// Records returns a copy of every record, oldest first (including those appended since Open).
func (j *File[R, P]) Records() []R {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]R(nil), j.records...)
}

// Append writes one record (prepared with the next sequence number) and fsyncs it. After a
// write error (a full disk, say) the journal refuses every later append with that error, so
// nothing after a lost record is recorded out of order.
func (j *File[R, P]) Append(rec R) (R, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.failed != nil {
		return rec, j.failed
	}
	if j.f == nil {
		return rec, fmt.Errorf("journal %s: closed", j.path)
	}
	P(&rec).Prepare(j.seq + 1)
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
	j.seq = P(&rec).Sequence()
	j.records = append(j.records, rec)
	return rec, nil
}

// encodeLine returns the checksummed line of rec.
func encodeLine(rec any) ([]byte, error) {
	payload, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(payload)+10)
	line = fmt.Appendf(line, "%08x ", crc32.Checksum(payload, castagnoli))
	line = append(line, payload...)
	return append(line, '\n'), nil
}

// Create writes a new journal holding recs (prepared with sequence numbers 1, 2, ...) in one
// atomic step (temporary file, fsync, rename), so a campaign never exists with half its
// founding records.
func Create[R any, P Entry[R]](path string, recs []R) error {
	var data []byte
	for i := range recs {
		P(&recs[i]).Prepare(int64(i + 1))
		line, err := encodeLine(&recs[i])
		if err != nil {
			return err
		}
		data = append(data, line...)
	}
	return atomicfile.Update(path, data, 0o644)
}

// Close closes the file; later appends fail.
func (j *File[R, P]) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// Followed adds a record another kvparity appended to a read-only journal's memory (the file
// is that kvparity's to write).
func (j *File[R, P]) Followed(rec R) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq = P(&rec).Sequence()
	j.records = append(j.records, rec)
}

// LastSeq is the sequence number of the last record held.
func (j *File[R, P]) LastSeq() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seq
}

// ReadOnly holds recs, read from the journal at path, and refuses every append with why: a
// campaign opened where it must not be written (cleaned, or followed while another kvparity
// writes it) keeps its records in memory all the same.
func ReadOnly[R any, P Entry[R]](path string, recs []R, why error) *File[R, P] {
	j := &File[R, P]{path: path, records: recs, failed: why}
	if n := len(recs); n > 0 {
		j.seq = P(&recs[n-1]).Sequence()
	}
	return j
}

// Refuse makes every later append fail with why, as a write error does; the records held stay
// readable. The engine's tests use it to fill the disk mid-stage.
func (j *File[R, P]) Refuse(why error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.failed == nil {
		j.failed = why
	}
}
