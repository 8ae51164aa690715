package ui

import (
	"strings"

	"kvparity/engine"
	"kvparity/ui/text"
)

// status is the line under the artifacts: where the user looks for what just happened. A
// problem (replay error, blocked row, failing verdict) stays until a newer problem replaces it,
// the user dismisses it (esc) or starts a stage again; news shows only while no problem does.
type status struct {
	text    string
	problem bool
}

func news(s string) status    { return status{text: s} }
func problem(s string) status { return status{text: s, problem: true} }

// say shows news unless a problem is on screen, and logs it.
func (m *Model) say(s string) {
	m.logp.Note(s)
	if !m.status.problem {
		m.status = news(s)
	}
}

// alarm shows a problem in words and logs it.
func (m *Model) alarm(s string) {
	m.logp.Note(s)
	m.status = problem(s)
}

// statusLine renders the status line: the quit question, a blocked row, the current problem or
// news, and stale artifacts, which stay on screen for as long as they are stale.
func (m Model) statusLine() string {
	st := m.styles
	var parts []string
	switch {
	case m.overlay == overlayConfirmQuit:
		return st.Banner.Render(text.Fit([]string{" A stage is running. Quit and stop its replay processes? y quit · n stay"}, m.width, 1))
	case m.closing:
		return st.BannerInfo.Render(text.Fit([]string{" stopping replay processes and closing the campaign…"}, m.width, 1))
	}
	if m.blocked != "" && !(m.status.problem && strings.Contains(m.status.text, m.blocked)) {
		parts = append(parts, "BLOCKED: "+m.blocked)
	}
	for _, a := range m.arts.Stale() {
		parts = append(parts, "STALE: "+string(a)+" binary changed after pinning (w re-pins and reruns)")
	}
	if m.rowChanged {
		parts = append(parts, "STALE: the row file changed; this campaign keeps its frozen row.toml")
	}
	if m.status.text != "" {
		parts = append(parts, m.status.text)
	}
	line := " " + strings.Join(parts, " │ ")
	bad := m.status.problem || m.blocked != "" || len(m.arts.Stale()) > 0 || m.rowChanged
	if m.status.problem {
		line += "  (esc dismisses)"
	}
	style := st.BannerInfo
	if bad {
		style = st.Banner
	}
	return style.Render(text.Pad(text.Trunc(line, m.width), m.width))
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
