package matrixview

import (
	"kvparity/engine/matrix"
	"kvparity/ui/pane"

	tea "charm.land/bubbletea/v2"
)

// rowsMsg is a new snapshot of the matrix, one status per row in matrix order.
type rowsMsg []matrix.RowStatus

// doneMsg says the matrix ended (every row has ended, or following stopped).
type doneMsg struct {
	Result *matrix.Result // nil when matrix.Run refused its input
	Err    error
}

// NoteMsg is a one-line note the view shows under the rows (e.g. why a row cannot be opened
// yet); an empty note clears it.
type NoteMsg string

// A Feed carries snapshots from matrix.Run (its OnUpdate) to the model, the newest only.
type Feed struct {
	f *pane.Feed[[]matrix.RowStatus, doneMsg]
}

// NewFeed makes an empty feed.
func NewFeed() *Feed { return &Feed{pane.NewFeed[[]matrix.RowStatus, doneMsg]()} }

// Publish hands the latest snapshot to the UI (use it as matrix.Options.OnUpdate).
func (f *Feed) Publish(rows []matrix.RowStatus) { f.f.Publish(rows) }

// Finish hands the matrix's end to the UI; call it once, after matrix.Run returned.
func (f *Feed) Finish(res *matrix.Result, err error) { f.f.Finish(doneMsg{Result: res, Err: err}) }

// wait is the re-armed command that delivers the next snapshot (rowsMsg) or the end (doneMsg).
// The model re-arms it after each rowsMsg; after doneMsg it stops.
func (f *Feed) wait() tea.Cmd {
	return f.f.Wait(func(rows []matrix.RowStatus) tea.Msg { return rowsMsg(rows) }, func(d doneMsg) tea.Msg { return d })
}
