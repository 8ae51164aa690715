package keys

import "charm.land/bubbles/v2/key"

// MatrixKeys is the matrix view's bindings (kvparity matrix, package ui/matrixview).
type MatrixKeys struct {
	Up, Down, Top, End, Open, Quit key.Binding
}

// Matrix returns the matrix view's bindings: ↑/↓ (k/j) select, enter opens, q quits.
func Matrix() MatrixKeys {
	return MatrixKeys{
		Up:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous row")),
		Down: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next row")),
		Top:  key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", "first")),
		End:  key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", "last")),
		Open: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open row")),
		Quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}
