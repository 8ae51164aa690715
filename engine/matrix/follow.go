package matrix

import (
	"context"
	"kvparity/internal/layout"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

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
			case layout.FileJournal, layout.FilePlacement, layout.FileJobs:
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
