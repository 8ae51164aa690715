package theme

import "charm.land/lipgloss/v2"

// DiffStyles are the diff pane's own roles (Styles.Diff), built by NewStyles from the one
// palette. For everything else (secondary text, labels, the selected row, verdicts, errors)
// the pane uses the shared styles. Under NO_COLOR the differing characters are underlined.
type DiffStyles struct {
	Title    lipgloss.Style // the pane's, the form's and the record list's titles; the focused field's label
	Row      lipgloss.Style // a change's pointer and values, the first divergence
	GroupSel lipgloss.Style // the selected group header
	Del      lipgloss.Style // the A side's differing characters
	Ins      lipgloss.Style // the B side's differing characters
}
