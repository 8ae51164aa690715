package pane

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"kvparity/diffview"
	"kvparity/ui/keys"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

// OpenRequestedMsg asks the pane to load and diff two reports (returned by Model.Open).
type OpenRequestedMsg struct{ A, B diffview.Side }

// diffLoadedMsg carries an asynchronous load result; gen drops stale ones.
type diffLoadedMsg struct {
	gen     int
	a, b    diffview.Side
	diff    *diffview.Diff
	err     error
	records []diffview.ExceptionRecord
	recErr  error
}

// RecordsChangedMsg tells the workbench that the campaign's exception records changed (a
// save or delete): the campaign's semantic verdict may have changed with them.
type RecordsChangedMsg struct{}

// exceptionsSavedMsg reports a save or delete of exception records.
type exceptionsSavedMsg struct {
	records []diffview.ExceptionRecord
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
)

// A row of the group list: a group header or one change inside an expanded group.
type row struct {
	group  int // index into Diff.Groups
	change int // index into Diff.Changes, -1 for a header
}

// Model is the diff pane (value type, Bubble Tea style).
type Model struct {
	styles   theme.Styles
	keys     keys.DiffKeys
	width    int
	height   int
	focused  bool
	campaign string
	unstable bool

	gen      int
	loading  bool
	err      error
	a, b     diffview.Side
	diff     *diffview.Diff
	groupIdx []int // change → group

	recs      []diffview.ExceptionRecord
	recErr    error
	verdict   verdict.Word // SemanticVerdict of diff and recs, refreshed when either changes
	uncovered []string
	status    string // last action's outcome

	mode     paneMode
	expanded map[string]bool
	marked   map[int]bool
	rows     []row
	cursor   int
	offset   int
	filter   textinput.Model
	pattern  string // applied filter

	form       exceptionForm
	recCursor  int
	confirmDel bool
}

// New builds an empty diff pane with the workbench's styles and its section of the key map.
func New(st theme.Styles, km keys.DiffKeys) Model {
	f := textinput.New()
	f.Prompt = "filter: "
	f.Placeholder = "/per_request/*/routing_history/** or a substring"
	return Model{styles: st, keys: km, filter: f, expanded: map[string]bool{}, marked: map[int]bool{}, width: 100, height: 30}
}

// SetSize sets the pane's box (the root subtracts borders first).
func (p *Model) SetSize(w, h int) {
	p.width, p.height = w, h
	p.filter.SetWidth(max(10, w-12))
	p.form.setWidth(w)
	p.clampScroll()
}

// Focus gives the pane keyboard focus.
func (p *Model) Focus() { p.focused = true }

// Blur takes focus away (keys are then ignored).
func (p *Model) Blur() { p.focused = false }

// Focused reports keyboard focus.
func (p Model) Focused() bool { return p.focused }

// SetCampaign sets the campaign directory whose exceptions.jsonl the pane reads and writes.
func (p *Model) SetCampaign(dir string) {
	p.campaign = dir
	p.recs, p.recErr = diffview.LoadExceptions(dir)
	p.refreshVerdict()
}

// refreshVerdict recomputes the semantic verdict (matching every pointer against every
// pattern is too slow to redo on each key or frame).
func (p *Model) refreshVerdict() {
	p.verdict, p.uncovered = "", nil
	if p.diff != nil {
		p.verdict, p.uncovered = diffview.SemanticVerdict(p.diff, p.recs, p.unstable)
	}
}

// SetUnstable tells the pane an arm of the row is UNSTABLE (the semantic verdict is then FAIL).
func (p *Model) SetUnstable(u bool) {
	p.unstable = u
	p.refreshVerdict()
}

// SetStyles swaps the pane's styles (light/dark switch, NO_COLOR).
func (p *Model) SetStyles(st theme.Styles) { p.styles = st }

// Capturing reports that a text field has focus: the root must send every key here.
// A pending delete confirmation also captures: its "y" must not reach the root.
func (p Model) Capturing() bool {
	return p.mode == modeFilter || p.mode == modeForm || (p.mode == modeRecords && p.confirmDel)
}

// Open loads and diffs two reports asynchronously. The returned command yields an
// OpenRequestedMsg; its Update bumps the generation and starts the load, so a slower
// earlier load can never overwrite a newer one.
func (p Model) Open(a, b diffview.Side) tea.Cmd {
	return func() tea.Msg { return OpenRequestedMsg{A: a, B: b} }
}

// loadDiff runs off the update loop and captures only values.
func loadDiff(gen int, a, b diffview.Side, campaign string) tea.Cmd {
	return func() tea.Msg {
		d, err := diffview.DiffFiles(a.ReportPath, b.ReportPath)
		if d != nil {
			d.A, d.B = a, b
		}
		msg := diffLoadedMsg{gen: gen, a: a, b: b, diff: d, err: err}
		if campaign != "" {
			msg.records, msg.recErr = diffview.LoadExceptions(campaign)
		}
		return msg
	}
}

// Update handles the pane's messages and, when focused, keys.
func (p Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case OpenRequestedMsg:
		p.gen++
		p.loading, p.err, p.a, p.b = true, nil, msg.A, msg.B
		return p, loadDiff(p.gen, msg.A, msg.B, p.campaign)
	case diffLoadedMsg:
		if msg.gen != p.gen {
			return p, nil // stale: a newer Open is in flight or done
		}
		p.loading = false
		p.err = msg.err
		p.setDiff(msg.diff)
		if p.campaign != "" {
			p.recs, p.recErr = msg.records, msg.recErr
		}
		p.refreshVerdict()
		return p, nil
	case exceptionsSavedMsg:
		if msg.err != nil {
			p.status = "save failed: " + msg.err.Error()
			if p.mode == modeForm {
				p.form.err = msg.err.Error()
			}
			return p, nil
		}
		p.recs = msg.records
		p.refreshVerdict()
		if msg.deleted {
			p.status = "deleted exception record " + msg.saved
		} else {
			p.status = "saved exception record " + msg.saved
			p.mode = modeList
			p.marked = map[int]bool{}
		}
		p.recCursor = min(p.recCursor, max(0, len(p.recs)-1))
		return p, func() tea.Msg { return RecordsChangedMsg{} }
	case tea.KeyPressMsg:
		if !p.focused {
			return p, nil
		}
		switch p.mode {
		case modeFilter:
			return p.updateFilter(msg)
		case modeForm:
			return p.updateForm(msg)
		case modeRecords:
			return p.updateRecords(msg)
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

func (p *Model) setDiff(d *diffview.Diff) {
	p.diff = d
	p.groupIdx = nil
	if d != nil {
		p.groupIdx = make([]int, len(d.Changes))
		for gi, g := range d.Groups {
			for _, ci := range g.Changes {
				p.groupIdx[ci] = gi
			}
		}
	}
	p.expanded = map[string]bool{}
	p.marked = map[int]bool{}
	p.cursor, p.offset = 0, 0
	if d != nil && len(d.Groups) > 0 {
		// Open on the first divergence: expand its group and select it.
		p.expanded[d.Groups[p.groupOfChange(d.First.Change)].Key] = true
	}
	p.rebuild()
	if d != nil && d.First != nil {
		p.selectChange(d.First.Change)
	}
}

func (p *Model) groupOfChange(ci int) int {
	if ci >= 0 && ci < len(p.groupIdx) {
		return p.groupIdx[ci]
	}
	return 0
}

// ShortHelp lists the bindings of the current mode for the one-line help.
func (p Model) ShortHelp() []key.Binding {
	k := p.keys
	switch p.mode {
	case modeForm:
		return []key.Binding{k.NextField, k.PrevField, k.Save, k.Cancel}
	case modeRecords:
		if p.confirmDel {
			return []key.Binding{k.Confirm, k.Cancel}
		}
		return []key.Binding{k.Up, k.Down, k.Edit, k.Delete, k.Cancel}
	case modeFilter:
		return []key.Binding{k.Apply, k.Cancel}
	}
	return []key.Binding{k.NextDiff, k.PrevDiff, k.Toggle, k.Filter, k.Mark, k.NewException, k.Records}
}

// FullHelp lists every binding, by column.
func (p Model) FullHelp() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown},
		{k.Toggle, k.Collapse, k.ExpandAll, k.CollapseAll},
		{k.NextDiff, k.PrevDiff, k.Filter, k.ClearFilter},
		{k.Mark, k.NewException, k.Records},
		{k.NextField, k.PrevField, k.Save, k.Cancel, k.Edit, k.Delete, k.Confirm},
	}
}
