// Package pressure is the pane with a run's pressure events (preemptions and retractions): a
// timeline over virtual time and a selectable list with kind, pool, worker, time, request and
// readmission. It imports engine for the selected run, report for its pressure records,
// diffview for the sides it names, and ui/* (pane, keys, text, theme) for its box, keys, text
// and palette.
package pressure

import (
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/diffview"
	"kvparity/engine"
	"kvparity/report"
	"kvparity/ui/keys"
	"kvparity/ui/pane"
	"kvparity/ui/text"
	"kvparity/ui/theme"
)

// span is a run's virtual-time range, known once its evidence arrives.
type span struct{ start, end float64 }

// Model is the pressure pane.
type Model struct {
	pane.Base
	keys    keys.KeyMap
	records map[engine.RunID][]report.PressureRecord
	byOrd   map[engine.RunID]map[int]int // record index by ordinal: one record per ordinal
	spans   map[engine.RunID]span
	// unrecorded: runs whose report's shape records no pressure (report.Evidence.Unrecorded).
	unrecorded map[engine.RunID]string
	run        engine.RunID
	label      string
	cursor     int
}

// New builds an empty pane.
func New(st theme.Styles, km keys.KeyMap) Model {
	m := Model{keys: km, records: map[engine.RunID][]report.PressureRecord{}, byOrd: map[engine.RunID]map[int]int{}, spans: map[engine.RunID]span{},
		unrecorded: map[engine.RunID]string{}}
	m.SetStyles(st)
	return m
}

// SetRun selects the run whose pressure events are shown.
func (m *Model) SetRun(run engine.RunID, label string) {
	if run != m.run {
		m.cursor = 0
	}
	m.run, m.label = run, label
}

// Records returns the pressure records of a run.
func (m Model) Records(run engine.RunID) []report.PressureRecord { return m.records[run] }

// Update takes PressureEvent (live) and CoverageReady (the whole list and the virtual-time
// span, which replaces the live list since it is the canonical record's own).
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch ev := msg.(type) {
	case engine.PressureEvent:
		// The engine announces a record live from the run's side channel (and again when its
		// readmission is known), then once more inside the run's evidence (or replays it from
		// the journal on resume): a record is one event per ordinal, the newest word kept.
		idx := m.byOrd[ev.Run]
		if idx == nil {
			idx = map[int]int{}
			m.byOrd[ev.Run] = idx
		}
		if i, ok := idx[ev.Record.Ordinal]; ok {
			m.records[ev.Run][i] = ev.Record
		} else {
			idx[ev.Record.Ordinal] = len(m.records[ev.Run])
			m.records[ev.Run] = append(m.records[ev.Run], ev.Record)
		}
	case engine.CoverageReady:
		if ev.Evidence != nil {
			m.spans[ev.Run] = span{ev.Evidence.VirtualStartMs, ev.Evidence.VirtualEndMs}
			if ev.Evidence.Unrecorded != "" {
				m.unrecorded[ev.Run] = ev.Evidence.Unrecorded
			}
			if len(ev.Evidence.Pressure) > 0 || len(m.records[ev.Run]) == 0 {
				// The canonical record's own list replaces the live one, ordinal for ordinal.
				m.records[ev.Run] = slices.Clone(ev.Evidence.Pressure)
				idx := make(map[int]int, len(ev.Evidence.Pressure))
				for i, r := range ev.Evidence.Pressure {
					idx[r.Ordinal] = i
				}
				m.byOrd[ev.Run] = idx
			}
		}
	case tea.KeyPressMsg:
		if m.Focused() {
			n := len(m.records[m.run])
			switch {
			case key.Matches(ev, m.keys.Up):
				m.cursor = max(m.cursor-1, 0)
			case key.Matches(ev, m.keys.Down):
				m.cursor = max(min(m.cursor+1, n-1), 0)
			case key.Matches(ev, m.keys.Top):
				m.cursor = 0
			case key.Matches(ev, m.keys.End):
				m.cursor = max(n-1, 0)
			}
		}
	}
	return m, nil
}

// ScrollBy moves the selection by n events (the mouse wheel over the pane).
func (m *Model) ScrollBy(n int) {
	m.cursor = max(0, min(len(m.records[m.run])-1, m.cursor+n))
}

// ClickAt selects the event drawn on line y of the pane (0 is the title, 1 the timeline).
func (m *Model) ClickAt(y int) {
	body := m.Height - 2
	if m.Focused() && body >= 3 {
		body-- // the selected event's details take the last line
	}
	first := 0
	if m.cursor >= body {
		first = m.cursor - body + 1
	}
	if i := first + y - 2; y >= 2 && y < 2+body && i < len(m.records[m.run]) {
		m.cursor = i
	}
}

// View renders the title with counts, the timeline, and as many list lines as fit, scrolled
// to keep the selected event visible.
func (m Model) View() string {
	st := m.Styles
	recs := m.records[m.run]
	readmitted := 0
	for _, r := range recs {
		if r.Readmitted {
			readmitted++
		}
	}
	title := "PRESSURE"
	if m.label != "" {
		title += " (" + m.label + ")"
	}
	note := ""
	if m.run != "" {
		note = fmt.Sprintf("%s · %d readmitted", text.Plural(len(recs), "event"), readmitted)
		if _, ended := m.spans[m.run]; !ended && len(recs) > 0 {
			note = "⟳ " + note // live, so far: the run's evidence has not arrived yet
		}
	}
	lines := []string{""} // the title, once what the list hides is known
	if why, ok := m.unrecorded[m.run]; ok && len(recs) == 0 {
		// Zero would be a count the report never made.
		lines[0] = m.Title(title, "not recorded")
		lines = append(lines, st.Faint.Render("  pressure not recorded: "+why))
		return text.Fit(lines, m.Width, m.Height)
	}
	if len(recs) == 0 {
		lines[0] = m.Title(title, note)
		lines = append(lines, st.Faint.Render("  no pressure events for the selected run"))
		return text.Fit(lines, m.Width, m.Height)
	}
	lines = append(lines, " "+m.timeline(recs, max(m.Width-10, 8))+st.Faint.Render(" vt"))
	body := m.Height - len(lines)
	detail := m.Focused() && body >= 3 && m.cursor < len(recs)
	if detail {
		body-- // the selected event's details take the last line
	}
	first := 0
	if m.cursor >= body {
		first = m.cursor - body + 1
	}
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.RequestUUID
	}
	short := diffview.ShortIDs(ids, 4) // zero-padded uuids differ only at the end: "…007d"
	// The events off the list are counted in the title, with the key that shows them.
	// First, so a narrow title never cuts it.
	if hidden := len(recs) - min(body, len(recs)); hidden > 0 && body >= 0 {
		note = st.Warn.Render(fmt.Sprintf("+%d more (%s zooms)", hidden, m.keys.Zoom.Help().Key)) + st.Faint.Render(" · ") + note
	}
	lines[0] = m.Title(title, note)
	for i := first; i < len(recs) && i < first+body; i++ {
		line := " " + recordLine(recs[i], short[recs[i].RequestUUID])
		if i == m.cursor && m.Focused() {
			line = st.Selected.Render(text.Pad(text.Trunc(line, m.Width), m.Width))
		}
		lines = append(lines, line)
	}
	if detail {
		for len(lines) < m.Height-1 {
			lines = append(lines, "")
		}
		lines = append(lines, " "+st.Faint.Render(detailLine(recs[m.cursor])))
	}
	return text.Fit(lines, m.Width, m.Height)
}

// detailLine is what the list line leaves out about the selected event.
func detailLine(r report.PressureRecord) string {
	s := fmt.Sprintf("#%d: dp %d · %d running before · %d active blocks · request %s", r.Ordinal, r.DPRank,
		r.RunningBefore, r.ActiveBlocks, r.RequestUUID)
	if r.Readmitted {
		s += fmt.Sprintf(" · readmitted after %.1f s", (r.ReadmittedAt-r.AtMs)/1000)
	}
	return s
}

// timeline bins the records over the run's virtual time (or up to the last record while the
// run is live) into width buckets.
func (m Model) timeline(recs []report.PressureRecord, width int) string {
	sp, ok := m.spans[m.run]
	if !ok {
		for _, r := range recs {
			sp.end = max(sp.end, r.AtMs)
		}
	}
	bins := make([]int, width)
	length := sp.end - sp.start
	for _, r := range recs {
		i := 0
		if length > 0 {
			i = int(float64(width) * (r.AtMs - sp.start) / length)
		}
		bins[min(max(i, 0), width-1)]++
	}
	return m.Styles.Accent.Render(text.Spark(bins))
}

// recordLine is one pressure event: ordinal, kind, pool/worker, request (by the part of its id
// that tells it apart), virtual time and readmission, most telling first so a narrow pane cuts
// the least useful part.
func recordLine(r report.PressureRecord, req string) string {
	re := "not readmitted"
	if r.Readmitted {
		re = "readmitted " + text.VirtualTime(r.ReadmittedAt)
	}
	return fmt.Sprintf("#%-3d %-10s %s/w%d  req %s  t %-7s %s", r.Ordinal, kindWord(r.Kind), r.Pool, r.WorkerID,
		req, text.VirtualTime(r.AtMs), re)
}

// kindWord is the record kind without its engine prefix (the engine is in the lifecycle pane).
func kindWord(kind string) string {
	switch kind {
	case "vllm_preemption":
		return "preemption"
	case "sglang_retraction":
		return "retraction"
	}
	return kind
}

// ShortHelp is the pane's own bindings (help.KeyMap), shown while it has focus.
func (m Model) ShortHelp() []key.Binding { return []key.Binding{m.keys.Up, m.keys.Down} }

// FullHelp is the pane's bindings for the ? overlay (help.KeyMap).
func (m Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{m.keys.Up, m.keys.Down, m.keys.Top, m.keys.End}}
}
