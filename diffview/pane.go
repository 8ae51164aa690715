package diffview

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"kvparity/verdict"
)

// The diff pane: first divergence and diagnosis on top, groups that expand and collapse,
// next/previous difference, a pointer filter, both values side by side with highlights, and
// the exception-record form and list. The root model forwards every message to Update (the
// pane ignores what is not its own) and every key while Capturing() is true.

// OpenRequestedMsg asks the pane to load and diff two reports (returned by Pane.Open).
type OpenRequestedMsg struct{ A, B Side }

// DiffLoadedMsg carries an asynchronous load result; Gen drops stale ones.
type DiffLoadedMsg struct {
	Gen     int
	A, B    Side
	Diff    *Diff
	Err     error
	Records []ExceptionRecord
	RecErr  error
}

// ExceptionsSavedMsg reports a save or delete of exception records.
type ExceptionsSavedMsg struct {
	Records []ExceptionRecord
	Saved   string // id saved or deleted
	Deleted bool
	Err     error
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

// Pane is the diff pane model (value type, Bubble Tea style).
type Pane struct {
	styles   Styles
	keys     KeyMap
	width    int
	height   int
	focused  bool
	campaign string
	unstable bool

	gen      int
	loading  bool
	err      error
	a, b     Side
	diff     *Diff
	groupIdx []int // change → group

	recs      []ExceptionRecord
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

// NewPane builds an empty diff pane.
func NewPane(isDark bool) Pane {
	f := textinput.New()
	f.Prompt = "filter: "
	f.Placeholder = "/per_request/*/routing_history/** or a substring"
	return Pane{styles: NewStyles(isDark), keys: DefaultKeyMap(), filter: f, expanded: map[string]bool{}, marked: map[int]bool{}, width: 100, height: 30}
}

// SetSize sets the pane's box (the root subtracts borders first).
func (p *Pane) SetSize(w, h int) {
	p.width, p.height = w, h
	p.filter.SetWidth(max(10, w-12))
	p.form.setWidth(w)
	p.clampScroll()
}

// Focus gives the pane keyboard focus.
func (p *Pane) Focus() { p.focused = true }

// Blur takes focus away (keys are then ignored).
func (p *Pane) Blur() { p.focused = false }

// Focused reports keyboard focus.
func (p Pane) Focused() bool { return p.focused }

// SetCampaign sets the campaign directory whose exceptions.jsonl the pane reads and writes.
func (p *Pane) SetCampaign(dir string) {
	p.campaign = dir
	p.recs, p.recErr = LoadExceptions(dir)
	p.refreshVerdict()
}

// refreshVerdict recomputes the semantic verdict (matching every pointer against every
// pattern is too slow to redo on each key or frame).
func (p *Pane) refreshVerdict() {
	p.verdict, p.uncovered = "", nil
	if p.diff != nil {
		p.verdict, p.uncovered = SemanticVerdict(p.diff, p.recs, p.unstable)
	}
}

// SetUnstable tells the pane an arm of the row is UNSTABLE (the semantic verdict is then FAIL).
func (p *Pane) SetUnstable(u bool) {
	p.unstable = u
	p.refreshVerdict()
}

// SetStyles rebuilds the styles for the terminal background.
func (p *Pane) SetStyles(isDark bool) { p.styles = NewStyles(isDark) }

// Capturing reports that a text field has focus: the root must send every key here.
// A pending delete confirmation also captures: its "y" must not reach the root.
func (p Pane) Capturing() bool {
	return p.mode == modeFilter || p.mode == modeForm || (p.mode == modeRecords && p.confirmDel)
}

// Diff returns the loaded diff (nil before the first load).
func (p Pane) Diff() *Diff { return p.diff }

// Open loads and diffs two reports asynchronously. The returned command yields an
// OpenRequestedMsg; its Update bumps the generation and starts the load, so a slower
// earlier load can never overwrite a newer one.
func (p Pane) Open(a, b Side) tea.Cmd {
	return func() tea.Msg { return OpenRequestedMsg{A: a, B: b} }
}

// loadDiff runs off the update loop and captures only values.
func loadDiff(gen int, a, b Side, campaign string) tea.Cmd {
	return func() tea.Msg {
		d, err := DiffFiles(a.ReportPath, b.ReportPath)
		if d != nil {
			d.A, d.B = a, b
		}
		msg := DiffLoadedMsg{Gen: gen, A: a, B: b, Diff: d, Err: err}
		if campaign != "" {
			msg.Records, msg.RecErr = LoadExceptions(campaign)
		}
		return msg
	}
}

// Update handles the pane's messages and, when focused, keys.
func (p Pane) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case OpenRequestedMsg:
		p.gen++
		p.loading, p.err, p.a, p.b = true, nil, msg.A, msg.B
		return p, loadDiff(p.gen, msg.A, msg.B, p.campaign)
	case DiffLoadedMsg:
		if msg.Gen != p.gen {
			return p, nil // stale: a newer Open is in flight or done
		}
		p.loading = false
		p.err = msg.Err
		p.setDiff(msg.Diff)
		if p.campaign != "" {
			p.recs, p.recErr = msg.Records, msg.RecErr
		}
		p.refreshVerdict()
		return p, nil
	case ExceptionsSavedMsg:
		if msg.Err != nil {
			p.status = "save failed: " + msg.Err.Error()
			if p.mode == modeForm {
				p.form.err = msg.Err.Error()
			}
			return p, nil
		}
		p.recs = msg.Records
		p.refreshVerdict()
		if msg.Deleted {
			p.status = "deleted exception record " + msg.Saved
		} else {
			p.status = "saved exception record " + msg.Saved
			p.mode = modeList
			p.marked = map[int]bool{}
		}
		p.recCursor = min(p.recCursor, max(0, len(p.recs)-1))
		return p, nil
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

func (p *Pane) setDiff(d *Diff) {
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

func (p *Pane) groupOfChange(ci int) int {
	if ci >= 0 && ci < len(p.groupIdx) {
		return p.groupIdx[ci]
	}
	return 0
}

// ShortHelp lists the bindings of the current mode for the one-line help.
func (p Pane) ShortHelp() []key.Binding {
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
		return []key.Binding{key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")), k.Cancel}
	}
	return []key.Binding{k.NextDiff, k.PrevDiff, k.Toggle, k.Filter, k.Mark, k.NewException, k.Records}
}

// FullHelp lists every binding, by column.
func (p Pane) FullHelp() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown},
		{k.Toggle, k.Collapse, k.ExpandAll, k.CollapseAll},
		{k.NextDiff, k.PrevDiff, k.Filter, k.ClearFilter},
		{k.Mark, k.NewException, k.Records},
		{k.NextField, k.PrevField, k.Save, k.Cancel, k.Edit, k.Delete, k.Confirm},
	}
}
