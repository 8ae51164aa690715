// Package artifacts is the pane that shows both arms' pinned artifacts: revision, SHA-256,
// size, .text size and its growth, the watch state and stale marks. It imports engine for the
// artifacts and ui/* (pane, text, theme) for its box, text and palette.
package artifacts

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/pane"
	"kvparity/ui/text"
	"kvparity/ui/theme"
)

// Model is the artifacts pane.
type Model struct {
	pane.Base
	arts      map[engine.Arm]engine.ArtifactInfo
	watching  bool
	footprint engine.StageVerdict // the footprint verdict once the engine computed it
	changed   map[engine.Arm]engine.ArtifactChanged
}

// New builds the pane from the campaign's pinned artifacts.
func New(st theme.Styles, arts map[engine.Arm]engine.ArtifactInfo) Model {
	m := Model{arts: map[engine.Arm]engine.ArtifactInfo{}, changed: map[engine.Arm]engine.ArtifactChanged{}}
	for k, v := range arts {
		m.arts[k] = v
	}
	m.SetStyles(st)
	return m
}

// SetArtifacts replaces the pinned artifacts (after a re-pin the root re-reads Info).
func (m *Model) SetArtifacts(arts map[engine.Arm]engine.ArtifactInfo) {
	m.arts = map[engine.Arm]engine.ArtifactInfo{}
	for k, v := range arts {
		m.arts[k] = v
	}
	// An arm whose pinned copy now is the changed source was re-pinned: it is no longer stale.
	for arm, a := range m.arts {
		if c, ok := m.changed[arm]; ok && !a.Stale && c.NewSHA256 == a.SHA256 {
			c.Repinned = true
			m.changed[arm] = c
		}
	}
}

// SetWatching records whether watch mode is on.
func (m *Model) SetWatching(on bool) { m.watching = on }

// Stale reports the arms whose source changed after pinning and were not re-pinned.
func (m Model) Stale() []engine.Arm {
	var out []engine.Arm
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		if m.arts[arm].Stale {
			out = append(out, arm)
			continue
		}
		if c, ok := m.changed[arm]; ok && !c.Repinned {
			out = append(out, arm)
		}
	}
	return out
}

// WatchNews says what watch mode follows: the candidate's checkout when it was built from one
// (a save or a commit rebuilds it), else the arms' binaries.
func (m Model) WatchNews() string {
	if b := m.arts[engine.Candidate].Build; b != nil && b.FromCheckout() {
		what := "a new commit"
		if b.SnapshotSHA256 != "" {
			what = "a saved file"
		}
		return fmt.Sprintf("watching the candidate's checkout: %s rebuilds it, re-pins it and reruns the determinism stage (the baseline stays)", what)
	}
	return "watching both arms' binaries: a rebuilt one is re-pinned and rerun"
}

// Update takes ArtifactChanged and the footprint verdict.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch ev := msg.(type) {
	case engine.ArtifactChanged:
		if ev.Arm != "" {
			m.changed[ev.Arm] = ev
			if a, ok := m.arts[ev.Arm]; ok && !ev.Repinned {
				a.Stale = true
				m.arts[ev.Arm] = a
			}
		}
	case engine.StageVerdict:
		if ev.Stage == engine.StageFootprint {
			m.footprint = ev
		}
	}
	return m, nil
}

// View renders one line per arm (two lines), or both arms compactly on one line when the box
// has one. The watch state, the footprint verdict, the revision with its variant and the .text
// growth never fall off: details (size, digest) are dropped first when the line is too long.
func (m Model) View() string {
	base, cand := m.arts[engine.Baseline], m.arts[engine.Candidate]
	title := m.Title("ARTIFACTS", "")
	watch, foot := m.badges()
	if m.Height < 2 {
		return text.Fit([]string{m.compactLine()}, m.Width, 1)
	}
	indent := " " + strings.Repeat(" ", text.Width("ARTIFACTS")) + "  "
	room := m.Width - text.Width(indent)
	lines := []string{
		title + "  " + m.armLine(base, engine.ArtifactInfo{}, room-text.Width(watch)-2) + "  " + watch,
		indent + m.armLine(cand, base, room-text.Width(foot)-2) + "  " + foot,
	}
	return text.Fit(lines, m.Width, m.Height)
}

// badges are the watch state and, once judged, the footprint verdict.
func (m Model) badges() (watch, foot string) {
	st := m.Styles
	watch = st.Faint.Render("○ watch off")
	if m.watching {
		watch = st.Running.Render("● watching")
	}
	if m.footprint.Verdict != "" {
		foot = "footprint " + st.Verdict(m.footprint.Verdict) + " "
	}
	return watch, foot
}

// compactLine is both arms on one line.
func (m Model) compactLine() string {
	st := m.Styles
	base, cand := m.arts[engine.Baseline], m.arts[engine.Candidate]
	watch, foot := m.badges()
	return m.Title("ARTIFACTS", "") + " " + watch + " " + foot + m.compact(base, engine.ArtifactInfo{}) +
		st.Faint.Render(" │ ") + m.compact(cand, base)
}

// OneLineFits reports whether both arms fit on one line of width w: when they do not (a long
// variant name), the workbench gives the pane two lines rather than cut the name.
func (m Model) OneLineFits(w int) bool { return text.Width(m.compactLine()) <= w }

// armLine renders one arm within w cells; against a non-empty baseline it adds size and .text
// growth. The digest and sizes go first when the line is too long; the name never does.
func (m Model) armLine(a, base engine.ArtifactInfo, w int) string {
	st := m.Styles
	if a.Arm == "" {
		return st.Faint.Render("(not pinned)")
	}
	name := st.Bold.Render(fmt.Sprintf("%-9s", a.Arm)) + " " + revision(a)
	sha := "sha256 " + st.Accent.Render(text.Short(a.SHA256, 8))
	size := text.Bytes(a.Size)
	var textSize, growth string
	if a.TextSize > 0 {
		textSize = ".text " + text.Bytes(a.TextSize)
		if base.TextSize > 0 {
			growth = m.growth(base.TextSize, a.TextSize)
		}
	} else if base.Size > 0 {
		growth = "size " + m.growth(base.Size, a.Size)
	}
	stale := ""
	if s := m.isStale(a.Arm); s != "" {
		stale = st.Warn.Render(s)
	}
	join := func(parts ...string) string {
		var keep []string
		for _, p := range parts {
			if p != "" {
				keep = append(keep, p)
			}
		}
		return strings.Join(keep, "  ")
	}
	tsize := strings.TrimSpace(textSize + " " + growth)
	for _, line := range []string{
		join(name, sha, size, tsize, stale),
		join(name, sha, tsize, stale),
		join(name, tsize, stale),
		join(name, growth, stale),
	} {
		if text.Width(line) <= w {
			return line
		}
	}
	return join(name, growth, stale)
}

// compact is armLine for the one-line layout: short name, revision and variant, stale mark,
// growth.
func (m Model) compact(a, base engine.ArtifactInfo) string {
	st := m.Styles
	if a.Arm == "" {
		return st.Faint.Render("(not pinned)")
	}
	name := "base"
	if a.Arm == engine.Candidate {
		name = "cand"
	}
	rev := shortRevision(a.Revision, 7)
	if a.Variant != "" {
		rev += "/" + a.Variant // a variant names the code revision: whole, always
	}
	line := st.Bold.Render(name) + " " + rev
	if stale := m.isStale(a.Arm); stale != "" {
		line += " " + st.Warn.Render(stale)
	}
	switch {
	case base.TextSize > 0 && a.TextSize > 0:
		line += " .text " + m.growth(base.TextSize, a.TextSize)
	case base.Size > 0:
		line += " size " + m.growth(base.Size, a.Size)
	}
	return line
}

// revision is the arm's revision (a commit is shortened to 16 digits) and its variant, whole.
func revision(a engine.ArtifactInfo) string {
	r := shortRevision(a.Revision, 16)
	if a.Variant != "" {
		return r + "/" + a.Variant
	}
	return r
}

// shortRevision fits a revision in n cells without hiding what tells arms apart: a commit SHA
// keeps its head, a published version (name@version) is whole, or its version alone when the
// name does not fit.
func shortRevision(rev string, n int) string {
	if _, version, ok := strings.Cut(rev, "@"); ok {
		if len(rev) <= n+2 {
			return rev
		}
		return version
	}
	return text.Short(rev, n)
}

// growth styles a relative size change: above the protocol's 5% footprint limit it is bad.
func (m Model) growth(old, new int64) string {
	g := text.Growth(old, new)
	if old > 0 && float64(new) > float64(old)*1.05 {
		return m.Styles.Bad.Render(g)
	}
	return g
}

func (m Model) isStale(arm engine.Arm) string {
	c, changed := m.changed[arm]
	switch {
	case changed && c.Repinned:
		return "re-pinned " + text.Short(c.NewSHA256, 8)
	case changed || m.arts[arm].Stale:
		return "STALE (source changed after pinning)"
	}
	return ""
}
