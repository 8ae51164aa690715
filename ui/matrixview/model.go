package matrixview

import (
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/engine/matrix"
	"kvparity/ui/keys"
	"kvparity/ui/theme"
)

// OpenFunc opens a row's full workbench; the caller injects it (the matrix view knows nothing
// of the workbench). It returns a command to run, or nil.
type OpenFunc func(row matrix.RowStatus) tea.Cmd

// Model is the matrix view.
type Model struct {
	styles theme.Styles
	keys   keys.ListKeys

	dir    string // the matrix folder, for the title
	rows   []matrix.RowStatus
	cursor int
	open   OpenFunc
	feed   *Feed // nil in tests that deliver rowsMsg themselves
	done   *doneMsg
	note   string
	width  int
	height int
	// Standalone: q quits the program and the view takes the alternate screen. Embedded, the
	// workbench owns quitting.
	Standalone bool
	// ReportName is the matrix report's file, named on the end line ("" names none); main
	// passes the matrix folder's matrix.md.
	ReportName string
}

// New builds the view for the matrix in dir. feed may be nil (this package's tests send rowsMsg
// and doneMsg themselves); open may be nil (enter then does nothing).
func New(dir string, st theme.Styles, feed *Feed, open OpenFunc) Model {
	return Model{styles: st, keys: keys.Matrix(), dir: dir, feed: feed, open: open, width: 100, height: 24}
}

// Init starts reading the feed.
func (m Model) Init() tea.Cmd {
	if m.feed == nil {
		return nil
	}
	return m.feed.wait()
}

// selected returns the row under the cursor.
func (m Model) selected() (matrix.RowStatus, bool) {
	if m.cursor < 0 || m.cursor >= len(m.rows) {
		return matrix.RowStatus{}, false
	}
	return m.rows[m.cursor], true
}

// SetSize gives the view its box.
func (m *Model) SetSize(w, h int) { m.width, m.height = max(w, 0), max(h, 0) }

// Update takes snapshots, the end of the matrix, window sizes and keys.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case rowsMsg:
		m.setRows(msg)
		if m.feed != nil {
			return m, m.feed.wait()
		}
	case doneMsg:
		d := msg
		m.done = &d
		if d.Result != nil {
			m.setRows(d.Result.Rows)
		}
	case NoteMsg:
		m.note = string(msg)
	case tea.WindowSizeMsg:
		m.SetSize(msg.Width, msg.Height)
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return m, nil
}

// setRows replaces the rows, keeping the cursor on the same row (rows are matched by name).
func (m *Model) setRows(rows []matrix.RowStatus) {
	sel, had := m.selected()
	m.rows = slices.Clone(rows)
	if had {
		if i := slices.IndexFunc(m.rows, func(r matrix.RowStatus) bool { return r.Row == sel.Row }); i >= 0 {
			m.cursor = i
		}
	}
	m.cursor = max(min(m.cursor, len(m.rows)-1), 0)
}

func (m Model) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(k, m.keys.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(k, m.keys.Down):
		m.cursor = max(min(m.cursor+1, len(m.rows)-1), 0)
	case key.Matches(k, m.keys.Top):
		m.cursor = 0
	case key.Matches(k, m.keys.End):
		m.cursor = max(len(m.rows)-1, 0)
	case key.Matches(k, m.keys.Open):
		m.note = ""
		if row, ok := m.selected(); ok && m.open != nil {
			return m, m.open(row)
		}
	case key.Matches(k, m.keys.Quit):
		if m.Standalone {
			return m, tea.Quit
		}
	}
	return m, nil
}

// View renders the whole screen (standalone use).
func (m Model) View() tea.View {
	v := tea.NewView(m.Render(m.width, m.height))
	v.AltScreen = m.Standalone
	return v
}
