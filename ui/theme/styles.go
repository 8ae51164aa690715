// Package theme holds the workbench's palette and styles, built once per background (light or
// dark) and colour setting, so no pane defines a colour of its own. It imports verdict so that
// a word's colour follows its tone.
package theme

import (
	"image/color"

	"charm.land/lipgloss/v2"

	"kvparity/verdict"
)

// Styles is every style the workbench renders with. It is a value: rebuilding it on a
// tea.BackgroundColorMsg and handing the copy to each pane is how light/dark switches.
type Styles struct {
	IsDark  bool
	NoColor bool

	Title        lipgloss.Style // a pane's title when blurred
	TitleFocused lipgloss.Style // a pane's title when it has focus
	Faint        lipgloss.Style // secondary text: units, separators, hints
	Bold         lipgloss.Style
	Selected     lipgloss.Style // the selected line of a list in a focused pane
	SelectedDim  lipgloss.Style // the selected line of a list in a blurred pane

	Good    lipgloss.Style // STABLE, PASS, ✓
	Bad     lipgloss.Style // UNSTABLE, FAIL, ✗, errors
	Warn    lipgloss.Style // INCONCLUSIVE, stale, invalidated
	Running lipgloss.Style // live runs
	Accent  lipgloss.Style // digests, numbers the eye looks for

	Banner      lipgloss.Style // the status line when it carries a problem
	BannerInfo  lipgloss.Style // the status line when it carries news
	Footer      lipgloss.Style
	FooterKey   lipgloss.Style
	Overlay     lipgloss.Style // the help and quit-confirmation boxes
	PlotMarker  lipgloss.Style
	PlotGuide   lipgloss.Style // the threshold and 1.0 lines of the ratio plot
	HeaderBrand lipgloss.Style

	Diff DiffStyles // the diff pane's own roles (package ui/diffpane)
}

// NewStyles builds the styles for a dark or light background. With noColor (NO_COLOR set) no
// style carries a colour; emphasis falls back to bold, underline and reverse video so selection
// and verdicts stay visible.
func NewStyles(isDark, noColor bool) Styles {
	s := Styles{IsDark: isDark, NoColor: noColor}
	if noColor {
		plain := lipgloss.NewStyle()
		s.Title = plain.Bold(true)
		s.TitleFocused = plain.Bold(true).Underline(true)
		s.Faint = plain
		s.Bold = plain.Bold(true)
		s.Selected = plain.Reverse(true)
		s.SelectedDim = plain.Underline(true)
		s.Good, s.Bad, s.Warn, s.Running, s.Accent = plain.Bold(true), plain.Bold(true), plain.Bold(true), plain, plain
		s.Banner = plain.Bold(true).Reverse(true)
		s.BannerInfo = plain
		s.Footer, s.FooterKey = plain, plain.Bold(true)
		s.Overlay = plain.Border(lipgloss.NormalBorder()).Padding(0, 1)
		s.PlotMarker, s.PlotGuide = plain.Bold(true), plain
		s.HeaderBrand = plain.Bold(true)
		s.Diff = DiffStyles{Title: plain.Bold(true), Row: plain, GroupSel: plain.Bold(true).Reverse(true),
			Del: plain.Underline(true), Ins: plain.Underline(true)}
		return s
	}
	ld := lipgloss.LightDark(isDark)
	c := func(light, dark string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(dark)) }
	var (
		fg      = c("#1f2328", "#e6edf3")
		faint   = c("#6e7781", "#7d8590")
		green   = c("#1a7f37", "#3fb950")
		red     = c("#cf222e", "#f85149")
		yellow  = c("#9a6700", "#d29922")
		blue    = c("#0969da", "#58a6ff")
		purple  = c("#8250df", "#bc8cff")
		selBg   = c("#ddf4ff", "#1f3a5f")
		dimBg   = c("#eaeef2", "#262c36")
		barBg   = c("#f6f8fa", "#161b22")
		alertBg = c("#ffebe9", "#5a1e1e")
		addBg   = c("#dafbe1", "#1b4721")
	)
	base := lipgloss.NewStyle()
	s.Title = base.Foreground(faint).Bold(true)
	s.TitleFocused = base.Foreground(blue).Bold(true).Underline(true)
	s.Faint = base.Foreground(faint)
	s.Bold = base.Foreground(fg).Bold(true)
	s.Selected = base.Background(selBg).Foreground(fg)
	s.SelectedDim = base.Background(dimBg)
	s.Good = base.Foreground(green).Bold(true)
	s.Bad = base.Foreground(red).Bold(true)
	s.Warn = base.Foreground(yellow).Bold(true)
	s.Running = base.Foreground(blue)
	s.Accent = base.Foreground(purple)
	s.Banner = base.Foreground(red).Background(alertBg).Bold(true)
	s.BannerInfo = base.Foreground(fg)
	s.Footer = base.Foreground(faint).Background(barBg)
	s.FooterKey = base.Foreground(fg).Background(barBg).Bold(true)
	s.Overlay = base.Border(lipgloss.RoundedBorder()).BorderForeground(blue).Padding(0, 1)
	s.PlotMarker = base.Foreground(purple)
	s.PlotGuide = base.Foreground(faint)
	s.HeaderBrand = base.Foreground(blue).Bold(true)
	s.Diff = DiffStyles{
		Title:    base.Foreground(blue).Bold(true),
		Row:      base.Foreground(fg),
		GroupSel: base.Background(selBg).Foreground(fg).Bold(true),
		Del:      base.Foreground(red).Background(alertBg),
		Ins:      base.Foreground(green).Background(addBg),
	}
	return s
}

// Verdict styles a verdict word by its tone (verdict.Word.Tone, the one classification every
// surface uses): STABLE, PASS and PASS_WITH_SEMANTIC_EXCEPTIONS good, UNSTABLE, FAIL and
// BLOCKED bad, INCONCLUSIVE a warning, UNDECIDED faint; the zero Word (nothing recorded yet)
// renders nothing.
func (s Styles) Verdict(w verdict.Word) string {
	if w == "" {
		return ""
	}
	switch w.Tone() {
	case verdict.ToneGood, verdict.ToneNote:
		return s.Good.Render(w.String())
	case verdict.ToneBad:
		return s.Bad.Render(w.String())
	case verdict.ToneWarn:
		return s.Warn.Render(w.String())
	}
	return s.Faint.Render(w.String())
}

// PaneTitle renders a pane's title in its focused or blurred style.
func (s Styles) PaneTitle(title string, focused bool) string {
	if focused {
		return s.TitleFocused.Render(title)
	}
	return s.Title.Render(title)
}
