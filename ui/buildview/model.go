// Package buildview is the workbench's first screen when a new campaign's arms are built from
// source: one line per arm with its phase, units compiled, the crate being compiled and the
// time so far, then the workbench opens on the pinned builds. q or ctrl+c cancels the build.
// It imports engine for the build's progress and ui/* (keys, text, theme) for its keys, text
// and palette.
package buildview

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/keys"
	"kvparity/ui/text"
	"kvparity/ui/theme"
)

// A BuildFunc builds the row's source arms, reporting progress (engine.BuildArms bound to the
// row and cache).
type BuildFunc func(ctx context.Context, progress func(engine.BuildProgress)) error

type progressMsg engine.BuildProgress
type doneMsg struct{ err error }
type tickMsg time.Time

// Model is the build screen.
type Model struct {
	row     string
	sources map[engine.Arm]string
	last    map[engine.Arm]engine.BuildProgress
	ch      chan engine.BuildProgress
	done    chan error
	cancel  context.CancelFunc
	styles  theme.Styles
	keys    keys.KeyMap
	start   time.Time
	err     error
	ended   bool
	width   int
}

// New prepares the screen; Init starts the build.
func New(row string, sources map[engine.Arm]string, st theme.Styles, build BuildFunc) Model {
	ctx, cancel := context.WithCancel(context.Background())
	m := Model{row: row, sources: sources, last: map[engine.Arm]engine.BuildProgress{}, ch: make(chan engine.BuildProgress, 256),
		done: make(chan error, 1), cancel: cancel, styles: st, keys: keys.Default(), start: time.Now(), width: 80}
	go func() {
		err := build(ctx, func(p engine.BuildProgress) {
			select {
			case m.ch <- p:
			default: // the screen is behind: the next progress line carries the same news
			}
		})
		m.done <- err
	}()
	return m
}

// Err is the build's error once the screen ended (nil when it built, context.Canceled when the
// user cancelled).
func (m Model) Err() error { return m.err }

func (m Model) Init() tea.Cmd { return tea.Batch(m.wait(), tick()) }

func (m Model) wait() tea.Cmd {
	return func() tea.Msg {
		select {
		case p := <-m.ch:
			return progressMsg(p)
		case err := <-m.done:
			return doneMsg{err}
		}
	}
}

func tick() tea.Cmd { return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) }) }

func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width = msg.Width
	case progressMsg:
		p := engine.BuildProgress(msg)
		if p.Warning == "" { // a refused cache entry stays said while the arm rebuilds
			p.Warning = m.last[msg.Arm].Warning
		}
		m.last[msg.Arm] = p
		return m, m.wait()
	case doneMsg:
		m.err, m.ended = msg.err, true
		return m, tea.Quit
	case tickMsg:
		if !m.ended {
			return m, tick()
		}
	case tea.KeyPressMsg:
		if key.Matches(msg, m.keys.Quit) {
			m.cancel() // the build's processes are killed by process group; doneMsg follows
		}
	}
	return m, nil
}

func (m Model) View() tea.View {
	st := m.styles
	var b strings.Builder
	fmt.Fprintf(&b, " %s · row %s · building the arms from source (protocol stage 1) · %s\n\n",
		st.HeaderBrand.Render("kvparity"), st.Bold.Render(m.row), text.Dur(time.Since(m.start)))
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		src, ok := m.sources[arm]
		if !ok {
			continue
		}
		p, seen := m.last[arm]
		line := fmt.Sprintf(" %-9s %s  ", arm, src)
		switch {
		case !seen:
			line += st.Faint.Render("waiting")
		case p.Phase == "compiling":
			line += st.Running.Render(fmt.Sprintf("compiling · %d units built", p.Units))
			if p.Current != "" {
				line += st.Faint.Render(" · " + p.Current)
			}
			line += st.Faint.Render(" · " + text.Dur(p.Elapsed))
		case p.Phase == "done" || p.Phase == "cached":
			line += st.Good.Render(p.Phase) + st.Faint.Render(fmt.Sprintf(" · %d units · %s", p.Units, text.Dur(p.Elapsed)))
		default:
			line += st.Running.Render(p.Phase) + st.Faint.Render(" · "+text.Dur(p.Elapsed))
		}
		b.WriteString(text.Trunc(line, m.width) + "\n")
		if p.Warning != "" {
			b.WriteString(" " + st.Warn.Render("warning: ") + text.Trunc(p.Warning, max(20, m.width-11)) + "\n")
		}
	}
	b.WriteString("\n " + st.Faint.Render(text.Trunc("one toolchain, profile and timing extension for both arms · cached for the next campaign · "+keys.Name(m.keys.Quit)+" cancels", max(20, m.width-2))))
	if m.err != nil {
		b.WriteString("\n\n " + st.Bad.Render(m.err.Error()))
	}
	v := tea.NewView(b.String())
	v.AltScreen = true
	return v
}
