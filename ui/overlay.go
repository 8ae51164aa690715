package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"kvparity/ui/keys"
	"kvparity/ui/pane"
	"kvparity/ui/text"
)

// The ? and v overlays: their whole text in a viewport (m.ov) that scrolls with the list keys,
// and a last line that is never scrolled away: where the view is, the keys, how to close.

// overlayRows is the rows between the status line and the footer: the overlay's room.
func (m *Model) overlayRows() int {
	return max(0, m.height-1-m.plan.artsH-m.statusRows()-1)
}

// overlayKey scrolls the open overlay; ok is false when k is not a scroll key.
func (m *Model) overlayKey(k tea.KeyPressMsg) bool {
	m.overlayBody(m.overlayRows()) // the viewport sized for this frame, before it scrolls
	km := m.keys
	switch {
	case key.Matches(k, km.Up):
		m.ov.ScrollUp(1)
	case key.Matches(k, km.Down):
		m.ov.ScrollDown(1)
	case key.Matches(k, km.PageUp):
		m.ov.PageUp()
	case key.Matches(k, km.PageDown):
		m.ov.PageDown()
	case key.Matches(k, km.Top):
		m.ov.GotoTop()
	case key.Matches(k, km.End):
		m.ov.GotoBottom()
	default:
		return false
	}
	return true
}

// openOverlay shows o from its first line.
func (m *Model) openOverlay(o overlay) {
	m.overlay = o
	m.ov = viewport.New()
}

// overlayBody renders the open overlay into h rows (also sizing m.ov, so keys scroll what is
// drawn).
func (m *Model) overlayBody(h int) string {
	switch m.overlay {
	case overlayHelp:
		return m.overlayBox(m.helpLines(), "closes this help", h)
	case overlayVerdicts:
		w := min(m.width-4, 100)
		lines := strings.Split(strings.TrimRight(m.header.Reasons(w-4), "\n"), "\n")
		lines = append(lines, m.styles.Faint.Render("campaign folder "+m.dir))
		return m.overlayBox(lines, "closes", h)
	}
	return ""
}

// overlayBox puts lines in the overlay box, h rows at most, scrolled by m.ov. Its last line
// says which lines show, the scroll keys and esc: it is there whatever the size.
func (m *Model) overlayBox(lines []string, closes string, h int) string {
	frame := m.styles.Overlay
	if h < frame.GetVerticalFrameSize()+3 || m.width < frame.GetHorizontalFrameSize()+20 {
		frame = lipgloss.NewStyle() // too small for the border: the text matters more
	}
	cw := 0
	for _, l := range lines {
		cw = max(cw, text.Width(l))
	}
	cw = min(max(cw, 40), m.width-frame.GetHorizontalFrameSize())
	for i := range lines {
		lines[i] = text.Trunc(lines[i], cw)
	}
	vh := max(1, min(len(lines), h-frame.GetVerticalFrameSize()-1))
	m.ov.SetWidth(cw)
	m.ov.SetHeight(vh)
	m.ov.SetContentLines(lines)
	closeKey := keys.Name(m.keys.Close)
	foot := []string{closeKey + " " + closes}
	if len(lines) > vh {
		top := m.ov.YOffset()
		at := fmt.Sprintf("lines %d–%d of %d", top+1, min(top+vh, len(lines)), len(lines))
		if m.ov.AtBottom() {
			at += " (end)"
		} else {
			at += " ↓"
		}
		foot = []string{
			at + " · " + m.keys.Scroll.Help().Key + " scroll · " + closeKey + " " + closes,
			at + " · ↑/↓ pgup/pgdn · " + closeKey + " " + closes,
			fmt.Sprintf("%d–%d/%d · ↑/↓ · %s %s", top+1, min(top+vh, len(lines)), len(lines), closeKey, closes),
			fmt.Sprintf("%d/%d ↑/↓ · %s %s", top+1, len(lines), closeKey, closes),
		}
	}
	last := foot[len(foot)-1]
	for _, f := range foot {
		if text.Width(f) <= cw {
			last = f
			break
		}
	}
	body := m.ov.View() + "\n" + m.styles.FooterKey.Render(text.Pad(text.Trunc(last, cw), cw))
	placed := lipgloss.Place(m.width, max(h, 0), lipgloss.Center, lipgloss.Center, block(frame.Render(body)))
	return text.Fit(strings.Split(placed, "\n"), m.width, h)
}

// helpOverlay is the ? overlay in h rows.
func (m *Model) helpOverlay(h int) string { return m.overlayBody(h) }

// verdictsOverlay is the v overlay: every verdict with its reason, as the report words it.
func (m *Model) verdictsOverlay(h int) string { return m.overlayBody(h) }

// helpLines is the ? overlay's text: the campaign folder, the focused pane's keys (and its
// notes), the workbench's keys (the same in every pane), then the stage keys in words. All
// of it, however small the window: the overlay scrolls.
func (m *Model) helpLines() []string {
	hm := m.help
	hm.ShowAll = true
	name, paneKeys := m.paneHelp()
	w := m.width - 4
	var b strings.Builder
	// Where everything is kept (journal, runs, reports, exception records): whole, wrapped.
	for _, l := range text.Wrap("CAMPAIGN FOLDER "+m.dir, w, 3, "  ") {
		b.WriteString(l + "\n")
	}
	b.WriteString(strings.ToUpper(name) + " KEYS (it has focus)\n")
	if len(paneKeys) == 0 {
		b.WriteString("  no keys of its own\n")
	} else {
		b.WriteString(helpGrid(hm, paneKeys, w) + "\n")
	}
	if hn, ok := pane.As[pane.HelpNoter](m.focused()); ok {
		for _, l := range text.Wrap(hn.HelpNote(), w, 4, "  ") {
			b.WriteString(l + "\n")
		}
		if c, ok := pane.As[pane.Capturer](m.focused()); ok && c.Capturing() {
			b.WriteString("while its field or form takes text, the workbench keys wait (" + keys.Name(m.keys.Dismiss) + " leaves it)\n")
		}
	}
	b.WriteString("\nWORKBENCH KEYS (the same in every pane)\n")
	b.WriteString(helpGrid(hm, m.keys.FullHelp(), w) + "\n\n")
	for _, s := range []string{
		fmt.Sprintf("%s runs the determinism stage: repetitions, STABLE and parity; %s the performance stage; %s asks before it stops one.",
			keys.Name(m.keys.StartDeterminism), keys.Name(m.keys.StartPerf), keys.Name(m.keys.StopStage)),
		fmt.Sprintf("%s (gg too) and %s only move, to the first line and the last: no stage starts from them.",
			m.keys.Top.Help().Key, m.keys.End.Help().Key),
		"mouse: the wheel scrolls the pane under the pointer, a click focuses a pane and selects a row.",
	} {
		for _, l := range text.Wrap(s, w, 3, "  ") {
			b.WriteString(l + "\n")
		}
	}
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}
