// Package pane is the workbench's pane contract and what every pane shares. Pane is the one
// interface the root holds the focus ring's panes by (update, view, size, focus, help, styles);
// a pane package's value Model keeps it through Of, and embeds Base for its box, focus and
// styles. The optional abilities (Scroller, Clicker, Zoomer, Clocked, Capturer, Footer,
// HelpNoter) are found with As: a pane that has one gets the wheel, the clicks, the zoom
// mark, the frame's clock, every key, the footer's first place or the ? overlay's note. Feed
// carries a producer goroutine's snapshots to a standalone view (the matrix and bisect views). It
// imports ui/theme for the styles every pane's box is drawn with.
package pane

import "kvparity/ui/theme"

// Base is the size, focus and styles of one pane. The root owns the layout and calls SetSize;
// panes never look at the terminal.
type Base struct {
	// Styles is never changed in place: SetStyles replaces it. A pointer keeps the pane small,
	// since every Update copies the pane's value and the palette is 15 KB.
	Styles  *theme.Styles
	Width   int
	Height  int
	focused bool
}

// SetSize gives the pane its box (cells, title line included).
func (b *Base) SetSize(w, h int) { b.Width, b.Height = max(w, 0), max(h, 0) }

// Focus makes the pane take key input.
func (b *Base) Focus() { b.focused = true }

// Blur makes the pane ignore key input.
func (b *Base) Blur() { b.focused = false }

// Focused reports whether the pane has focus.
func (b Base) Focused() bool { return b.focused }

// SetStyles swaps the pane's styles (light/dark switch, NO_COLOR).
func (b *Base) SetStyles(s theme.Styles) { b.Styles = &s }

// Title renders the pane's title line (indented one cell, like the pane's lines) in its focus
// style, followed by an optional note.
func (b Base) Title(title, note string) string {
	t := " " + b.Styles.PaneTitle(title, b.focused)
	if note != "" {
		t += " " + b.Styles.Faint.Render(note)
	}
	return t
}
