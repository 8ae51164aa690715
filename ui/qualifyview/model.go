package qualifyview

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/ui/keys"
	"kvparity/ui/theme"
)

// Model is the qualify view.
type Model struct {
	Styles theme.Styles
	Keys   keys.ListKeys

	state  snapshot
	feed   *Feed
	done   *doneMsg
	top    int  // the first probe line shown
	follow bool // the table follows the newest probe until a key scrolls it
	width  int
	height int
	// Standalone: q quits the program and the view takes the alternate screen.
	Standalone bool
}

// New builds the view; feed may be nil when the caller sends the messages itself.
func New(st theme.Styles, feed *Feed) Model {
	return Model{Styles: st, Keys: keys.Qualify(), feed: feed, follow: true, width: 100, height: 24}
}

// Init starts reading the feed.
func (m Model) Init() tea.Cmd {
	if m.feed == nil {
		return nil
	}
	return m.feed.Wait()
}

// SetSize gives the view its box.
func (m *Model) SetSize(w, h int) { m.width, m.height = max(w, 0), max(h, 0) }

// tickMsg redraws the running probe's age once a second: a stalled probe must not read "0s".
type tickMsg struct{ run string }

func tick(run string) tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{run} })
}

// Update takes snapshots, the end, window sizes and keys.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case snapshotMsg:
		started := msg.Running != "" && msg.Running != m.state.Running
		m.state = snapshot(msg)
		if m.follow {
			m.top = m.lastTop()
		}
		var cmds []tea.Cmd
		if m.feed != nil {
			cmds = append(cmds, m.feed.Wait())
		}
		if started {
			cmds = append(cmds, tick(m.state.Running))
		}
		return m, tea.Batch(cmds...)
	case tickMsg:
		if msg.run == m.state.Running && m.done == nil {
			return m, tick(msg.run) // the redraw is this message's
		}
	case doneMsg:
		d := msg
		m.done = &d
	case tea.WindowSizeMsg:
		m.SetSize(msg.Width, msg.Height)
		if m.follow {
			m.top = m.lastTop()
		}
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return m, nil
}

func (m Model) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(k, m.Keys.Up):
		m.top, m.follow = max(m.top-1, 0), false
	case key.Matches(k, m.Keys.Down):
		m.top = min(m.top+1, m.lastTop())
		m.follow = m.top == m.lastTop()
	case key.Matches(k, m.Keys.Top):
		m.top, m.follow = 0, false
	case key.Matches(k, m.Keys.End):
		m.top, m.follow = m.lastTop(), true
	case key.Matches(k, m.Keys.Quit):
		if m.Standalone {
			return m, tea.Quit
		}
	}
	return m, nil
}

// lastTop is the first line that shows the newest probe at the bottom of the table.
func (m Model) lastTop() int { return max(len(m.state.Probes)-m.tableRows(), 0) }

// View renders the whole screen (standalone use).
func (m Model) View() tea.View {
	v := tea.NewView(m.render(m.width, m.height))
	v.AltScreen = m.Standalone
	return v
}
