package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/diffview"
	"kvparity/engine"
	"kvparity/ui/diffpane"
	"kvparity/ui/keys"
	"kvparity/ui/text"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

// diffSide names one canonical report the diff pane compares.
type diffSide = diffview.Side

// diffSlot holds the diff pane and exception form (package ui/diffpane) in the workbench's
// layout and focus ring. It indents the pane like the others and keeps its lines inside the box.
type diffSlot struct {
	pane    diffpane.Model
	a, b    diffSide
	opened  bool
	parity  verdict.Word // the parity verdict, for the slot's words before anything is opened
	w, h    int
	noColor bool
	st      theme.Styles
	diffKey key.Binding // the workbench's d, named in the empty slot's words
}

func newDiffSlot(st theme.Styles, km keys.KeyMap) diffSlot {
	return diffSlot{pane: diffpane.New(st, km.DiffPane), noColor: st.NoColor, st: st, diffKey: km.Diff}
}

// Update forwards to the diff pane: its own async messages, and keys when focused. Engine
// events are not the pane's: the root words them and tells the pane the verdicts it needs
// (SetParity, SetUnstable), so they never reach its text fields.
func (d diffSlot) Update(msg tea.Msg) (diffSlot, tea.Cmd) {
	if _, ok := msg.(engine.Event); ok {
		return d, nil
	}
	var cmd tea.Cmd
	d.pane, cmd = d.pane.Update(msg)
	return d, cmd
}

// Open asks the diff pane to load and compare two canonical reports.
func (d diffSlot) Open(a, b diffSide) (diffSlot, tea.Cmd) {
	d.a, d.b, d.opened = a, b, true
	return d, d.pane.Open(a, b)
}

// SetParity records the parity verdict so the empty slot can say what there is to diff, and
// tells the pane, which clears a diff a rebuild superseded once the rebuild passes: the slot
// then says what the empty slot says ("none: ... byte-identical").
func (d *diffSlot) SetParity(w verdict.Word) {
	d.parity = w
	if d.pane.SetParity(w) {
		d.opened = false
	}
}

// Supersede tells the pane that arm's generation gen was superseded by newGen (0: not re-pinned),
// rerun when the determinism stage reruns on it; the pane decides what its open diff shows.
func (d *diffSlot) Supersede(arm engine.Arm, gen, newGen int, rerun bool) {
	d.pane.Supersede(string(arm), gen, newGen, rerun)
}

// Capturing reports whether the diff pane takes every key (its filter or exception form is
// being typed into).
func (d diffSlot) Capturing() bool { return d.pane.Focused() && d.pane.Capturing() }

// Modal reports whether esc belongs to the diff pane first (its record list, or a field).
func (d diffSlot) Modal() bool { return d.pane.Focused() && d.pane.Modal() }

// SetZoomed tells the pane it has the whole screen.
func (d *diffSlot) SetZoomed(z bool) { d.pane.SetZoomed(z) }

// ScrollBy moves the pane's selection (the mouse wheel over it).
func (d *diffSlot) ScrollBy(n int) { d.pane.ScrollBy(n) }

// ClickAt selects the row drawn on line y of the slot.
func (d *diffSlot) ClickAt(y int) { d.pane.ClickAt(y) }

// ShortHelp is the diff pane's bindings for the footer while it has focus.
func (d diffSlot) ShortHelp() []key.Binding { return d.pane.ShortHelp() }

// FullHelp is the diff pane's list keys for the ? overlay.
func (d diffSlot) FullHelp() [][]key.Binding { return d.pane.FullHelp() }

// FooterKeys puts the current mode's keys first in the footer; they crowd out the workbench's
// but the stage keys, zoom and tab.
func (d diffSlot) FooterKeys() ([]key.Binding, bool) { return d.pane.ShortHelp(), true }

// HelpNote is the record list's, the whole diagnosis's and the form's keys in words.
func (d diffSlot) HelpNote() string { return d.pane.HelpNote() }

// SetCampaign points the pane at the campaign whose exceptions.jsonl it reads and writes.
func (d *diffSlot) SetCampaign(dir string) { d.pane.SetCampaign(dir) }

// SetUnstable tells the pane an arm is UNSTABLE (its semantic verdict is then FAIL).
func (d *diffSlot) SetUnstable(u bool) { d.pane.SetUnstable(u) }

// SetStyles restyles the slot and the diff pane.
func (d *diffSlot) SetStyles(st theme.Styles) {
	d.st = st
	d.pane.SetStyles(st)
}

// Focus gives the diff pane the keys.
func (d *diffSlot) Focus() { d.pane.Focus() }

// Blur takes the keys away from the diff pane.
func (d *diffSlot) Blur() { d.pane.Blur() }

// Focused reports whether the diff pane has the keys.
func (d diffSlot) Focused() bool { return d.pane.Focused() }

// SetSize gives the pane its box less the one-cell indent.
func (d *diffSlot) SetSize(w, h int) {
	d.w, d.h = w, h
	d.pane.SetSize(max(w-1, 1), max(h, 1))
}

// View is the diff pane's view, indented and fitted to the box, without colours under NO_COLOR.
// Before anything is opened it says what d would show ("DIFF (none: ... identical)").
func (d diffSlot) View() string {
	if !d.opened {
		return d.emptyView()
	}
	v := d.pane.View()
	if d.noColor {
		v = text.StripColour(v)
	}
	lines := strings.Split(v, "\n")
	for i := range lines {
		lines[i] = " " + lines[i]
	}
	return text.Fit(lines, d.w, d.h)
}

func (d diffSlot) emptyView() string {
	title := " " + d.st.PaneTitle("DIFF", d.pane.Focused())
	var lines []string
	switch d.parity {
	case verdict.Pass:
		lines = []string{title + d.st.Faint.Render("  (none: baseline and candidate are byte-identical)")}
	case "":
		lines = []string{title, d.st.Faint.Render("  select a repetition and press " + keys.Name(d.diffKey) + " to compare its canonical report")}
	default:
		lines = []string{title, d.st.Faint.Render("  baseline and candidate differ: select a repetition and press " + keys.Name(d.diffKey))}
	}
	return text.Fit(lines, d.w, d.h)
}
