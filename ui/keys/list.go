package keys

import "charm.land/bubbles/v2/key"

// ListKeys is a standalone list view's bindings: the matrix view (kvparity matrix --view,
// ui/matrixview) and the bisect view (kvparity bisect --view, ui/bisectview). Both select a
// line, open what it names in the workbench and quit.
type ListKeys struct {
	Up, Down, Top, End, Open, Quit key.Binding
}

// list binds ↑/↓ (k/j), home/end (g/G), enter and q with the view's own words.
func list(up, down, top, end, open string) ListKeys {
	return ListKeys{
		Up:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", up)),
		Down: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", down)),
		Top:  key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", top)),
		End:  key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", end)),
		Open: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", open)),
		Quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// Matrix returns the matrix view's bindings: a row is selected, enter opens its workbench.
func Matrix() ListKeys { return list("previous row", "next row", "first", "last", "open row") }

// Bisect returns the bisect view's bindings: commits are listed newest first, enter opens the
// selected commit's probe campaign, q quits (the recorded steps are kept: the same command
// resumes).
func Bisect() ListKeys {
	return list("newer commit", "older commit", "newest", "oldest", "open probe")
}

// Qualify returns the qualify view's bindings: the probe table scrolls, q quits (the recorded
// probes are kept: the same command resumes from them). enter is unbound: a probe has no
// campaign of its own to open.
func Qualify() ListKeys {
	k := list("earlier probe", "later probe", "first", "last", "")
	k.Open.SetEnabled(false)
	return k
}
