package ui

import (
	"fmt"
	"slices"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/artifacts"
	"kvparity/ui/determinism"
	"kvparity/ui/diffpane"
	"kvparity/ui/header"
	"kvparity/ui/keys"
	"kvparity/ui/lifecycle"
	"kvparity/ui/logpane"
	"kvparity/ui/pane"
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
	// PreflightText words an arm's preflight (campaignreport.PreflightText, as the report says
	// it); nil notes only that the preflight ran.
	PreflightText func(engine.Preflight) string
	// Clock is the time shown for elapsed times; nil means time.Now. Goldens fix it.
	Clock func() time.Time
	// NoColor renders without colours (NO_COLOR is set).
	NoColor bool
	// Reopened says the campaign was resumed from its journal (kvparity open DIR): the greeting
	// then says how to resume instead of how to start.
	Reopened bool
	// Intro is the first screen's words (what the tool does, where the campaign lives): the
	// log's first lines.
	Intro []string
}

// WarningMsg carries an engine warning (a torn journal tail dropped on resume, a different
// host...) that main forwards while the workbench owns the terminal.
type WarningMsg struct{ Text string }

// paneID names a pane of the focus ring: its index in Model.ring.
type paneID int

// The panes the root names itself, found in the registry by name, so a pane added anywhere in
// it moves neither: the diff pane it opens and focuses, the determinism pane whose selection
// the others follow. A pane nobody names needs no name here.
var (
	focusDeterminism = registered("determinism")
	focusDiff        = registered("diff pane")
)

// registered is the place in the registry of the pane called name. A slot's name is the ?
// overlay's heading and also the pane's identity here: renaming a named pane's heading stops
// the workbench at start (every ui test starts it); TestRegistryMatchesThePaneConstants holds
// the names unique.
func registered(name string) paneID {
	at := slices.IndexFunc(registry, func(s slot) bool { return s.name == name })
	if at < 0 {
		panic("ui: the registry has no pane called " + name)
	}
	return paneID(at)
}

// slot is one pane of the focus ring: where the root keeps it, what it is called, and where
// the layout puts it (bands, in layout.go).
type slot struct {
	of    func(*Model) pane.Pane                    // the pane, held in place in the model (a pane the root names)
	build func(theme.Styles, keys.KeyMap) pane.Pane // or: the pane, made by New (one nobody names)
	name  string                                    // the ? overlay's section: "DETERMINISM KEYS (it has focus)"
	title string                                    // in messages: "the determinism pane zoomed to the whole screen"
	band  int                                       // its band of the layout, left to right in ring order
	wheel int                                       // rows or items one notch of the mouse wheel scrolls (a Scroller)
	tall  bool                                      // while focused it has its band alone, and the band grows
}

// registry is the workbench's panes, in tab order: the focus ring the root sizes, styles,
// focuses, routes messages, keys and the mouse to, and renders help from (New puts it in
// Model.ring). Adding a pane is its package and one line here, with build (and its import);
// the panes the root works with by field (the focus names above, the lifecycle and pressure
// panes that follow the selection, the perf pane and the log) are fields of Model, reached
// with of.
var registry = []slot{
	{of: func(m *Model) pane.Pane { return pane.Of(&m.det) }, name: "determinism", title: "the determinism pane", band: 0, wheel: 1},
	{of: func(m *Model) pane.Pane { return pane.Of(&m.life) }, name: "lifecycle", title: "the lifecycle pane", band: 0, wheel: 3},
	{of: func(m *Model) pane.Pane { return pane.Of(&m.press) }, name: "pressure", title: "the pressure pane", band: 1, wheel: 1},
	{of: func(m *Model) pane.Pane { return pane.Of(&m.perf) }, name: "performance", title: "the performance pane", band: 1},
	{of: func(m *Model) pane.Pane { return pane.Of(&m.logp) }, name: "log", title: "the log", band: 2, wheel: 3},
	{of: func(m *Model) pane.Pane { return pane.Of(&m.diff) }, name: "diff pane", title: "the diff pane", band: 2, wheel: 3, tall: true},
}

// ringOf is the registry with every built pane made: its slot's of returns it. The pane lives
// behind a pointer that copies of the Model share, as Bubble Tea keeps only the latest model: a
// built pane is not copied with the Model (a test that branches a Model shares it), where a
// field pane is.
func ringOf(reg []slot, st theme.Styles, km keys.KeyMap) []slot {
	ring := slices.Clone(reg)
	for i := range ring {
		if b := ring[i].build; b != nil {
			p := b(st, km)
			ring[i].of = func(*Model) pane.Pane { return p }
		}
	}
	return ring
}

// overlay is what sits on top of the panes.
type overlay int

const (
	overlayNone overlay = iota
	overlayHelp
	overlayConfirmQuit
	overlayVerdicts
	overlayConfirmStop // x on a running stage: y stops it, n keeps it
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
	words   func(engine.Preflight) string
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
	ov           viewport.Model // the ? and v overlays' scroll (overlay.go)
	running      engine.Stage   // the stage running now ("" when none), for x's question
	next         string         // what to do after the stage that ended, in the footer until a key
	parityFailed bool           // the running or last determinism stage's parity did not pass
	status       status
	batchProblem bool // a problem was raised while applying the current message: news waits in the log
	watching     bool
	stageRunning bool
	stopping     bool   // the user pressed x: runs ending now were stopped by them
	blocked      string // why the row is blocked, "" when it is not
	rowChanged   bool   // the row file changed after the campaign froze it
	following    string // the read-only mark while another kvparity writes the campaign ("" when this one may)
	followed     int    // the pid of the kvparity followed (0 when this one writes)
	followEnded  bool   // that kvparity has ended
	readOnly     bool   // the campaign opened read-only (followed or cleaned): no stage resumes here
	unwritable   string // why nobody can write the campaign folder ("" when it can be): nothing is written here
	rebuildPhase string // the phase of watch mode's rebuild of a checkout arm (rebuild.go)
	closing      bool
	engineDone   bool

	ring          []slot // the focus ring: registry's panes
	width, height int
	plan          plan
	pace          pacer
	frame         string
	renders       int // frames composed so far (the pacing tests count them)
	title         string
}

// New builds the workbench over a controller. The caller runs it with tea.NewProgram.
func New(o Options) Model { return newModel(o, registry) }

// newModel is New over the registry reg: the shipped one, or one a test lends a line (after
// the shipped panes, whose places the focus names hold).
func newModel(o Options, reg []slot) Model {
	km := keys.Default()
	st := theme.NewStyles(true, o.NoColor)
	info := o.Controller.Info()
	m := Model{
		ctl:     o.Controller,
		events:  o.Controller.Events(),
		dir:     o.Controller.Dir(),
		save:    o.SaveReport,
		assess:  o.Assess,
		words:   o.PreflightText,
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
		diff:    newDiffSlot(st, km),
		ring:    ringOf(reg, st, km),
	}
	if m.clock == nil {
		m.clock = time.Now
	}
	m.header.SetKeys(km)
	m.watching = o.Controller.Watching()
	m.arts.SetWatching(m.watching)
	m.diff.SetCampaign(m.dir)
	m.perf.SetZoomKey(km.Zoom)
	m.perf.SetDeskBuild(info.DeskBuild)
	m.setStyles(st)
	m.setFocus(focusDeterminism)
	m.title = "kvparity · " + info.Row
	m.readOnly = info.ReadOnly != ""
	m.unwritable = info.Unwritable
	for _, l := range o.Intro {
		m.logp.Note(l)
	}
	m.status = news(fmt.Sprintf("press %s to start the determinism stage · %s for every key", keys.Name(km.StartDeterminism), keys.Name(km.Help)))
	if o.Reopened {
		m.status = news("campaign reopened from its journal: " + m.resumeKeys())
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
			m.followStage(ev) // before apply, which forgets who stopped the stage
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
		if m.following != "" || m.unwritable != "" {
			return m, nil // read-only: the campaign's writer owns its folder, or nobody can write it
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
	// Anything else is a pane's own (the diff pane's async results), whatever has focus.
	cmds := []tea.Cmd{m.invalidate()}
	for _, p := range m.panes() {
		cmds = append(cmds, p.Update(msg))
	}
	return m, tea.Batch(cmds...)
}

// at is the ring's pane id, held in m.
func (m *Model) at(id paneID) pane.Pane { return m.ring[id].of(m) }

// focused is the pane that has focus.
func (m *Model) focused() pane.Pane { return m.at(m.focus) }

// panes is every pane of the ring, in ring order.
func (m *Model) panes() []pane.Pane {
	ps := make([]pane.Pane, len(m.ring))
	for i := range m.ring {
		ps[i] = m.at(paneID(i))
	}
	return ps
}

// followedStages says whose the campaign's stages are on a follower: why x stops nothing here.
func (m Model) followedStages() string {
	if m.followEnded {
		return fmt.Sprintf("this workbench followed kvparity pid %d, which has ended: no stage runs here; quit and open the campaign again to run stages", m.followed)
	}
	return fmt.Sprintf("kvparity pid %d runs this campaign's stages; stop its stage where it runs (Ctrl-C in its terminal, or kill %d)", m.followed, m.followed)
}

// resumeKeys says which keys resume the stages of a reopened campaign (none on a read-only one).
func (m Model) resumeKeys() string {
	if m.readOnly {
		return "read-only: no stage resumes here"
	}
	return fmt.Sprintf("%s resumes the determinism stage, %s the performance stage", keys.Name(m.keys.StartDeterminism), keys.Name(m.keys.StartPerf))
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
	for _, p := range m.panes() {
		p.SetStyles(st)
	}
	m.help.Styles = help.DefaultStyles(st.IsDark)
}

// setFocus focuses one pane of the ring and blurs the others.
func (m *Model) setFocus(p paneID) {
	m.focus = p
	for _, q := range m.panes() {
		q.Blur()
	}
	m.at(p).Focus()
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
