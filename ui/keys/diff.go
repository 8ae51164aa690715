package keys

import "charm.land/bubbles/v2/key"

// DiffKeys is the diff pane's section of the key map (KeyMap.DiffPane). None of its list keys
// is one of the workbench's global keys (S p x r + d e w s v z o ? q tab): those keep their
// meaning while the pane has focus. e is both, with one meaning: draft an exception record.
// While the pane's filter or form takes text, every key is the field's and the globals are
// suspended (the footer says so); ctrl+c still quits.
type DiffKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Toggle, Collapse                        key.Binding
	ExpandAll, CollapseAll                  key.Binding
	NextDiff, PrevDiff                      key.Binding
	Filter, ClearFilter, Apply              key.Binding
	Mark, NewException, Cover               key.Binding
	GroupBy, Diagnosis, Records             key.Binding
	WholeDiagnosis                          key.Binding
	CopyPointer, CopyValue                  key.Binding
	// form and record list
	NextField, PrevField, Save, Cancel key.Binding
	Edit, Delete, Confirm, Refuse      key.Binding
	// Zoom and Open are the workbench's z and d, named in the pane's words ("zoomed (z)",
	// "press d on a repetition"): the root matches them, the pane never does.
	Zoom, Open key.Binding
}

// defaultDiff returns the diff pane's bindings.
func defaultDiff() DiffKeys {
	return DiffKeys{
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:       key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Top:          key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "top")),
		Bottom:       key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "bottom")),
		Toggle:       key.NewBinding(key.WithKeys("enter", "right", "l"), key.WithHelp("enter", "open/close group")),
		Collapse:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "collapse")),
		ExpandAll:    key.NewBinding(key.WithKeys(">"), key.WithHelp(">", "expand all")),
		CollapseAll:  key.NewBinding(key.WithKeys("<"), key.WithHelp("<", "collapse all")),
		NextDiff:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next diff")),
		PrevDiff:     key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous diff")),
		Filter:       key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		ClearFilter:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		Apply:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
		Mark:         key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "select")),
		NewException: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "exception")),
		Cover:        key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "cover pattern")),
		GroupBy:      key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "by field/request")),
		Diagnosis:    key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "diagnosis")),
		Records:      key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "records")),
		// I lists every cause of the diagnosis with all its evidence; c there covers one.
		WholeDiagnosis: key.NewBinding(key.WithKeys("I"), key.WithHelp("I", "whole diagnosis")),
		CopyPointer:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy pointer")),
		CopyValue:      key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy values")),
		NextField:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next field")),
		PrevField:      key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous field")),
		Save:           key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save")),
		Cancel:         key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Edit:           key.NewBinding(key.WithKeys("enter", "e"), key.WithHelp("enter", "edit")),
		Delete:         key.NewBinding(key.WithKeys("D", "delete"), key.WithHelp("D", "delete")),
		Confirm:        key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes")),
		Refuse:         key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n", "no")),
	}
}
