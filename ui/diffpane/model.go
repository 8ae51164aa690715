package diffpane

import (
	"fmt"
	"sync/atomic"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"kvparity/diffview"
	"kvparity/diffview/diagnose"
	"kvparity/exceptions"
	"kvparity/ui/keys"
	"kvparity/ui/pane"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

// OpenRequestedMsg asks the pane to load and diff two reports (returned by Model.Open).
type OpenRequestedMsg struct{ A, B diffview.Side }

// StatusMsg is an outcome the workbench shows on its status line and logs (a saved record, a
// refusal, a copy): the newest message wins there, whichever pane said it.
type StatusMsg struct {
	Text    string
	Problem bool
}

// diffLoadedMsg carries an asynchronous load result; gen drops stale ones.
type diffLoadedMsg struct {
	gen     int
	a, b    diffview.Side
	diff    *diagnose.Diff
	groups  [2]grouping
	err     error
	records []exceptions.ExceptionRecord
	recErr  error
	stand   standing // of diff and records
}

// GroupingChangedMsg says the user switched the list's grouping (f): the workbench keeps the
// choice in the campaign folder so a reopened campaign groups the same way.
type GroupingChangedMsg struct{ ByPattern bool }

// RecordsChangedMsg tells the workbench that the campaign's exception records changed (a
// save or delete): the campaign's semantic verdict may have changed with them.
type RecordsChangedMsg struct{}

// exceptionsSavedMsg reports a save or delete of exception records.
type exceptionsSavedMsg struct {
	diff    *diagnose.Diff
	stand   standing // of diff and records
	records []exceptions.ExceptionRecord
	saved   string // id saved or deleted
	deleted bool
	err     error
}

type paneMode int

const (
	modeList paneMode = iota
	modeFilter
	modeForm
	modeRecords
	modeDiagnosis // the whole diagnosis (I)
)

// A row of the group list: a group header or one change inside an expanded group.
type row struct {
	group  int // index into the current grouping's groups
	change int // index into Diff.Changes, -1 for a header
}

// Model is the diff pane (value type, Bubble Tea style). Its box, focus and styles are the
// common pane base's.
type Model struct {
	pane.Base
	keys     keys.DiffKeys
	zoomed   bool // the workbench gives the pane the whole screen
	campaign string
	unstable bool
	stale    *superseded // the open diff's reports belong to a superseded generation

	gen     int
	loading bool
	err     error
	a, b    diffview.Side
	diff    *diagnose.Diff
	groups  [2]grouping // by request/event and by field pattern
	by      groupBy
	diagSet int // 0: the diagnosis opens when there is room; 1 open; -1 closed (i)
	// diagCursor is the cause selected in the whole diagnosis (I).
	diagCursor int
	diagOffset int // its first line shown (pgup/pgdn scroll it)

	recs      []exceptions.ExceptionRecord
	recErr    error
	verdict   verdict.Word      // SemanticVerdict of diff and recs, refreshed when either changes
	uncovered int               // differing pointers no record covers
	recCovers map[string]int    // record id → differing pointers it covers
	recBroad  map[string]string // record id → why it is broad against this diff (computed)
	status    string            // last action's outcome, in the pane

	mode     paneMode
	expanded map[string]bool
	marked   map[int]bool
	rows     []row
	cursor   int
	offset   int

	// The filter is applied as it is typed, off the update loop: each keystroke asks again
	// with a new generation and latest tells older scans to give up.
	filter    textinput.Model
	pattern   string // the filter whose result is shown
	asked     string // the filter last asked for (its result may be in flight)
	vis       visibility
	filterGen int
	latest    *atomic.Int64
	before    filterState // what esc restores while typing

	form       exceptionForm
	covGen     int
	covLatest  *atomic.Int64
	recCursor  int
	confirmDel bool
}

// New builds an empty diff pane with the workbench's styles and its section of the key map.
func New(st theme.Styles, km keys.DiffKeys) Model {
	f := textinput.New()
	f.Prompt = "filter: "
	f.Placeholder = "/per_request/*/ttft_ms, /coverage/** or a substring of a pointer or request"
	f.SetStyles(steadyCursor(f.Styles()))
	p := Model{keys: km, filter: f, expanded: map[string]bool{}, marked: map[int]bool{},
		latest: new(atomic.Int64), covLatest: new(atomic.Int64), by: byRequest}
	p.SetStyles(st)
	p.Width, p.Height = 100, 30
	return p
}

// SetSize sets the pane's box (the root subtracts borders first) and fits the filter and the
// form to it.
func (p *Model) SetSize(w, h int) {
	p.Base.SetSize(w, h)
	p.filter.SetWidth(max(10, p.Width-32)) // room for the count beside it
	p.form.setWidth(p.Width)
	p.clampScroll()
}

// SetZoomed tells the pane it has the whole screen (its title says so).
func (p *Model) SetZoomed(z bool) { p.zoomed = z }

// SetCampaign sets the campaign directory whose exceptions.jsonl the pane reads and writes.
func (p *Model) SetCampaign(dir string) {
	p.campaign = dir
	p.recs, p.recErr = exceptions.LoadExceptions(dir)
	p.refreshVerdict()
}

// SetUnstable tells the pane an arm of the row is UNSTABLE (the semantic verdict is then FAIL).
func (p *Model) SetUnstable(u bool) {
	p.unstable = u
	p.refreshVerdict()
}

// Capturing reports that a text field has focus: the root must send every key here.
// A pending confirmation also captures: its "y" must not reach the root.
func (p Model) Capturing() bool {
	return p.mode == modeFilter || p.mode == modeForm || (p.mode == modeRecords && p.confirmDel)
}

// Modal reports that the pane shows something esc backs out of (the record list, the whole
// diagnosis) before esc
// means anything to the workbench.
func (p Model) Modal() bool { return p.Capturing() || p.mode == modeRecords || p.mode == modeDiagnosis }

// Loaded reports that a diff is open and loaded (not loading, no error).
func (p Model) Loaded() bool { return p.diff != nil && !p.loading && p.err == nil }

// SetGroupedByPattern chooses the list's grouping (a reopened campaign's saved choice); the
// selection starts over.
func (p *Model) SetGroupedByPattern(on bool) {
	if (p.by == byPattern) == on {
		return
	}
	p.by = byRequest
	if on {
		p.by = byPattern
	}
	p.cursor, p.offset = 0, 0
	p.rebuild()
}

// GroupedByPattern reports that the list is grouped by field pattern.
func (p Model) GroupedByPattern() bool { return p.by == byPattern }

// FormCounted reports that the exception form is open and shows the count of its current
// patterns.
func (p Model) FormCounted() bool {
	return p.mode == modeForm && p.form.cov.current(p.form.record().Pointers)
}

// Confirming reports that a broad record waits for its confirmation.
func (p Model) Confirming() bool { return p.mode == modeForm && p.form.confirm != "" }

// Open loads and diffs two reports asynchronously. The returned command yields an
// OpenRequestedMsg; its Update bumps the generation and starts the load, so a slower
// earlier load can never overwrite a newer one.
func (p Model) Open(a, b diffview.Side) tea.Cmd {
	return func() tea.Msg { return OpenRequestedMsg{A: a, B: b} }
}

// loadDiff runs off the update loop and captures only values. Everything the pane needs at
// every size of diff is computed here: both groupings and the events of each change.
func loadDiff(gen int, a, b diffview.Side, campaign string, unstable bool) tea.Cmd {
	return func() tea.Msg {
		diff := diagnose.DiffFiles
		if a.Build != "" && a.Build == b.Build {
			diff = diagnose.DiffRepetitionFiles // two repetitions of one build: moved values are entropy
		}
		d, err := diff(a.ReportPath, b.ReportPath)
		msg := diffLoadedMsg{gen: gen, a: a, b: b, diff: d, err: err}
		if d != nil {
			d.A, d.B = a, b
			msg.groups = buildGroupings(d.Diff)
			if len(d.Changes) > 0 {
				_ = d.Event(0) // fills the per-change events once, here rather than in a frame
			}
		}
		if campaign != "" {
			msg.records, msg.recErr = exceptions.LoadExceptions(campaign)
		}
		msg.stand = standingOf(d, msg.records, unstable)
		return msg
	}
}

// tell shows an outcome in the pane and sends it to the workbench's status line.
func (p *Model) tell(s string, problem bool) tea.Cmd {
	p.status = s
	return func() tea.Msg { return StatusMsg{Text: s, Problem: problem} }
}

// Update handles the pane's messages and, when focused, keys.
func (p Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case OpenRequestedMsg:
		p.gen++
		p.loading, p.err, p.a, p.b, p.stale = true, nil, msg.A, msg.B, nil
		return p, loadDiff(p.gen, msg.A, msg.B, p.campaign, p.unstable)
	case diffLoadedMsg:
		if msg.gen != p.gen {
			return p, nil // stale: a newer Open is in flight or done
		}
		p.loading = false
		p.err = msg.err
		p.groups = msg.groups
		p.setDiff(msg.diff)
		if p.campaign == "" { // the load's standing had no records: the pane's may differ
			p.refreshVerdict()
			return p, nil
		}
		p.recs, p.recErr = msg.records, msg.recErr
		p.takeStanding(msg.stand, msg.diff)
		return p, nil
	case filterDoneMsg:
		return p.onFilterDone(msg), nil
	case coverageMsg:
		return p.onCoverage(msg), nil
	case exceptionsSavedMsg:
		return p.onSaved(msg)
	case tea.KeyPressMsg:
		if !p.Focused() {
			return p, nil
		}
		switch p.mode {
		case modeFilter:
			return p.updateFilter(msg)
		case modeForm:
			return p.updateForm(msg)
		case modeRecords:
			return p.updateRecords(msg)
		case modeDiagnosis:
			return p.updateDiagnosis(msg)
		}
		return p.updateList(msg)
	}
	if p.mode == modeForm {
		var cmd tea.Cmd
		p.form, cmd = p.form.update(msg)
		return p, cmd
	}
	if p.mode == modeFilter {
		var cmd tea.Cmd
		p.filter, cmd = p.filter.Update(msg)
		return p, cmd
	}
	return p, nil
}

func (p Model) onSaved(msg exceptionsSavedMsg) (Model, tea.Cmd) {
	if msg.err != nil {
		if p.mode == modeForm {
			p.form.err = msg.err.Error()
		}
		return p, p.tell("save failed: "+msg.err.Error(), true)
	}
	p.recs = msg.records
	p.takeStanding(msg.stand, msg.diff)
	var cmd tea.Cmd
	switch {
	case msg.deleted:
		cmd = p.tell("deleted exception record "+msg.saved, false)
	default:
		what := "saved exception record " + msg.saved
		if p.recBroad[msg.saved] != "" {
			what += " (flagged broad)"
		}
		cmd = p.tell(what+fmt.Sprintf(" · covers %d · %d uncovered (the header has the campaign's semantic verdict)", p.recCovers[msg.saved], p.uncovered), false)
		p.mode = modeList
		p.marked = map[int]bool{}
	}
	p.recCursor = min(p.recCursor, max(0, len(p.recs)-1))
	return p, tea.Batch(cmd, func() tea.Msg { return RecordsChangedMsg{} })
}

// plainDiff is the open diff without its diagnosis (nil when none is open), for what reads the
// diff alone: groupings, filters, exception coverage and drafts.
func (p Model) plainDiff() *diffview.Diff {
	if p.diff == nil {
		return nil
	}
	return p.diff.Diff
}

func (p *Model) setDiff(d *diagnose.Diff) {
	p.diff = d
	p.vis = visibility{}
	p.pattern, p.asked = "", ""
	p.filterGen++
	p.latest.Store(int64(p.filterGen))
	p.expanded = map[string]bool{}
	p.marked = map[int]bool{}
	p.cursor, p.offset = 0, 0
	p.rebuild()
	if d != nil && d.First != nil {
		p.selectChange(d.First.Change)
	}
}

// ShortHelp lists the bindings of the current mode for the one-line help.
func (p Model) ShortHelp() []key.Binding {
	k := p.keys
	switch p.mode {
	case modeForm:
		if p.form.confirm != "" {
			return []key.Binding{k.Confirm, k.Refuse}
		}
		return []key.Binding{k.NextField, k.PrevField, k.Save, k.Cancel}
	case modeRecords:
		if p.confirmDel {
			return []key.Binding{k.Confirm, k.Refuse}
		}
		return []key.Binding{k.Up, k.Down, k.Edit, k.Delete, k.Cancel}
	case modeFilter:
		return []key.Binding{k.Apply, k.Cancel}
	case modeDiagnosis:
		cover := key.NewBinding(key.WithKeys(k.Cover.Keys()...), key.WithHelp(k.Cover.Help().Key, "cover this cause"))
		return []key.Binding{k.Up, k.Down, k.PageDown, cover, k.Cancel}
	}
	return []key.Binding{k.NextDiff, k.Toggle, k.GroupBy, k.Cover, k.Filter, k.Mark, k.NewException, k.Records, k.Diagnosis, k.CopyPointer}
}

// FullHelp lists the list's bindings, by column (the record list's and the form's are in
// HelpNote).
func (p Model) FullHelp() [][]key.Binding {
	k := p.keys
	copyKeys := key.NewBinding(key.WithKeys(append(k.CopyPointer.Keys(), k.CopyValue.Keys()...)...),
		key.WithHelp(k.CopyPointer.Help().Key+"/"+k.CopyValue.Help().Key, "copy pointer/values"))
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.NextDiff},
		{k.PrevDiff, k.Toggle, k.Collapse, k.ExpandAll, k.CollapseAll, k.GroupBy, k.Filter},
		{k.ClearFilter, k.Diagnosis, k.WholeDiagnosis, k.Mark, k.NewException, k.Cover, k.Records, copyKeys},
	}
}

// HelpNote is the record list's, the whole diagnosis's and the form's keys, from the bindings.
func (p Model) HelpNote() string {
	k := p.keys
	h := func(b key.Binding) string { return b.Help().Key }
	return fmt.Sprintf("records (%s): %s edit · %s delete · %s back   diagnosis (%s): %s/%s cause · %s drafts a record covering it · %s back   "+
		"form: %s/%s field · %s save · %s discard · %s/%s confirm",
		h(k.Records), h(k.Edit), h(k.Delete), h(k.Cancel), h(k.WholeDiagnosis), h(k.Up), h(k.Down), h(k.Cover), h(k.Cancel),
		h(k.NextField), h(k.PrevField), h(k.Save), h(k.Cancel), h(k.Confirm), h(k.Refuse))
}
