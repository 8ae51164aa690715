// Package keys defines every key binding of the workbench once, as data: the root and the panes
// match against them, the footer and the ? overlay are rendered from their help text.
package keys

import "charm.land/bubbles/v2/key"

// KeyMap is the workbench's bindings. Build it with Default; never mutate a shared one.
//
// The global keys (the first group) mean the same thing whichever pane has focus: no pane
// binds them to anything else (a test holds the panes' sections to that). While a pane's text
// field takes input they are suspended, and the footer says so; ctrl+c always quits.
type KeyMap struct {
	StartDeterminism key.Binding
	StartPerf        key.Binding
	StopStage        key.Binding
	Rerun            key.Binding
	AddRepetition    key.Binding
	NextPane         key.Binding
	PrevPane         key.Binding
	Diff             key.Binding
	Exception        key.Binding
	Watch            key.Binding
	Investigate      key.Binding
	SaveReport       key.Binding
	Verdicts         key.Binding
	Zoom             key.Binding
	OpenReport       key.Binding
	Dismiss          key.Binding
	Help             key.Binding
	Quit             key.Binding
	// Interrupt is the one key that reaches the workbench while a text field takes every key
	// (a Quit key as well): quitting is never trapped.
	Interrupt key.Binding

	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	End      key.Binding

	Yes   key.Binding
	No    key.Binding
	Close key.Binding
	// Scroll names the ? and v overlays' scrolling keys (Up, Down, PageUp, PageDown, Top, End).
	Scroll key.Binding

	// DiffPane is the diff pane's own section (package ui/diffpane).
	DiffPane DiffKeys
}

// Default returns the workbench bindings (the design's footer plus S, x, +, z, o, ↑/↓ and ?).
//
// A stage start is never a navigation key's neighbour: S (not g) starts the determinism stage,
// so vim's and lazygit's g, gg and G only move (home/g first, end/G last).
func Default() KeyMap {
	k := KeyMap{
		StartDeterminism: key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "determinism")),
		StartPerf:        key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "perf")),
		StopStage:        key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "stop stage")),
		Rerun:            key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "rerun")),
		AddRepetition:    key.NewBinding(key.WithKeys("+"), key.WithHelp("+", "add repetition")),
		NextPane:         key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "pane")),
		PrevPane:         key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Diff:             key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "diff")),
		Exception:        key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "exception")),
		Watch:            key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "watch")),
		Investigate:      key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "profile arms")),
		SaveReport:       key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save report")),
		Verdicts:         key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "verdicts & reasons")),
		Zoom:             key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "zoom pane")),
		OpenReport:       key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open report.md ($PAGER)")),
		Dismiss:          key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear message")),
		Help:             key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:             key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Interrupt:        key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),

		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "select previous")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "select next")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "first")),
		End:      key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "last")),

		Yes:   key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes")),
		No:    key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n", "no")),
		Close: key.NewBinding(key.WithKeys("esc", "?", "q"), key.WithHelp("esc", "close")),
		// Help only: the overlays match Up, Down, PageUp, PageDown, Top and End themselves.
		Scroll: key.NewBinding(key.WithKeys("up", "down", "pgup", "pgdown"), key.WithHelp("↑/↓ pgup/pgdn g/G", "scroll")),

		DiffPane: defaultDiff(),
	}
	// The workbench keys the diff pane's words name are the workbench's own bindings.
	k.DiffPane.Zoom, k.DiffPane.Open = k.Zoom, k.Diff
	return k
}

// Name is the key a message tells the user to press: the binding's first key ("end" of end/G,
// "esc" of the ? overlay's esc, ? and q). Every key letter in a help text or message comes
// from here or from the binding's help, so a rebinding changes the words with the key.
func Name(b key.Binding) string {
	if ks := b.Keys(); len(ks) > 0 {
		return ks[0]
	}
	return ""
}

// ShortHelp is the footer, most useful first: the footer drops bindings from the end of the
// middle group when the terminal is narrow, but always keeps help and quit.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.StopStage, k.StartDeterminism, k.StartPerf, k.NextPane, k.Rerun, k.Diff, k.Exception,
		k.Zoom, k.Watch, k.SaveReport, k.OpenReport, k.AddRepetition, k.Help, k.Quit}
}

// Globals lists every workbench-wide binding: the keys no pane may take for itself.
func (k KeyMap) Globals() []key.Binding {
	var out []key.Binding
	for _, col := range k.FullHelp() {
		out = append(out, col...)
	}
	return out
}

// FullHelp is the ? overlay, one column per concern.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.StartDeterminism, k.StartPerf, k.Investigate, k.StopStage, k.Rerun, k.AddRepetition, k.Watch},
		{k.NextPane, k.PrevPane, k.Zoom, k.Dismiss, k.Help, k.Quit},
		{k.Diff, k.Exception, k.SaveReport, k.OpenReport, k.Verdicts},
	}
}
