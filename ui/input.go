package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/keys"
	"kvparity/ui/pane"
	"kvparity/verdict"
)

// onKey routes a key: an overlay first, then a pane's text field (which takes every key but
// ctrl+c: the globals are suspended while it has focus, and the footer says so), then the
// global bindings, which mean the same thing whatever has focus, then the focused pane.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	m.next = "" // the next step's hint has been read once a key is pressed
	switch m.overlay {
	case overlayConfirmQuit:
		switch {
		case key.Matches(k, m.keys.Yes):
			m.overlay = overlayNone
			return m.quit()
		case key.Matches(k, m.keys.No):
			m.overlay = overlayNone
		}
		return nil
	case overlayConfirmStop:
		switch {
		case key.Matches(k, m.keys.Yes):
			m.overlay = overlayNone
			return m.stopStage()
		case key.Matches(k, m.keys.No):
			m.overlay = overlayNone
			m.say(m.stageName() + " keeps running")
		}
		return nil
	case overlayHelp, overlayVerdicts:
		if key.Matches(k, m.keys.Close) || (m.overlay == overlayVerdicts && key.Matches(k, m.keys.Verdicts)) {
			m.overlay = overlayNone
			return nil
		}
		m.overlayKey(k)
		return nil
	}
	if m.closing {
		return nil
	}
	// ctrl+c always reaches the workbench, even from a text field: quitting must never be trapped.
	c, captures := pane.As[pane.Capturer](m.focused())
	if captures && c.Capturing() && !key.Matches(k, m.keys.Interrupt) {
		return m.paneKey(k)
	}
	// esc backs out of the newest thing: a pane's own (the diff pane's record list) first, then
	// the message on the status line, then the pane's filter.
	if key.Matches(k, m.keys.Dismiss) {
		switch {
		case captures && c.Modal():
			return m.paneKey(k)
		case m.status.text != "":
			m.status = status{}
			return nil
		}
		return m.paneKey(k)
	}
	if cmd, ok := m.globalKey(k); ok {
		return cmd
	}
	return m.paneKey(k)
}

// globalKey handles the workbench-wide bindings; ok is false when k is not one of them.
func (m *Model) globalKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	km := m.keys
	switch {
	case key.Matches(k, km.Quit):
		if m.stageRunning && m.following == "" { // a follower's quit stops none of the writer's replays
			m.overlay = overlayConfirmQuit
			return nil, true
		}
		// The events may lag behind the engine: ask it (off the update loop) before quitting.
		ctl := m.ctl
		return func() tea.Msg { return quitCheckedMsg{running: ctl.Running()} }, true
	case key.Matches(k, km.Help):
		m.openOverlay(overlayHelp)
	case key.Matches(k, km.Verdicts):
		m.openOverlay(overlayVerdicts)
	case key.Matches(k, km.NextPane):
		m.setFocus((m.focus + 1) % paneID(len(m.ring)))
		m.layout() // collapsed layouts show the focused pane
	case key.Matches(k, km.PrevPane):
		m.setFocus((m.focus + paneID(len(m.ring)) - 1) % paneID(len(m.ring)))
		m.layout()
	case key.Matches(k, km.Zoom):
		m.zoomed = !m.zoomed
		m.layout()
		if m.zoomed {
			m.say(fmt.Sprintf("%s zoomed to the whole screen: %s returns to every pane", m.ring[m.focus].title, keys.Name(km.Zoom)))
		} else {
			m.say("every pane back on screen")
		}
	case key.Matches(k, km.StartDeterminism):
		m.say("starting the determinism stage…")
		return act("start determinism", m.ctl.StartDeterminism), true
	case key.Matches(k, km.StartPerf):
		m.say("starting the performance stage…")
		return act("start performance", m.ctl.StartPerf), true
	case key.Matches(k, km.Investigate):
		var v verdict.Verdicts // not assessed yet: UNDECIDED
		if hv := m.header.Verdicts(); hv != nil {
			v = *hv
		}
		equivalence, ok := v.EquivalentWork()
		if !ok {
			m.say(fmt.Sprintf("not profiled: the semantic verdict is %s; stage 7 compares equivalent semantic work only (PASS, or every difference explained by an exception record)", v.Semantic.Verdict))
			return nil, true
		}
		m.say("profiling both arms under perf, one at a time on the measured CPU…")
		return act("investigate", func() error { return m.ctl.StartInvestigation(equivalence) }), true
	case key.Matches(k, km.StopStage):
		if m.following != "" {
			// The engine's StopStage stops this process's stage: a follower runs none.
			m.alarm("stop stage refused: " + m.followedStages())
			return nil, true
		}
		if m.stageRunning {
			m.overlay = overlayConfirmStop // minutes of replays are not lost to one key: y stops
			return nil, true
		}
		m.say("no stage is running")
		ctl := m.ctl // the events may lag behind the engine: it stops whatever it runs
		return act("stop stage", func() error { ctl.StopStage(); return nil }), true
	case key.Matches(k, km.Rerun):
		r, ok := m.det.Selected()
		if !ok {
			m.say("no repetition to rerun yet: start the determinism stage with " + keys.Name(km.StartDeterminism))
			return nil, true
		}
		ctl, run := m.ctl, r.Run
		return act("rerun "+m.selectedLabel(), func() error { return ctl.RerunRepetition(run) }), true
	case key.Matches(k, km.AddRepetition):
		return m.addRepetition(), true
	case key.Matches(k, km.Watch):
		ctl, on := m.ctl, !m.watching
		return actWatch(ctl, on), true
	case key.Matches(k, km.SaveReport):
		if m.unwritable != "" {
			m.alarm("save report refused: " + m.unwritable)
			return nil, true
		}
		return m.saveReport(), true
	case key.Matches(k, km.OpenReport):
		return m.openReport(), true
	case key.Matches(k, km.Diff):
		return m.openDiff(), true
	case key.Matches(k, km.Exception):
		if m.unwritable != "" {
			// The records' own save says so too (for the diff pane's other keys that write them).
			m.alarm("exception record refused: " + m.unwritable)
			return nil, true
		}
		m.setFocus(focusDiff)
		m.layout()
		return m.paneKey(k), true
	default:
		return nil, false
	}
	return nil, true
}

// stopStage stops the running stage (x, then y).
func (m *Model) stopStage() tea.Cmd {
	m.stopping = true
	m.say("stopping the " + m.stageName() + "; its replay processes are killed…")
	ctl := m.ctl
	return act("stop stage", func() error { ctl.StopStage(); return nil })
}

// addRepetition adds one to the selected repetition's arm, unless that arm is UNSTABLE: the
// protocol says to stop and diagnose an unstable revision, never to average it away.
func (m *Model) addRepetition() tea.Cmd {
	arm := engine.Candidate
	if r, ok := m.det.Selected(); ok {
		arm = r.Arm
	}
	if m.armUnstable(arm) {
		m.alarm(fmt.Sprintf("add repetition refused: %s is UNSTABLE · never add repetitions to average an entropy "+
			"leak away: stop and diagnose it (%s shows the diff)", arm, keys.Name(m.keys.Diff)))
		return nil
	}
	ctl := m.ctl
	m.say("adding a " + string(arm) + " repetition…")
	return act("add a "+string(arm)+" repetition", func() error { return ctl.AddRepetition(arm) })
}

// armUnstable says whether an arm is UNSTABLE: by the determinism stage's verdict in this
// session, or by the campaign's assessed verdicts (a reopened campaign's history).
func (m Model) armUnstable(arm engine.Arm) bool {
	if m.det.Verdict(arm).Verdict == verdict.Unstable {
		return true
	}
	if v := m.header.Verdicts(); v != nil {
		o := v.Determinism.Baseline
		if arm == engine.Candidate {
			o = v.Determinism.Candidate
		}
		return o.Verdict == verdict.Unstable
	}
	return false
}

// paneKey hands a key to the focused pane and follows a change of selected run.
func (m *Model) paneKey(k tea.KeyPressMsg) tea.Cmd {
	cmd := m.focused().Update(k)
	m.syncSelection()
	return cmd
}
