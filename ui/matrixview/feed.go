package matrixview

import (
	"kvparity/engine/matrix"

	tea "charm.land/bubbletea/v2"
)

// RowsMsg is a new snapshot of the matrix, one status per row in matrix order.
type RowsMsg []matrix.RowStatus

// DoneMsg says the matrix ended (every row has ended, or following stopped).
type DoneMsg struct {
	Result *matrix.Result // nil when matrix.Run refused its input
	Err    error
}

// NoteMsg is a one-line note the view shows under the rows (e.g. why a row cannot be opened
// yet); an empty note clears it.
type NoteMsg string

// A Feed carries snapshots from matrix.Run (its OnUpdate) to the model. Publish never
// blocks the matrix: a snapshot the UI has not read yet is replaced by the newer one, since
// each snapshot is complete.
type Feed struct {
	rows chan []matrix.RowStatus
	done chan DoneMsg
}

// NewFeed makes an empty feed.
func NewFeed() *Feed {
	return &Feed{rows: make(chan []matrix.RowStatus, 1), done: make(chan DoneMsg, 1)}
}

// Publish hands the latest snapshot to the UI (use it as matrix.Options.OnUpdate).
func (f *Feed) Publish(rows []matrix.RowStatus) {
	for {
		select {
		case f.rows <- rows:
			return
		default:
		}
		select {
		case <-f.rows: // drop the unread, older snapshot
		default:
		}
	}
}

// Finish hands the matrix's end to the UI; call it once, after matrix.Run returned.
func (f *Feed) Finish(res *matrix.Result, err error) { f.done <- DoneMsg{Result: res, Err: err} }

// Wait is the re-armed command that delivers the next snapshot (RowsMsg) or the end (DoneMsg).
// The model re-arms it after each RowsMsg; after DoneMsg it stops.
func (f *Feed) Wait() tea.Cmd {
	return func() tea.Msg {
		select {
		case rows := <-f.rows:
			return RowsMsg(rows)
		case d := <-f.done:
			// Deliver a last snapshot published just before the end first.
			select {
			case rows := <-f.rows:
				f.done <- d
				return RowsMsg(rows)
			default:
			}
			return d
		}
	}
}
