package ui

import (
	"fmt"
	"strings"

	"kvparity/engine"
	"kvparity/ui/keys"
	"kvparity/ui/text"
)

// status is the line under the artifacts: where the user looks for what just happened. It
// always shows the newest message, news or problem (problems in the alarm style), until esc
// clears it or a newer one replaces it; every message is also in the log. The one exception is
// news arriving with a problem in the same batch of events ("stage finished" right after its
// FAIL verdict): the problem stays and the news goes to the log.
type status struct {
	text    string
	problem bool
}

func news(s string) status    { return status{text: s} }
func problem(s string) status { return status{text: s, problem: true} }

// say shows news and logs it.
func (m *Model) say(s string) {
	m.logp.Note(s)
	if !(m.status.problem && m.batchProblem) {
		m.status = news(s)
	}
}

// alarm shows a problem in words and logs it.
func (m *Model) alarm(s string) {
	m.logp.Note(s)
	m.status = problem(s)
	m.batchProblem = true
}

// statusText is the status line's words: a blocked row, stale artifacts (which stay on screen
// for as long as they are stale) and the newest message.
func (m Model) statusText() (string, bool) {
	// The newest message first: the marks that stay (blocked, stale) follow it, so the message
	// is never the part cut.
	var parts []string
	if m.status.text != "" {
		parts = append(parts, m.status.text)
	}
	if m.following != "" {
		parts = append(parts, m.following) // before the other marks: it says why keys are refused
	}
	if m.unwritable != "" {
		parts = append(parts, "READ-ONLY: "+m.unwritable+"; its history is shown, nothing is written there")
	}
	if m.blocked != "" && !(m.status.problem && strings.Contains(m.status.text, m.blocked)) {
		parts = append(parts, "BLOCKED: "+m.blocked)
	}
	for _, a := range m.arts.Stale() {
		parts = append(parts, "STALE: "+string(a)+" binary changed after pinning ("+keys.Name(m.keys.Watch)+" re-pins and reruns)")
	}
	if m.rowChanged {
		parts = append(parts, "STALE: the row file changed; this campaign keeps its frozen row.toml")
	}
	line := " " + strings.Join(parts, " │ ")
	// The hint only where it does not cost a second line.
	if hint := "  (" + keys.Name(m.keys.Dismiss) + " clears)"; m.status.problem && (text.Width(line+hint) <= m.width || text.Width(line) > m.width) {
		line += hint
	}
	bad := m.status.problem || m.blocked != "" || len(m.arts.Stale()) > 0 || m.rowChanged
	return line, bad
}

// statusRows is how many lines the status line takes: two when its words do not fit in one,
// so a long message (a report's full path) is never cut.
func (m Model) statusRows() int {
	if m.overlay == overlayConfirmQuit || m.closing || m.width <= 0 {
		return 1
	}
	line, _ := m.statusText()
	if text.Width(line) > m.width {
		return 2
	}
	return 1
}

// statusLine renders the status line: the quit question, closing, or statusText wrapped
// into statusRows lines.
func (m Model) statusLine() string {
	st := m.styles
	switch {
	case m.overlay == overlayConfirmQuit:
		return st.Banner.Render(text.Fit([]string{fmt.Sprintf(" A stage is running. Quit and stop its replay processes? %s quit · %s stay", keys.Name(m.keys.Yes), keys.Name(m.keys.No))}, m.width, 1))
	case m.closing:
		return st.BannerInfo.Render(text.Fit([]string{" stopping replay processes and closing the campaign…"}, m.width, 1))
	}
	line, bad := m.statusText()
	style := st.BannerInfo
	if bad {
		style = st.Banner
	}
	rows := text.Wrap(line, m.width, m.statusRows(), "   ")
	for i := range rows {
		rows[i] = style.Render(text.Pad(rows[i], m.width))
	}
	return strings.Join(rows, "\n")
}

// verdictNews words a stage verdict for the status line; failing ones are problems.
func verdictNews(v engine.StageVerdict) (string, bool) {
	who := string(v.Stage)
	if v.Arm != "" {
		who += " " + string(v.Arm)
	}
	s := who + ": " + v.Verdict.String()
	if v.Reason != "" {
		s += " (" + v.Reason + ")"
	}
	return s, !v.Verdict.Passes()
}
