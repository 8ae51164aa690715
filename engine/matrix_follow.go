package engine

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// A journalTail reads the whole records appended to a journal since the last read. The engine
// writes the journal; the matrix only reads it (possibly from another node, over a shared
// filesystem), so a torn last line is simply left for a later read.
type journalTail struct {
	path string
	off  int64
}

// read returns the records appended since the last call. reset is true when the file shrank
// (the engine dropped a torn tail on resume, or the campaign was recreated): the caller must
// forget what it folded and fold the returned records, which then start at the beginning.
func (t *journalTail) read() (recs []Record, reset bool, err error) {
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
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			break // torn or still being written
		}
		rec, derr := decodeLine(data[:nl])
		if derr != nil {
			break // a corrupt last line: the engine drops it when it resumes
		}
		recs = append(recs, rec)
		t.off += int64(nl + 1)
		data = data[nl+1:]
	}
	return recs, reset, nil
}

// A dirWatcher wakes its owner when a file in one of the watched folders changes. It uses
// fsnotify where the filesystem delivers events and always polls as well: network filesystems
// (NFS, Lustre) accept watches but never report writes made on other nodes.
type dirWatcher struct {
	w      *fsnotify.Watcher // nil when fsnotify is unavailable
	poll   time.Duration
	wake   chan struct{}
	notify bool // at least one folder is watched by fsnotify
}

// newDirWatcher watches dirs; poll is the polling period (shortened to a quarter when fsnotify
// could not watch anything, since polling is then the only source).
func newDirWatcher(dirs []string, poll time.Duration) *dirWatcher {
	d := &dirWatcher{poll: poll, wake: make(chan struct{}, 1)}
	if w, err := fsnotify.NewWatcher(); err == nil {
		for _, dir := range dirs {
			if w.Add(dir) == nil {
				d.notify = true
			}
		}
		if d.notify {
			d.w = w
		} else {
			w.Close()
		}
	}
	if !d.notify {
		d.poll = max(poll/4, 50*time.Millisecond)
	}
	return d
}

// run delivers wake-ups until ctx ends: one per relevant fsnotify event and one per poll tick.
func (d *dirWatcher) run(ctx context.Context) {
	tick := time.NewTicker(d.poll)
	defer tick.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if d.w != nil {
		events, errs = d.w.Events, d.w.Errors
		defer d.w.Close()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			switch filepath.Base(ev.Name) {
			case FileJournal, PlacementFile, JobsFile:
				d.signal()
			}
		case _, ok := <-errs:
			if !ok {
				errs = nil
			}
		case <-tick.C:
			d.signal()
		}
	}
}

func (d *dirWatcher) signal() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// ReadJournalRecords returns a journal's whole records without opening it for writing: a torn
// or corrupt last line is left alone, never truncated. For readers that must not disturb a
// running campaign (the matrix on another node, tests).
func ReadJournalRecords(path string) ([]Record, error) {
	t := journalTail{path: path}
	recs, _, err := t.read()
	return recs, err
}
