package journal

import (
	"io"
	"os"
)

// A Tail reads the whole records appended to a journal since the last read. The engine writes
// the journal; a follower (the matrix, a workbench following another kvparity) only reads it,
// possibly from another node over a shared filesystem, so it reads with SkipDamagedTail: a
// torn or corrupt last line is simply left for a later read.
type Tail[R any, P Entry[R]] struct {
	path string
	off  int64
}

// NewTail follows the journal at path (which need not exist yet).
func NewTail[R any, P Entry[R]](path string) *Tail[R, P] { return &Tail[R, P]{path: path} }

// Path is the journal followed.
func (t *Tail[R, P]) Path() string { return t.path }

// Read returns the records appended since the last call. reset is true when the file shrank
// (the engine dropped a torn tail on resume, or the campaign was recreated): the caller must
// forget what it folded and fold the returned records, which then start at the beginning.
func (t *Tail[R, P]) Read() (recs []R, reset bool, err error) {
	f, err := os.Open(t.path)
	if os.IsNotExist(err) {
		reset, t.off = t.off > 0, 0
		return nil, reset, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if fi.Size() < t.off {
		t.off, reset = 0, true
	}
	if fi.Size() == t.off {
		return nil, reset, nil
	}
	if _, err := f.Seek(t.off, io.SeekStart); err != nil {
		return nil, reset, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, reset, err
	}
	recs, good, _ := parse[R, P](data, t.path, SkipDamagedTail) // SkipDamagedTail returns no error
	t.off += int64(good)
	return recs, reset, nil
}
