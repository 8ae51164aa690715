package pane

import (
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"kvparity/diffview"
	"kvparity/ui/theme"
)

// The exception-record form: one field per stage-5 item, the first three (pointers,
// requests, events) prefilled from the selection. Lists are comma-separated.

type formField struct {
	name  string // JSON field name, as validation errors name it
	label string
	multi bool
	input textinput.Model
	area  textarea.Model
}

type exceptionForm struct {
	id      string // "" for a new record
	fields  []formField
	focused int
	err     string
	styles  theme.Styles
}

// formSpec lists the fields in order: what differs, then the six explanations.
var formSpec = []struct {
	name, label string
	multi       bool
}{
	{"pointers", "pointer patterns", false},
	{"requests", "requests", false},
	{"events", "events", false},
	{"differs", "what differs", true},
	{"baseline", "baseline: why less faithful", true},
	{"candidate", "candidate: source of truth", true},
	{"cause", "why not leaked entropy", true},
	{"regression_test", "regression test", false},
	{"impact", "report/API impact", false},
	{"disposition", "disposition", false},
}

func newExceptionForm(st theme.Styles, width int, rec diffview.ExceptionRecord) exceptionForm {
	f := exceptionForm{id: rec.ID, styles: st}
	vals := map[string]string{
		"pointers": strings.Join(rec.Pointers, ", "), "requests": strings.Join(rec.Requests, ", "),
		"events": strings.Join(rec.Events, ", "), "differs": rec.Differs, "baseline": rec.Baseline,
		"candidate": rec.Candidate, "cause": rec.Cause, "regression_test": rec.RegressionTest,
		"impact": rec.Impact, "disposition": rec.Disposition,
	}
	for _, s := range formSpec {
		ff := formField{name: s.name, label: s.label, multi: s.multi}
		if s.multi {
			ff.area = textarea.New()
			ff.area.ShowLineNumbers = false
			ff.area.Prompt = ""
			ff.area.SetHeight(2)
			ff.area.CharLimit = 4000
			ff.area.SetValue(vals[s.name])
		} else {
			ff.input = textinput.New()
			ff.input.Prompt = ""
			ff.input.CharLimit = 8000
			ff.input.SetValue(vals[s.name])
		}
		f.fields = append(f.fields, ff)
	}
	f.setWidth(width)
	return f
}

const formLabelW = 28

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

// record builds the ExceptionRecord the form holds.
func (f exceptionForm) record() diffview.ExceptionRecord {
	return diffview.ExceptionRecord{
		ID: f.id, Pointers: splitList(f.value("pointers")), Requests: splitList(f.value("requests")),
		Events: splitList(f.value("events")), Differs: strings.TrimSpace(f.value("differs")),
		Baseline: strings.TrimSpace(f.value("baseline")), Candidate: strings.TrimSpace(f.value("candidate")),
		Cause: strings.TrimSpace(f.value("cause")), RegressionTest: strings.TrimSpace(f.value("regression_test")),
		Impact: strings.TrimSpace(f.value("impact")), Disposition: strings.TrimSpace(f.value("disposition")),
	}
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

func (p Model) updateForm(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	k := p.keys
	switch {
	case key.Matches(msg, k.Cancel):
		p.mode = modeList
		p.status = "exception record discarded"
		return p, nil
	case key.Matches(msg, k.NextField):
		p.form.focused = (p.form.focused + 1) % len(p.form.fields)
		return p, p.form.focus()
	case key.Matches(msg, k.PrevField):
		p.form.focused = (p.form.focused + len(p.form.fields) - 1) % len(p.form.fields)
		return p, p.form.focus()
	case key.Matches(msg, k.Save):
		rec := p.form.record()
		if err := rec.Validate(); err != nil {
			p.form.err = err.Error()
			if fe, ok := err.(*diffview.FieldError); ok {
				for i, ff := range p.form.fields {
					if ff.name == fe.Field {
						p.form.focused = i
					}
				}
			}
			return p, p.form.focus()
		}
		p.form.err = ""
		return p, saveException(p.campaign, rec)
	}
	var cmd tea.Cmd
	p.form, cmd = p.form.update(msg)
	return p, cmd
}

// saveException writes the record off the update loop (fsync is slow on some disks).
func saveException(dir string, rec diffview.ExceptionRecord) tea.Cmd {
	return func() tea.Msg {
		saved, err := diffview.PutException(dir, rec)
		if err != nil {
			return exceptionsSavedMsg{err: err}
		}
		recs, err := diffview.LoadExceptions(dir)
		return exceptionsSavedMsg{records: recs, saved: saved.ID, err: err}
	}
}

func deleteException(dir, id string) tea.Cmd {
	return func() tea.Msg {
		if err := diffview.DeleteException(dir, id); err != nil {
			return exceptionsSavedMsg{err: err}
		}
		recs, err := diffview.LoadExceptions(dir)
		return exceptionsSavedMsg{records: recs, saved: id, deleted: true, err: err}
	}
}

func (f exceptionForm) view(w, h int) []string {
	st := f.styles
	title := "NEW EXCEPTION RECORD"
	if f.id != "" {
		title = "EDIT EXCEPTION RECORD " + f.id
	}
	lines := []string{st.Diff.Title.Render(cut(title+"  (tab next field · ctrl+s save · esc discard)", w))}
	for i, ff := range f.fields {
		ls := st.Faint
		marker := "  "
		if i == f.focused {
			ls, marker = st.Diff.Title, "▸ "
		}
		label := ls.Render(pad(marker+ff.label, formLabelW))
		if ff.multi {
			for k, l := range strings.Split(ff.area.View(), "\n") {
				if k == 0 {
					lines = append(lines, label+l)
				} else {
					lines = append(lines, strings.Repeat(" ", formLabelW)+l)
				}
			}
		} else {
			lines = append(lines, label+ff.input.View())
		}
	}
	if f.err != "" {
		lines = append(lines, st.Bad.Render(cut("cannot save: "+f.err, w)))
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	return lines
}

// prefill drafts a record from the marked changes (or the selected change or group).
func (p Model) prefill() diffview.ExceptionRecord {
	var sel []int
	for ci := range p.marked {
		sel = append(sel, ci)
	}
	if len(sel) == 0 && p.cursor < len(p.rows) {
		r := p.rows[p.cursor]
		if r.change >= 0 {
			sel = []int{r.change}
		} else {
			for _, ci := range p.diff.Groups[r.group].Changes {
				if p.visible(ci) {
					sel = append(sel, ci)
				}
			}
		}
	}
	sort.Ints(sel)
	return p.diff.DraftRecord(sel)
}
