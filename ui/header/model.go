// Package header is the workbench's top line: the row, its trace window and checksum, and the
// host the row is pinned to. It imports engine for the campaign's row and host, verdict for the
// verdicts' words and tones, and ui/* (pane, text, theme) for its box, text and palette.
package header

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/keys"
	"kvparity/ui/pane"
	"kvparity/ui/text"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

// Model is the header pane. It never takes focus; its only input is the campaign info.
type Model struct {
	pane.Base
	info      engine.CampaignInfo
	verdicts  *verdict.Verdicts
	assessErr error
	pending   bool // an assessment is on its way and none has arrived yet
	running   engine.Stage
	// diffing says a parity FAIL arrived and the assessment that diffs the two reports (the
	// semantic verdict's exception coverage) has not answered yet.
	diffing bool
	keys    keys.KeyMap // v and the overlay's close, named in the header's words
}

// New builds the header for a campaign, naming the default bindings until SetKeys.
func New(st theme.Styles, info engine.CampaignInfo) Model {
	m := Model{info: info, keys: keys.Default()}
	m.SetStyles(st)
	return m
}

// SetKeys gives the header the workbench's bindings, so its words name the keys that work.
func (m *Model) SetKeys(km keys.KeyMap) { m.keys = km }

// SetInfo replaces the campaign info (after an artifact is re-pinned).
func (m *Model) SetInfo(info engine.CampaignInfo) { m.info = info }

// Update takes the engine's verdict events that change what the header may say before the
// next assessment answers: a block ends the stage it blocked (its verdicts are no longer being
// decided), and a parity FAIL starts the diff the semantic verdict is computed from. The root
// refreshes the info when it changes.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch ev := msg.(type) {
	case engine.RowBlocked:
		if m.running == ev.Stage || (m.running == engine.StageDeterminism && ev.Stage == engine.StageParity) {
			m.running = ""
		}
	case engine.StageVerdict:
		if ev.Stage == engine.StageParity && ev.Verdict == verdict.Fail {
			m.diffing = true
		}
	}
	return m, nil
}

// View renders one line: brand, row, trace window and checksum, host at the left, and the
// campaign's verdicts (semantic, performance, footprint, overall) at the right. The verdict
// words are never cut: the left side gives up detail first, then the verdicts do.
func (m Model) View() string {
	for _, d := range headerDetail {
		left, right := m.line(d[0]), m.verdictPhrase(d[1])+" "
		if text.Width(left)+text.Width(right)+1 <= m.Width {
			return left + strings.Repeat(" ", m.Width-text.Width(left)-text.Width(right)) + right
		}
	}
	// Too narrow for anything but the overall verdict.
	right := m.verdictPhrase(0) + " "
	return text.Fit([]string{strings.Repeat(" ", max(0, m.Width-text.Width(right))) + right}, m.Width, 1)
}

// headerDetail is the order in which the header gives up detail: {line, verdictPhrase} levels,
// the first that fits wins. The trace stays while every verdict but a passing footprint fits.
var headerDetail = [][2]int{{3, 3}, {2, 3}, {1, 3}, {0, 3}, {3, 2}, {2, 2}, {1, 2}, {0, 2},
	{-1, 3}, {-1, 2}, {0, 1}, {-1, 1}, {-2, 2}, {-2, 1}, {-3, 2}, {-3, 1}, {-2, 0}, {-3, 0}}

// line renders the header at a level of detail: 3 has the trace window and host name, 2 drops
// both, 1 also the "generated:" prefix, 0 cuts a generated trace's parameters, -1 drops the
// host, -2 the trace, -3 the row.
func (m Model) line(detail int) string {
	st := m.Styles
	i := m.info
	parts := []string{st.HeaderBrand.Render("kvparity")}
	if detail >= -2 {
		parts = append(parts, "row "+st.Bold.Render(i.Row))
	}
	// A desk build is said at every level that names the row: its verdicts are not the
	// release artifact's speed or size.
	switch {
	case i.DeskBuild != "" && detail >= 2:
		parts = append(parts, st.Warn.Render(i.DeskBuild))
	case i.DeskBuild != "" && detail >= -2:
		parts = append(parts, st.Warn.Render("desk build"))
	}
	trace := i.TraceSpec
	if detail <= 1 {
		if strings.HasPrefix(trace, "generated:") {
			trace = strings.TrimPrefix(trace, "generated:")
		} else {
			trace = filepath.Base(trace) // a file's name says which trace; its folder rarely does
		}
	}
	if detail <= 0 {
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
	if detail >= -1 {
		parts = append(parts, "trace "+trace)
	}
	h := i.Host
	if detail < 3 {
		h.Hostname = ""
	}
	if hl := hostLine(h); hl != "" && detail >= 0 {
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
