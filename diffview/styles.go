package diffview

import "charm.land/lipgloss/v2"

// Styles are the diff pane's styles for one background (light or dark).
type Styles struct {
	Title, Dim, Header, Label, Evidence lipgloss.Style
	Group, GroupSel, Row, RowSel        lipgloss.Style
	Mark, Del, Ins, Err, OK, Warn       lipgloss.Style
	FieldLabel, FieldFocus, Box         lipgloss.Style
}

// NewStyles builds the pane styles; the root passes isDark from tea.BackgroundColorMsg.
func NewStyles(isDark bool) Styles {
	ld := lipgloss.LightDark(isDark)
	fg := ld(lipgloss.Color("#1f2328"), lipgloss.Color("#e6edf3"))
	dim := ld(lipgloss.Color("#6e7781"), lipgloss.Color("#8b949e"))
	accent := ld(lipgloss.Color("#0550ae"), lipgloss.Color("#79c0ff"))
	selBg := ld(lipgloss.Color("#ddf4ff"), lipgloss.Color("#1f3a5f"))
	red := ld(lipgloss.Color("#cf222e"), lipgloss.Color("#ff7b72"))
	green := ld(lipgloss.Color("#1a7f37"), lipgloss.Color("#3fb950"))
	yellow := ld(lipgloss.Color("#9a6700"), lipgloss.Color("#d29922"))
	delBg := ld(lipgloss.Color("#ffebe9"), lipgloss.Color("#5a1e1e"))
	insBg := ld(lipgloss.Color("#dafbe1"), lipgloss.Color("#1b4721"))
	return Styles{
		Title:      lipgloss.NewStyle().Bold(true).Foreground(accent),
		Dim:        lipgloss.NewStyle().Foreground(dim),
		Header:     lipgloss.NewStyle().Foreground(fg),
		Label:      lipgloss.NewStyle().Bold(true).Foreground(fg),
		Evidence:   lipgloss.NewStyle().Foreground(dim),
		Group:      lipgloss.NewStyle().Bold(true).Foreground(fg),
		GroupSel:   lipgloss.NewStyle().Bold(true).Foreground(fg).Background(selBg),
		Row:        lipgloss.NewStyle().Foreground(fg),
		RowSel:     lipgloss.NewStyle().Foreground(fg).Background(selBg),
		Mark:       lipgloss.NewStyle().Foreground(yellow).Bold(true),
		Del:        lipgloss.NewStyle().Foreground(red).Background(delBg),
		Ins:        lipgloss.NewStyle().Foreground(green).Background(insBg),
		Err:        lipgloss.NewStyle().Foreground(red).Bold(true),
		OK:         lipgloss.NewStyle().Foreground(green).Bold(true),
		Warn:       lipgloss.NewStyle().Foreground(yellow).Bold(true),
		FieldLabel: lipgloss.NewStyle().Foreground(dim),
		FieldFocus: lipgloss.NewStyle().Foreground(accent).Bold(true),
		Box:        lipgloss.NewStyle().Foreground(dim),
	}
}
