package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"

	"kvparity/engine"
	"kvparity/ui/keys"
	"kvparity/ui/pane"
	"kvparity/ui/text"
)

// footer renders the short help from the bindings: as many as fit, always ending in help and
// quit so the rest can be found.
func (m *Model) footer() string {
	st := m.styles
	switch m.overlay {
	case overlayConfirmQuit:
		return st.Footer.Render(text.Fit([]string{fmt.Sprintf(" %s quit (stops replays) · %s stay", keys.Name(m.keys.Yes), keys.Name(m.keys.No))}, m.width, 1))
	case overlayConfirmStop:
		return st.Banner.Render(text.Fit([]string{fmt.Sprintf(" stop the %s? %s/%s · %s kills its replays, %s keeps it running",
			m.stageName(), keys.Name(m.keys.Yes), keys.Name(m.keys.No), keys.Name(m.keys.Yes), keys.Name(m.keys.No))}, m.width, 1))
	case overlayHelp, overlayVerdicts:
		return st.Footer.Render(text.Pad(text.Trunc(m.bindingLine([]key.Binding{m.keys.Scroll, m.keys.Close}), m.width), m.width))
	}
	// Bindings that depend on state are switched on a copy, so the footer shows what applies
	// now (x while a stage runs, g and p while none does) and the ? overlay still lists all.
	// A follower (another kvparity writes the campaign, or wrote it until it ended) runs no
	// stage: the engine refuses the stage keys, rerun, add repetition and watch, and x has
	// nothing of its own to stop, so none of them is offered. Nor are they on a campaign
	// whose folder nobody can write, where exception records and the report are refused too.
	km := m.keys
	writer := m.following == "" && m.unwritable == ""
	km.Exception.SetEnabled(m.unwritable == "")
	km.SaveReport.SetEnabled(m.unwritable == "")
	km.StopStage.SetEnabled(writer && m.stageRunning)
	km.StartDeterminism.SetEnabled(writer && !m.stageRunning)
	km.StartPerf.SetEnabled(writer && !m.stageRunning)
	for _, b := range []*key.Binding{&km.Rerun, &km.AddRepetition, &km.Watch} {
		b.SetEnabled(writer)
	}
	all := km.ShortHelp()
	tail := all[len(all)-2:]
	focused := m.focused()
	if c, ok := pane.As[pane.Capturer](focused); ok && c.Capturing() {
		// A text field takes every key, tab and q included: only the form's keys apply, and
		// the footer says the workbench's wait.
		line := m.bindingLine(focused.ShortHelp()) + st.Footer.Render(" │ typing: workbench keys wait ("+keys.Name(m.keys.Interrupt)+" quits)")
		return st.Footer.Render(text.Pad(text.Trunc(line, m.width), m.width))
	}
	if m.next != "" {
		// What to do after the stage that ended leads, until a key is pressed.
		line := st.FooterKey.Render(" " + m.next)
		if t := m.bindingLine(tail); text.Width(line)+text.Width(t)+1 <= m.width {
			line += st.Footer.Render(" │") + t
		}
		return st.Footer.Render(text.Pad(text.Trunc(line, m.width), m.width))
	}
	if f, ok := pane.As[pane.Footer](focused); ok {
		// The pane's own keys first (none of them is a workbench key), then the workbench's:
		// only the stage keys, zoom and tab when the pane's crowd them out.
		lead, crowded := f.FooterKeys()
		rest := all[:len(all)-2]
		if crowded {
			rest = []key.Binding{km.StopStage, km.StartDeterminism, km.Zoom, km.NextPane}
		}
		all = append(append(lead, rest...), tail...)
	}
	sep := st.Footer.Render(" · ")
	item := func(b key.Binding) string {
		h := b.Help()
		return st.FooterKey.Render(h.Key) + st.Footer.Render(" "+h.Desc)
	}
	tailStr := ""
	for _, b := range tail {
		tailStr += sep + item(b)
	}
	line := st.Footer.Render(" ")
	first := true
	for _, b := range all[:len(all)-2] {
		if !b.Enabled() {
			continue
		}
		next := item(b)
		if !first {
			next = sep + next
		}
		if text.Width(line)+text.Width(next)+text.Width(tailStr) > m.width {
			break
		}
		line += next
		first = false
	}
	line += tailStr
	return st.Footer.Render(text.Pad(text.Trunc(line, m.width), m.width))
}

// bindingLine renders bindings as "key desc · key desc".
func (m Model) bindingLine(bs []key.Binding) string {
	st := m.styles
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		h := b.Help()
		parts = append(parts, st.FooterKey.Render(h.Key)+st.Footer.Render(" "+h.Desc))
	}
	return st.Footer.Render(" ") + strings.Join(parts, st.Footer.Render(" · "))
}

// stageName is the running stage in words ("the determinism stage" without the article).
func (m Model) stageName() string {
	switch m.running {
	case engine.StagePerf:
		return "performance stage"
	case "":
		return "running stage"
	}
	return string(m.running) + " stage"
}

// followStage keeps what x's question and the next step's hint need: the running stage, its
// parity, and after it ends what to do next (never on a follower: its stages are another's).
func (m *Model) followStage(ev any) {
	km := m.keys
	switch ev := ev.(type) {
	case engine.StageStarted:
		m.running, m.next = ev.Stage, ""
		if ev.Stage == engine.StageDeterminism {
			m.parityFailed = false
		}
	case engine.StageVerdict:
		if ev.Stage == engine.StageParity {
			m.parityFailed = !ev.Verdict.Passes()
		}
	case engine.StageStopped:
		if m.overlay == overlayConfirmStop {
			m.overlay = overlayNone // nothing left to stop
		}
		m.running = ev.Stage
		name, resume := m.stageName(), keys.Name(km.StartDeterminism)
		m.running = ""
		if ev.Stage == engine.StagePerf {
			resume = keys.Name(km.StartPerf)
		}
		done := strings.TrimSuffix(name, " stage") + " done"
		switch {
		case m.following != "" || ev.WriterGone:
			m.next = ""
		case ev.Cancelled && m.stopping:
			m.next = fmt.Sprintf("%s stopped: %s resumes it", name, resume)
		case ev.Cancelled:
			m.next = fmt.Sprintf("%s stopped: %s says why, %s resumes it", name, keys.Name(km.Verdicts), resume)
		case ev.Stage == engine.StageDeterminism && (m.armUnstable(engine.Baseline) || m.armUnstable(engine.Candidate)):
			m.next = fmt.Sprintf("%s, an arm UNSTABLE: %s shows the diff, %s every reason", done, keys.Name(km.Diff), keys.Name(km.Verdicts))
		case ev.Stage == engine.StageDeterminism && m.parityFailed:
			m.next = fmt.Sprintf("%s, parity FAIL: %s shows the diff, %s records an exception", done, keys.Name(km.Diff), keys.Name(km.Exception))
		case ev.Stage == engine.StageDeterminism:
			m.next = fmt.Sprintf("%s: %s runs the performance stage, %s shows the diff", done, keys.Name(km.StartPerf), keys.Name(km.Diff))
		default:
			m.next = fmt.Sprintf("%s: %s saves the report, %s opens it, %s every verdict", done, keys.Name(km.SaveReport),
				keys.Name(km.OpenReport), keys.Name(km.Verdicts))
		}
	}
}
