package pane

import (
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/ui/theme"
)

// Pane is the contract the root holds every pane of the focus ring by: it routes messages to
// Update and batches the command it returns (a pane's command is never dropped), lays the pane
// out with SetSize, moves focus with Focus and Blur, restyles it with SetStyles, joins View into
// the frame and renders ShortHelp and FullHelp (help.KeyMap) in the footer and the ? overlay.
type Pane interface {
	Update(tea.Msg) tea.Cmd
	View() string
	SetSize(w, h int)
	Focus()
	Blur()
	Focused() bool
	SetStyles(theme.Styles)
	help.KeyMap
}

// Value is what a pane package's Model provides, Bubble Tea style: Update on a value returns
// the updated copy. Embedding Base gives Focused, and SetSize, Focus, Blur and SetStyles on the
// pointer.
type Value[M any] interface {
	Update(tea.Msg) (M, tea.Cmd)
	View() string
	Focused() bool
	help.KeyMap
}

// Ptr is the pointer to a pane's Model, which owns its box, focus and styles.
type Ptr[M any] interface {
	*M
	SetSize(w, h int)
	Focus()
	Blur()
	SetStyles(theme.Styles)
}

// Of holds the pane at p (a field of the root's model) as a Pane: Update stores the updated
// copy back at p, so the root never writes m.x, _ = m.x.Update(msg) and drops the command.
func Of[M Value[M], P Ptr[M]](p P) Pane { return held[M, P]{p} }

// Update updates the value at p in place and returns its command: the one way the root calls
// a value-model Update, a pane of the ring or not (the header and artifacts lines).
func Update[M interface {
	Update(tea.Msg) (M, tea.Cmd)
}](p *M, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	*p, cmd = (*p).Update(msg)
	return cmd
}

type held[M Value[M], P Ptr[M]] struct{ p P }

func (h held[M, P]) Update(msg tea.Msg) tea.Cmd { return Update[M]((*M)(h.p), msg) }
func (h held[M, P]) View() string               { return (*h.p).View() }
func (h held[M, P]) SetSize(w, ht int)          { h.p.SetSize(w, ht) }
func (h held[M, P]) Focus()                     { h.p.Focus() }
func (h held[M, P]) Blur()                      { h.p.Blur() }
func (h held[M, P]) Focused() bool              { return (*h.p).Focused() }
func (h held[M, P]) SetStyles(s theme.Styles)   { h.p.SetStyles(s) }
func (h held[M, P]) ShortHelp() []key.Binding   { return (*h.p).ShortHelp() }
func (h held[M, P]) FullHelp() [][]key.Binding  { return (*h.p).FullHelp() }
func (h held[M, P]) model() any                 { return h.p }

// As finds an optional ability (Scroller, Clicker, Zoomer, Clocked, Capturer, Footer,
// HelpNoter) on the pane a Pane holds.
func As[T any](p Pane) (T, bool) {
	if h, ok := p.(interface{ model() any }); ok {
		t, ok := h.model().(T)
		return t, ok
	}
	t, ok := p.(T)
	return t, ok
}

// The optional abilities: the root looks for them with As and does without when a pane has none.

// Scroller scrolls by n rows or items (the mouse wheel over the pane; the root multiplies the
// notches by the pane's registry entry).
type Scroller interface{ ScrollBy(n int) }

// Clicker selects what is drawn on line y of the pane (0 is its title line).
type Clicker interface{ ClickAt(y int) }

// Zoomer is told whether it has the whole screen (z), so its title can say so.
type Zoomer interface{ SetZoomed(bool) }

// Clocked shows elapsed times: the root sets the frame's instant before each frame, and keeps
// redrawing while Live reports something on screen moves with time.
type Clocked interface {
	SetNow(time.Time)
	Live() bool
}

// Capturer has a text field or a pending question. While Capturing, it takes every key but
// ctrl+c (the workbench keys wait); while Modal, esc is its own before the workbench's.
type Capturer interface {
	Capturing() bool
	Modal() bool
}

// Footer puts keys of its own first in the footer while it has focus. Crowded says they take
// the room of the workbench's keys: only the stage keys, zoom and tab follow them.
type Footer interface {
	FooterKeys() (keys []key.Binding, crowded bool)
}

// HelpNoter adds words under its keys in the ? overlay (modes whose keys are not columns).
type HelpNoter interface{ HelpNote() string }
