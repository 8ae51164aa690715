package ui

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/artifacts"
	"kvparity/ui/determinism"
	"kvparity/ui/diffpane"
	"kvparity/ui/header"
	"kvparity/ui/keys"
	"kvparity/ui/lifecycle"
	"kvparity/ui/logpane"
	"kvparity/ui/perf"
	"kvparity/ui/pressure"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

// Options are what cmd_workbench.go injects.
type Options struct {
	// Controller is the campaign the workbench drives (*engine.Campaign, or a fake in tests).
	Controller engine.Controller
	// SaveReport writes the campaign report (report.md, report.json) into the campaign
	// directory; nil shows "report writer not available".
	SaveReport func(campaignDir string) error
	// Assess computes the campaign's verdicts (campaignreport.Assess: the report's own
	// computation, so the header can never disagree with report.json); nil shows none.
	Assess func(campaignDir string) (verdict.Verdicts, error)
	// Clock is the time shown for elapsed times; nil means time.Now. Goldens fix it.
	Clock func() time.Time
	// NoColor renders without colours (NO_COLOR is set).
	NoColor bool
	// Reopened says the campaign was resumed from its journal (kvparity open DIR): the greeting
	// then says how to resume instead of how to start.
	Reopened bool
}

// WarningMsg carries an engine warning (a torn journal tail dropped on resume, a different
// host...) that main forwards while the workbench owns the terminal.
type WarningMsg struct{ Text string }

// paneID names a pane of the focus ring, in ring order.
type paneID int

const (
	focusDeterminism paneID = iota
	focusLifecycle
	focusPressure
	focusPerf
	focusLog
	focusDiff
	paneCount
)

// overlay is what sits on top of the panes.
type overlay int

const (
	overlayNone overlay = iota
	overlayHelp
	overlayConfirmQuit
	overlayVerdicts
)

// Model is the workbench's root: it owns the layout, focus, status line and frame pacing,
// routes messages to the panes, and turns keys into Controller calls. It never renders inside
// View: View returns the frame last composed on a paced tick.
type Model struct {
	ctl     engine.Controller
	events  <-chan engine.Event
	dir     string
	save    func(string) error
	assess  func(string) (verdict.Verdicts, error)
	assessN int  // assessments asked for; an older answer is dropped
	stale   bool // an event may have changed the verdicts: reassess after this batch
	clock   func() time.Time
	noColor bool

	keys   keys.KeyMap
	styles theme.Styles
	help   help.Model

	header header.Model
	arts   artifacts.Model
	det    determinism.Model
	life   lifecycle.Model
	press  pressure.Model
	perf   perf.Model
	logp   logpane.Model
	diff   diffSlot

	focus        paneID
	zoomed       bool // the focused pane has the whole screen (z)
	overlay      overlay
	status       status
	batchProblem bool // a problem was raised while applying the current message: news waits in the log
	watching     bool
	stageRunning bool
	stopping     bool   // the user pressed x: runs ending now were stopped by them
	blocked      string // why the row is blocked, "" when it is not
	rowChanged   bool   // the row file changed after the campaign froze it
	following    string // the read-only mark while another kvparity writes the campaign ("" when this one may)
	closing      bool
	engineDone   bool

	width, height int
	plan          plan
	pace          pacer
	frame         string
	renders       int // frames composed so far (the pacing tests count them)
	title         string
}

// New builds the workbench over a controller. The caller runs it with tea.NewProgram.
func New(o Options) Model {
	km := keys.Default()
	st := theme.NewStyles(true, o.NoColor)
	info := o.Controller.Info()
	m := Model{
		ctl:     o.Controller,
		events:  o.Controller.Events(),
		dir:     o.Controller.Dir(),
		save:    o.SaveReport,
		assess:  o.Assess,
		clock:   o.Clock,
		noColor: o.NoColor,
		keys:    km,
		styles:  st,
		help:    help.New(),
		header:  header.New(st, info),
		arts:    artifacts.New(st, info.Artifacts),
		det:     determinism.New(st, km),
		life:    lifecycle.New(st, km),
		press:   pressure.New(st, km),
		perf:    perf.New(st, info.Pairs, info.Warmups, info.Threshold),
		logp:    logpane.New(st, km),
		diff:    newDiffSlot(st, km.DiffPane),
	}
	if m.clock == nil {
		m.clock = time.Now
	}
	m.watching = o.Controller.Watching()
	m.arts.SetWatching(m.watching)
	m.diff.SetCampaign(m.dir)
	m.perf.SetZoomKey(km.Zoom)
	m.setStyles(st)
	m.setFocus(focusDeterminism)
	m.title = "kvparity · " + info.Row
	m.status = news("press g to start the determinism stage · ? for every key")
	if o.Reopened {
		m.status = news("campaign reopened from its journal: g resumes the determinism stage, p the performance stage")
	}
	// The choices the workbench keeps in the campaign folder (the diff pane's grouping).
	switch ui, err := loadUIState(m.dir); {
	case err != nil:
		m.alarm("the workbench's saved choices are not used: " + err.Error())
	case ui.DiffGrouping == "pattern":
		m.diff.pane.SetGroupedByPattern(true)
	}
	return m
}

// Init asks the terminal for its background colour and starts the engine pump.
func (m Model) Init() tea.Cmd {
	return tea.Batch(tea.RequestBackgroundColor, waitForEvents(m.events))
}

// Update routes one message. It never blocks: Controller calls run in commands.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.batchProblem = false
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		m.render()
		return m, nil
	case tea.BackgroundColorMsg:
		m.setStyles(theme.NewStyles(msg.IsDark(), m.noColor))
		m.render()
		return m, nil
	case eventsMsg:
		var cmds []tea.Cmd
		for _, ev := range msg.events {
			cmds = append(cmds, m.apply(ev))
		}
		if m.stale { // once per batch, however many verdicts it carried
			m.stale = false
			cmds = append(cmds, m.reassess())
		}
		if msg.closed {
			m.engineDone = true
			if !m.closing {
				m.alarm("the campaign engine stopped publishing events")
			}
		} else {
			cmds = append(cmds, waitForEvents(m.events))
		}
		cmds = append(cmds, m.invalidate())
		return m, tea.Batch(cmds...)
	case frameMsg:
		return m, m.onFrame(msg)
	case tea.KeyPressMsg:
		cmd := m.onKey(msg)
		return m, tea.Batch(cmd, m.invalidate())
	case actionDoneMsg:
		m.onActionDone(msg)
		return m, m.invalidate()
	case closedMsg:
		return m, tea.Quit
	case quitCheckedMsg:
		if msg.running {
			m.overlay = overlayConfirmQuit
			return m, m.invalidate()
		}
		return m, tea.Batch(m.quit(), m.invalidate())
	case verdictsMsg:
		if msg.n == m.assessN {
			m.header.SetVerdicts(&msg.v, msg.err)
		}
		return m, m.invalidate()
	case diffpane.RecordsChangedMsg:
		return m, tea.Batch(m.reassess(), m.invalidate())
	case diffpane.GroupingChangedMsg:
		if m.following != "" {
			return m, nil // read-only: the campaign's writer owns its folder
		}
		s := uiState{DiffGrouping: "request"}
		if msg.ByPattern {
			s.DiffGrouping = "pattern"
		}
		return m, saveUIState(m.dir, s)
	case uiStateSavedMsg:
		if msg.err != nil {
			m.alarm("the diff grouping was not kept for the next open: " + msg.err.Error())
		}
		return m, m.invalidate()
	case infoFetchedMsg:
		m.arts.SetArtifacts(msg.info.Artifacts)
		m.header.SetInfo(msg.info)
		return m, m.invalidate()
	case WarningMsg:
		m.alarm("warning: " + msg.Text)
		return m, m.invalidate()
	case diffpane.StatusMsg:
		if msg.Problem {
			m.alarm(msg.Text)
		} else {
			m.say(msg.Text)
		}
		return m, m.invalidate()
	case pagerDoneMsg:
		if msg.err != nil {
			m.alarm(fmt.Sprintf("%s: %v", msg.what, msg.err))
		} else {
			m.say("back from " + msg.what)
		}
		return m, m.invalidate()
	case tea.MouseClickMsg:
		return m, tea.Batch(m.onClick(msg.Mouse()), m.invalidate())
	case tea.MouseWheelMsg:
		m.onWheel(msg.Mouse())
		return m, m.invalidate()
	}
	// Anything else belongs to the diff pane (its async results), whatever has focus.
	var cmd tea.Cmd
	m.diff, cmd = m.diff.Update(msg)
	return m, tea.Batch(cmd, m.invalidate())
}

// View returns the last composed frame in the alternate screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.frame)
	v.AltScreen = true
	v.WindowTitle = m.title
	v.MouseMode = tea.MouseModeCellMotion
	return v
}

// setStyles hands a new palette to every pane.
func (m *Model) setStyles(st theme.Styles) {
	m.styles = st
	m.header.SetStyles(st)
	m.arts.SetStyles(st)
	m.det.SetStyles(st)
	m.life.SetStyles(st)
	m.press.SetStyles(st)
	m.perf.SetStyles(st)
	m.logp.SetStyles(st)
	m.diff.SetStyles(st)
	m.help.Styles = help.DefaultStyles(st.IsDark)
}

// setFocus focuses one pane of the ring and blurs the others.
func (m *Model) setFocus(p paneID) {
	m.focus = p
	blurs := []interface {
		Blur()
	}{&m.det, &m.life, &m.press, &m.perf, &m.logp, &m.diff}
	for _, b := range blurs {
		b.Blur()
	}
	switch p {
	case focusDeterminism:
		m.det.Focus()
	case focusLifecycle:
		m.life.Focus()
	case focusPressure:
		m.press.Focus()
	case focusPerf:
		m.perf.Focus()
	case focusLog:
		m.logp.Focus()
	case focusDiff:
		m.diff.Focus()
	}
}

// syncSelection points the lifecycle and pressure panes at the selected repetition.
func (m *Model) syncSelection() {
	r, ok := m.det.Selected()
	if !ok {
		return
	}
	label := determinism.LineLabel(r)
	m.life.SetRun(r.Run, label)
	m.press.SetRun(r.Run, label)
}
