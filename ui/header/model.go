// Package header is the workbench's top line: the row, its trace window and checksum, and the
// host the row is pinned to.
package header

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/pane"
	"kvparity/ui/text"
	"kvparity/ui/theme"
)

// Model is the header pane. It never takes focus; its only input is the campaign info.
type Model struct {
	pane.Base
	info engine.CampaignInfo
}

// New builds the header for a campaign.
func New(st theme.Styles, info engine.CampaignInfo) Model {
	m := Model{info: info}
	m.Styles = st
	return m
}

// SetInfo replaces the campaign info (after an artifact is re-pinned).
func (m *Model) SetInfo(info engine.CampaignInfo) { m.info = info }

// Update has nothing to react to: the root refreshes the info when it changes.
func (m Model) Update(tea.Msg) (Model, tea.Cmd) { return m, nil }

// View renders one line: brand, row, trace window and checksum, host, and "? help" at the right.
func (m Model) View() string {
	right := m.Styles.Faint.Render("? help ")
	// From most to least detailed: the first that fits wins, the last is truncated.
	var left string
	for detail := 3; detail >= 0; detail-- {
		left = m.line(detail)
		if text.Width(left)+text.Width(right)+1 <= m.Width {
			return left + strings.Repeat(" ", m.Width-text.Width(left)-text.Width(right)) + right
		}
	}
	return text.Fit([]string{left}, m.Width, 1)
}

// line renders the header at a level of detail: 3 has the trace window and host name, 2 drops
// both, 1 also the "generated:" prefix, 0 cuts a generated trace's parameters.
func (m Model) line(detail int) string {
	st := m.Styles
	i := m.info
	parts := []string{st.HeaderBrand.Render("kvparity"), "row " + st.Bold.Render(i.Row)}
	trace := i.TraceSpec
	if detail <= 1 {
		trace = strings.TrimPrefix(trace, "generated:")
	}
	if detail == 0 {
		if q := strings.IndexByte(trace, '?'); q > 0 {
			trace = trace[:q]
		}
	}
	if detail >= 3 && i.Window != "" {
		trace += " (" + i.Window + ")"
	}
	if i.TraceSHA256 != "" {
		trace += " " + text.Short(i.TraceSHA256, 4)
	}
	parts = append(parts, "trace "+trace)
	h := i.Host
	if detail < 3 {
		h.Hostname = ""
	}
	if hl := hostLine(h); hl != "" {
		parts = append(parts, "host "+hl)
	}
	return " " + strings.Join(parts, st.Faint.Render(" · "))
}

func hostLine(h engine.HostInfo) string {
	var p []string
	if h.Cores > 0 {
		p = append(p, text.Plural(h.Cores, "core"))
	}
	if h.NUMANodes > 1 {
		p = append(p, fmt.Sprintf("%d NUMA", h.NUMANodes))
	}
	if h.Hostname != "" {
		p = append([]string{h.Hostname}, p...)
	}
	return strings.Join(p, " ")
}
