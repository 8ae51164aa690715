package keys

import "charm.land/bubbles/v2/key"

// DiffKeys is the diff pane's section of the key map (KeyMap.DiffPane). While the pane has
// focus its bindings act on the diff, so they may share keys with the workbench's.
type DiffKeys struct {
	Up, Down, PageUp, PageDown  key.Binding
	Toggle, Collapse            key.Binding
	ExpandAll, CollapseAll      key.Binding
	NextDiff, PrevDiff          key.Binding
	Filter, ClearFilter, Apply  key.Binding
	Mark, NewException, Records key.Binding
	// form and record list
	NextField, PrevField, Save, Cancel key.Binding
	Edit, Delete, Confirm              key.Binding
}

// defaultDiff returns the diff pane's bindings.
func defaultDiff() DiffKeys {
	return DiffKeys{
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:       key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Toggle:       key.NewBinding(key.WithKeys("enter", "right", "l"), key.WithHelp("enter", "expand/collapse")),
		Collapse:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "collapse")),
		ExpandAll:    key.NewBinding(key.WithKeys("+"), key.WithHelp("+", "expand all")),
		CollapseAll:  key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "collapse all")),
		NextDiff:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next difference")),
		PrevDiff:     key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous difference")),
		Filter:       key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter by pointer")),
		ClearFilter:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		Apply:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
		Mark:         key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "select")),
		NewException: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "exception record")),
		Records:      key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "exception records")),
		NextField:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next field")),
		PrevField:    key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous field")),
		Save:         key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save")),
		Cancel:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Edit:         key.NewBinding(key.WithKeys("enter", "e"), key.WithHelp("enter", "edit")),
		Delete:       key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete")),
		Confirm:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "confirm delete")),
	}
}
