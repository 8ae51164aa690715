package bisectview

import (
	"path/filepath"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/bisect"
	"kvparity/ui/keys"
	"kvparity/ui/theme"
)

// OpenFunc opens a probe campaign (its folder) in the workbench; the caller injects it. It
// returns a command to run, or nil.
type OpenFunc func(dir string) tea.Cmd

// Model is the bisect view.
type Model struct {
	Styles theme.Styles
	Keys   keys.ListKeys

	state  snapshot
	cursor int  // a line of the list: 0 the newest commit, len(Commits) the good ref
	follow bool // the cursor follows the commit being probed until a key moves it
	feed   *Feed
	done   *doneMsg
	note   string
	open   OpenFunc
	width  int
	height int
	// Standalone: q quits the program and the view takes the alternate screen.
	Standalone bool
}

// New builds the view. feed may be nil when the caller sends snapshotMsg and doneMsg itself;
// open may be nil (enter then does nothing).
func New(st theme.Styles, feed *Feed, open OpenFunc) Model {
	return Model{Styles: st, Keys: keys.Bisect(), feed: feed, open: open, follow: true, width: 100, height: 24}
}

// Init starts reading the feed.
func (m Model) Init() tea.Cmd {
	if m.feed == nil {
		return nil
	}
	return m.feed.Wait()
}

// ended returns the bisect's end once it arrived.
func (m Model) ended() (doneMsg, bool) {
	if m.done == nil {
		return doneMsg{}, false
	}
	return *m.done, true
}

// selected is the commit under the cursor (the good ref's line last).
func (m Model) selected() (commitLine, bool) {
	n := len(m.state.Commits)
	switch {
	case m.state.Started == nil || m.cursor < 0 || m.cursor > n:
		return commitLine{}, false
	case m.cursor == n:
		return m.state.Good, true
	}
	return m.state.Commits[n-1-m.cursor], true
}

// SetSize gives the view its box.
func (m *Model) SetSize(w, h int) { m.width, m.height = max(w, 0), max(h, 0) }

// Update takes snapshots, the end of the bisect, notes, window sizes and keys.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case snapshotMsg:
		m.state = snapshot(msg)
		m.followCurrent()
		if m.feed != nil {
			return m, m.feed.Wait()
		}
	case doneMsg:
		d := msg
		m.done = &d
		if m.follow && d.Result != nil && d.Result.FirstBad != nil {
			m.selectCommit(d.Result.FirstBad.SHA)
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

// followCurrent puts the cursor on the commit being probed, until the user moves it.
func (m *Model) followCurrent() {
	if m.follow && m.state.Current != "" {
		m.selectCommit(m.state.Current)
	}
	m.cursor = max(min(m.cursor, len(m.state.Commits)), 0)
}

func (m *Model) selectCommit(sha string) {
	n := len(m.state.Commits)
	if sha == m.state.Good.Commit.SHA {
		m.cursor = n
		return
	}
	for i, c := range m.state.Commits {
		if c.Commit.SHA == sha {
			m.cursor = n - 1 - i
		}
	}
}

func (m Model) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	last := len(m.state.Commits)
	switch {
	case key.Matches(k, m.Keys.Up):
		m.cursor, m.follow = max(m.cursor-1, 0), false
	case key.Matches(k, m.Keys.Down):
		m.cursor, m.follow = min(m.cursor+1, last), false
	case key.Matches(k, m.Keys.Top):
		m.cursor, m.follow = 0, false
	case key.Matches(k, m.Keys.End):
		m.cursor, m.follow = last, false
	case key.Matches(k, m.Keys.Open):
		return m, m.openSelected()
	case key.Matches(k, m.Keys.Quit):
		if m.Standalone {
			return m, tea.Quit
		}
	}
	return m, nil
}

// openSelected opens the selected commit's probe campaign once it is judged: while a probe
// runs, its campaign's journal belongs to the bisect.
func (m *Model) openSelected() tea.Cmd {
	m.note = ""
	c, ok := m.selected()
	if !ok || m.open == nil {
		return nil
	}
	switch {
	case c.Commit.SHA == m.state.Good.Commit.SHA:
		m.note = "the good ref is every probe's baseline: open a probed commit"
	case c.Step == nil && (c.Phase == bisect.PhaseBuilding || c.Phase == bisect.PhaseRunning):
		m.note = c.Commit.Short() + " is being probed: open it when it is judged"
	case c.Step == nil:
		m.note = c.Commit.Short() + " has no probe campaign: it was not probed"
	case c.Step.Campaign == "":
		m.note = c.Commit.Short() + " has no probe campaign: it did not build"
	default:
		return m.open(filepath.Join(m.state.Started.Dir, c.Step.Campaign))
	}
	return nil
}

// View renders the whole screen (standalone use).
func (m Model) View() tea.View {
	v := tea.NewView(m.render(m.width, m.height))
	v.AltScreen = m.Standalone
	return v
}
