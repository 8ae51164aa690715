package bisectview

import (
	tea "charm.land/bubbletea/v2"

	"kvparity/bisect"
	"kvparity/ui/pane"
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

// A Feed folds bisect.Run's Progress into a snapshot (Publish is its Options.Progress) and
// hands the newest to the program: a fast stream of run events never blocks the bisect.
type Feed struct {
	f *pane.Fold[snapshot, bisect.Progress, doneMsg]
}

// NewFeed makes an empty feed.
func NewFeed() *Feed {
	return &Feed{pane.NewFold[snapshot, bisect.Progress, doneMsg]((*snapshot).apply, snapshot.clone)}
}

// Publish folds p and offers the new snapshot. bisect.Run may call it from several goroutines
// (a probe's build and its campaign's event pump).
func (f *Feed) Publish(p bisect.Progress) { f.f.Fold(p) }

// Finish hands the bisect's end to the view; call it once, after bisect.Run returned.
func (f *Feed) Finish(r *bisect.Result, err error) { f.f.Finish(doneMsg{Result: r, Err: err}) }

// Wait is the re-armed command that delivers the next snapshot (snapshotMsg) or the end
// (doneMsg, after the last snapshot published before it).
func (f *Feed) Wait() tea.Cmd {
	return f.f.Wait(func(s snapshot) tea.Msg { return snapshotMsg(s) }, func(d doneMsg) tea.Msg { return d })
}
