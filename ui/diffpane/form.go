package diffpane

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"kvparity/diffview"
	"kvparity/diffview/diagnose"
	"kvparity/exceptions"
	"kvparity/ui/keys"
	"kvparity/ui/theme"
)

// The exception-record form: the pointer patterns, requests and events (prefilled from the
// selection), then the six explanations of protocol stage 5. "What differs" is not typed: it
// is computed from what the patterns cover, live while they are typed and again when the
// record is saved, so it can never describe an older draft. Lists are comma-separated.

type formField struct {
	name  string // JSON field name, as validation errors name it
	label string
	hint  string // the placeholder: what to write, shown faint while the field is empty
	multi bool
	input textinput.Model
	area  textarea.Model
}

type exceptionForm struct {
	id      string // "" for a new record
	fields  []formField
	focused int
	err     string
	note    string // a field redraft kept as typed, in words
	styles  *theme.Styles
	keys    keys.DiffKeys // named in the form's hints
	cov     coverage      // what the typed patterns cover (live)
	confirm string        // why the record is broad: y saves it flagged, n goes back to editing
	// The requests and events follow the patterns: draftedFor is the patterns they were
	// drafted for and drafted their drafted values. When other patterns are counted, a field
	// still holding its drafted value is drafted again from what they cover; one the author
	// typed is kept (redraft).
	draftedFor string
	drafted    map[string]string
}

// formSpec lists the fields in order. A label is the field's name only; what to write in it
// is its hint, in parentheses and faint, so no label reads as a value already given.
var formSpec = []struct {
	name, label, hint string
	multi             bool
}{
	{"pointers", "patterns", "(comma-separated pointer patterns: /per_request/*/e2e_latency_ms, /summary/*)", false},
	{"requests", "requests", "(comma-separated request ids; drafted from the patterns)", false},
	{"events", "events", "(comma-separated events; drafted from the patterns)", false},
	{"baseline", "baseline", "(why the baseline is the less faithful one)", true},
	{"candidate", "candidate", "(why the candidate is the source of truth)", true},
	{"cause", "cause", "(why this is not leaked entropy)", true},
	{"regression_test", "regression test", "(the test that pins the new behaviour)", false},
	{"impact", "impact", "(what changes for report and API readers)", false},
	{"disposition", "disposition", "(accepted, or what happens next)", false},
}

// formLabelW is the label column: the longest label, its marker and one space before the value.
var formLabelW = func() int {
	n := 0
	for _, s := range formSpec {
		n = max(n, len([]rune(s.label)))
	}
	return n + 3
}()

func newExceptionForm(st *theme.Styles, km keys.DiffKeys, width int, rec exceptions.ExceptionRecord) exceptionForm {
	f := exceptionForm{id: rec.ID, styles: st, keys: km, draftedFor: patternsKey(rec.Pointers),
		drafted: map[string]string{"requests": strings.Join(rec.Requests, ", "), "events": strings.Join(rec.Events, ", ")}}
	vals := map[string]string{
		"pointers": strings.Join(rec.Pointers, ", "), "requests": strings.Join(rec.Requests, ", "),
		"events": strings.Join(rec.Events, ", "), "baseline": rec.Baseline,
		"candidate": rec.Candidate, "cause": rec.Cause, "regression_test": rec.RegressionTest,
		"impact": rec.Impact, "disposition": rec.Disposition,
	}
	for _, s := range formSpec {
		ff := formField{name: s.name, label: s.label, hint: s.hint, multi: s.multi}
		if s.multi {
			ff.area = textarea.New()
			ff.area.ShowLineNumbers = false
			ff.area.Prompt = ""
			ff.area.SetHeight(2)
			ff.area.CharLimit = 4000
			ff.area.SetValue(vals[s.name])
			ff.area.Placeholder = s.hint
			ast := ff.area.Styles()
			ast.Cursor.Blink = false // a steady cursor: no frame every half second while a replay is measured
			ast.Focused.Placeholder, ast.Blurred.Placeholder = st.Faint, st.Faint
			ff.area.SetStyles(ast)
		} else {
			ff.input = textinput.New()
			ff.input.Prompt = ""
			ff.input.CharLimit = 8000
			ff.input.SetValue(vals[s.name])
			ff.input.Placeholder = s.hint
			ist := steadyCursor(ff.input.Styles())
			ist.Focused.Placeholder, ist.Blurred.Placeholder = st.Faint, st.Faint
			ff.input.SetStyles(ist)
		}
		f.fields = append(f.fields, ff)
	}
	f.setWidth(width)
	return f
}

// steadyCursor turns the text cursor's blinking off: a blink is a frame every half second,
// and the workbench stays off the CPU while a replay is measured.
func steadyCursor(st textinput.Styles) textinput.Styles {
	st.Cursor.Blink = false
	return st
}

func (f *exceptionForm) setWidth(w int) {
	for i := range f.fields {
		if f.fields[i].multi {
			f.fields[i].area.SetWidth(max(10, w-formLabelW))
		} else {
			f.fields[i].input.SetWidth(max(10, w-formLabelW-1))
		}
	}
}

func (f *exceptionForm) focus() tea.Cmd {
	var cmd tea.Cmd
	for i := range f.fields {
		ff := &f.fields[i]
		if i == f.focused {
			if ff.multi {
				cmd = ff.area.Focus()
			} else {
				cmd = ff.input.Focus()
			}
		} else if ff.multi {
			ff.area.Blur()
		} else {
			ff.input.Blur()
		}
	}
	return cmd
}

func (f exceptionForm) value(name string) string {
	for _, ff := range f.fields {
		if ff.name == name {
			if ff.multi {
				return ff.area.Value()
			}
			return ff.input.Value()
		}
	}
	return ""
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// record builds the ExceptionRecord the form holds (without "what differs" and the broad
// flag, which saving computes).
func (f exceptionForm) record() exceptions.ExceptionRecord {
	return exceptions.ExceptionRecord{
		ID: f.id, Pointers: splitList(f.value("pointers")), Requests: splitList(f.value("requests")),
		Events:   splitList(f.value("events")),
		Baseline: strings.TrimSpace(f.value("baseline")), Candidate: strings.TrimSpace(f.value("candidate")),
		Cause: strings.TrimSpace(f.value("cause")), RegressionTest: strings.TrimSpace(f.value("regression_test")),
		Impact: strings.TrimSpace(f.value("impact")), Disposition: strings.TrimSpace(f.value("disposition")),
	}
}

// setValue replaces a field's value.
func (f *exceptionForm) setValue(name, v string) {
	for i := range f.fields {
		if ff := &f.fields[i]; ff.name == name {
			if ff.multi {
				ff.area.SetValue(v)
			} else {
				ff.input.SetValue(v)
				ff.input.CursorStart() // shown from its start, like a field the form opened with
			}
		}
	}
}

// redraft drafts the requests and events again from what c's patterns cover, once they are
// other patterns than the ones drafted for: a field the author typed into keeps its text.
// It returns the fields it kept although the patterns changed.
func (f *exceptionForm) redraft(d *diffview.Diff, c coverage) (kept []string) {
	if d == nil || !c.done || c.key == f.draftedFor {
		return nil
	}
	draft := exceptions.DraftRecord(d, c.sel)
	for name, v := range map[string]string{"requests": strings.Join(draft.Requests, ", "), "events": strings.Join(draft.Events, ", ")} {
		if f.value(name) != f.drafted[name] {
			kept = append(kept, name)
			continue
		}
		f.setValue(name, v)
		f.drafted[name] = v
	}
	f.draftedFor = c.key
	sort.Strings(kept)
	return kept
}

func (f exceptionForm) update(msg tea.Msg) (exceptionForm, tea.Cmd) {
	var cmd tea.Cmd
	ff := &f.fields[f.focused]
	if ff.multi {
		ff.area, cmd = ff.area.Update(msg)
	} else {
		ff.input, cmd = ff.input.Update(msg)
	}
	return f, cmd
}

// openForm starts the form on a draft (refused when there is nothing to record against).
func (p Model) openForm(draft exceptions.ExceptionRecord, ok bool) (Model, tea.Cmd) {
	switch {
	case p.diff == nil || p.loading:
		return p, p.tell(fmt.Sprintf("no diff open: press %s on a repetition first, then %s records an exception",
			keys.Name(p.keys.Open), keys.Name(p.keys.NewException)), false)
	case p.diff.Equal():
		return p, p.tell("nothing differs: no exception to record", false)
	case p.campaign == "":
		return p, p.tell("no campaign directory: exception records cannot be saved", true)
	case !ok:
		return p, p.tell("nothing selected to cover", false)
	}
	p.form = newExceptionForm(p.Styles, p.keys, p.Width, draft)
	p.mode = modeForm
	return p, tea.Batch(p.form.focus(), p.askCoverage())
}

func (p Model) updateForm(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	k := p.keys
	if p.form.confirm != "" {
		switch {
		case key.Matches(msg, k.Confirm):
			p.form.confirm = ""
			return p.save(true)
		case key.Matches(msg, k.Refuse):
			p.form.confirm = ""
			return p, p.tell("not saved: the record stays open for narrower patterns", false)
		}
		return p, nil
	}
	switch {
	case key.Matches(msg, k.Cancel):
		p.mode = modeList
		return p, p.tell("exception record discarded", false)
	case key.Matches(msg, k.NextField):
		p.form.focused = (p.form.focused + 1) % len(p.form.fields)
		return p, p.form.focus()
	case key.Matches(msg, k.PrevField):
		p.form.focused = (p.form.focused + len(p.form.fields) - 1) % len(p.form.fields)
		return p, p.form.focus()
	case key.Matches(msg, k.Save):
		return p.save(false)
	}
	before := p.form.value("pointers")
	var cmd tea.Cmd
	p.form, cmd = p.form.update(msg)
	if p.form.value("pointers") != before {
		return p, tea.Batch(cmd, p.askCoverage())
	}
	return p, cmd
}

// save validates the record, computes what it covers and what differs there, asks for a
// confirmation when it is broad, and writes it.
func (p Model) save(confirmed bool) (Model, tea.Cmd) {
	rec := p.form.record()
	cov := p.form.cov
	if !cov.current(rec.Pointers) {
		cov = computeCoverage(p.plainDiff(), p.recs, p.form.id, rec.Pointers, nil, 0, nil)
		p.form.cov = cov
	}
	rec.Differs = cov.differs
	if cov.covered == 0 && rec.ID == "" && len(rec.Pointers) > 0 {
		p.form.err = "pointers: these patterns cover no differing pointer of this diff"
		p.form.focused = 0
		return p, p.form.focus()
	}
	if err := rec.Validate(); err != nil {
		p.form.err = err.Error()
		if fe, ok := err.(*exceptions.FieldError); ok {
			for i, ff := range p.form.fields {
				if ff.name == fe.Field {
					p.form.focused = i
				}
			}
		}
		return p, p.form.focus()
	}
	p.form.err = ""
	why := exceptions.BroadReason(rec.Pointers, cov.covered, p.diff.Count)
	if why != "" && !confirmed {
		p.form.confirm = why
		return p, nil
	}
	// The file keeps the author's confirmation; the pane and the report compute broadness
	// afresh whenever they read the record.
	rec.Broad = why != ""
	return p, saveException(p.campaign, rec, p.diff, p.unstable)
}

// saveException writes the record off the update loop (fsync is slow on some disks).
// It also computes how the records then stand against d.
func saveException(dir string, rec exceptions.ExceptionRecord, d *diagnose.Diff, unstable bool) tea.Cmd {
	return func() tea.Msg {
		saved, err := exceptions.PutException(dir, rec)
		if err != nil {
			return exceptionsSavedMsg{err: err}
		}
		recs, err := exceptions.LoadExceptions(dir)
		return exceptionsSavedMsg{diff: d, stand: standingOf(d, recs, unstable), records: recs, saved: saved.ID, err: err}
	}
}

func deleteException(dir, id string, d *diagnose.Diff, unstable bool) tea.Cmd {
	return func() tea.Msg {
		if err := exceptions.DeleteException(dir, id); err != nil {
			return exceptionsSavedMsg{err: err}
		}
		recs, err := exceptions.LoadExceptions(dir)
		return exceptionsSavedMsg{diff: d, stand: standingOf(d, recs, unstable), records: recs, saved: id, deleted: true, err: err}
	}
}

// prefill drafts a record from the marked changes (or the selected change or group).
func (p Model) prefill() (exceptions.ExceptionRecord, bool) {
	if p.diff == nil || p.diff.Equal() {
		return exceptions.ExceptionRecord{}, true
	}
	var sel []int
	for ci := range p.marked {
		sel = append(sel, ci)
	}
	if len(sel) == 0 && p.cursor < len(p.rows) {
		r := p.rows[p.cursor]
		g := p.cur().groups[r.group]
		switch {
		case r.change >= 0:
			sel = []int{r.change}
		case g.pattern != "":
			return p.patternDraft([]string{g.pattern}, g.changes), true
		default:
			for _, ci := range g.changes {
				if p.visible(ci) {
					sel = append(sel, ci)
				}
			}
		}
	}
	sort.Ints(sel)
	return exceptions.DraftRecord(p.plainDiff(), sel), len(sel) > 0
}

// coverDraft drafts a record covering field patterns in one key: those of the selected
// changes (space marks changes and whole groups, so several patterns go in one record), else a
// pattern group's own pattern, or the field patterns of the selected change or group.
func (p Model) coverDraft() (exceptions.ExceptionRecord, bool) {
	if p.diff == nil || p.diff.Equal() || p.cursor >= len(p.rows) && len(p.marked) == 0 {
		return exceptions.ExceptionRecord{}, p.diff == nil || p.diff.Equal()
	}
	var cs []int
	for ci := range p.marked {
		cs = append(cs, ci)
	}
	sort.Ints(cs)
	if len(cs) == 0 {
		r := p.rows[p.cursor]
		cs = p.cur().groups[r.group].changes
		if r.change >= 0 {
			cs = []int{r.change}
		}
	}
	var pats []string
	seen := map[string]bool{}
	for _, ci := range cs {
		pat := p.groups[byPattern].groups[p.groups[byPattern].groupOf[ci]].pattern
		if !seen[pat] {
			seen[pat] = true
			pats = append(pats, pat)
		}
	}
	var all []int
	for _, pat := range pats {
		all = append(all, p.groups[byPattern].groups[p.patternIndex(pat)].changes...)
	}
	sort.Ints(all)
	return p.patternDraft(pats, all), true
}

func (p Model) patternIndex(pat string) int {
	for i, g := range p.groups[byPattern].groups {
		if g.pattern == pat {
			return i
		}
	}
	return 0
}

// patternDraft is a record naming patterns, with requests and events drafted from the
// changes they count.
func (p Model) patternDraft(pats []string, changes []int) exceptions.ExceptionRecord {
	rec := exceptions.DraftRecord(p.plainDiff(), changes)
	rec.Pointers = pats
	return rec
}
