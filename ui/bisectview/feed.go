package bisectview

import (
	"sync"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine/bisect"
)

// snapshotMsg is a new snapshot of the bisect.
type snapshotMsg snapshot

// doneMsg says the bisect ended: its result, or why it stopped (an interrupt keeps the
// recorded steps; the same command resumes).
type doneMsg struct {
	Result *bisect.Result
	Err    error
}

// NoteMsg is a one-line note under the commits (why a probe cannot be opened yet); "" clears it.
type NoteMsg string

// A Feed folds bisect.Run's Progress into a snapshot (Publish is its Options.Progress) and hands
// the newest snapshot to the program: a snapshot the view has not read yet is replaced by the
// newer one, so a fast stream of run events never blocks the bisect.
type Feed struct {
	mu    sync.Mutex
	state snapshot
	snaps chan snapshot
	done  chan doneMsg
}

// NewFeed makes an empty feed.
func NewFeed() *Feed {
	return &Feed{snaps: make(chan snapshot, 1), done: make(chan doneMsg, 1)}
}

// Publish folds p and offers the new snapshot. bisect.Run may call it from several goroutines
// (a probe's build and its campaign's event pump).
func (f *Feed) Publish(p bisect.Progress) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.state.apply(p)
	snap := f.state.clone()
	for {
		select {
		case f.snaps <- snap:
			return
		default:
		}
		select {
		case <-f.snaps: // drop the unread, older snapshot
		default:
		}
	}
}

// Finish hands the bisect's end to the view; call it once, after bisect.Run returned.
func (f *Feed) Finish(r *bisect.Result, err error) { f.done <- doneMsg{Result: r, Err: err} }

// Wait is the re-armed command that delivers the next snapshot (snapshotMsg) or the end
// (doneMsg, after the last snapshot published before it).
func (f *Feed) Wait() tea.Cmd {
	return func() tea.Msg {
		select {
		case s := <-f.snaps:
			return snapshotMsg(s)
		case d := <-f.done:
			select {
			case s := <-f.snaps:
				f.done <- d
				return snapshotMsg(s)
			default:
			}
			return d
		}
	}
}
