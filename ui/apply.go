package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/determinism"
	"kvparity/ui/keys"
	"kvparity/ui/pane"
	"kvparity/verdict"
)

// apply hands one engine event to every pane (each takes what is its own, whatever has focus),
// then words the ones the user must not miss on the status line. It returns the panes'
// commands and the root's own (fresh info after a re-pin, opening the diff).
func (m *Model) apply(ev engine.Event) tea.Cmd {
	cmds := []tea.Cmd{pane.Update(&m.header, ev), pane.Update(&m.arts, ev)}
	for _, p := range m.panes() {
		cmds = append(cmds, p.Update(ev))
	}
	km := m.keys
	switch ev := ev.(type) {
	case engine.RunStarted:
		// A run start clears the campaign's recorded blocks (the journal's fold): reassess so
		// the header stops showing a block the resumed stage has retried.
		if v := m.header.Verdicts(); v != nil && len(v.Blocked) > 0 {
			m.stale = true
		}
	case engine.RunFinished:
		switch {
		case m.stopping && (ev.Err != nil || ev.Signal != ""):
			m.det.MarkStoppedByUser(ev.Run)
			m.say(fmt.Sprintf("%s stopped by you (%s): its replay process was killed", ev.Run, keys.Name(km.StopStage)))
		case ev.Err != nil:
			m.alarm(fmt.Sprintf("replay error in %s: %v", ev.Run, ev.Err))
		case ev.TimedOut:
			m.alarm(fmt.Sprintf("%s timed out and was killed", ev.Run))
		}
	case engine.PreflightDone:
		p := ev.Preflight
		note := "preflight " + string(p.Arm) + ": done"
		if m.words != nil {
			note = "preflight " + string(p.Arm) + ": " + m.words(p)
		}
		if p.Error == "" && p.SingleCore {
			m.logp.Note(note)
		} else {
			m.say(note) // the repetitions' placement changes, or the probe failed
		}
	case engine.InvestigationDone:
		inv := ev.Investigation
		for _, f := range inv.Differential.Top(5) {
			m.logp.Note(fmt.Sprintf("profile: %+.2f%% self time %s (baseline %.2f%%, candidate %.2f%%)", 100*f.Delta, f.Function, 100*f.Baseline, 100*f.Candidate))
		}
		if top := inv.Differential.Top(1); len(top) > 0 {
			m.say(fmt.Sprintf("profiled both arms: the largest self-time growth is %s (%+.2f%%); kept in %s, in the report's profiler findings on %s",
				top[0].Function, 100*top[0].Delta, engine.FileInvestigation, keys.Name(km.SaveReport)))
		}
	case engine.StageVerdict:
		if ev.Stage == engine.StageDeterminism && ev.Arm != "" {
			m.diff.SetUnstable(m.det.Verdict(engine.Baseline).Verdict == verdict.Unstable ||
				m.det.Verdict(engine.Candidate).Verdict == verdict.Unstable)
		}
		if ev.Stage == engine.StageParity {
			m.diff.SetParity(ev.Verdict)
		}
		cmds = append(cmds, m.focusDisagreement(ev))
		m.stale = true
		if s, bad := verdictNews(ev); bad {
			m.alarm(s)
		} else {
			m.say(s)
		}
	case engine.SampleInvalidated:
		m.say(fmt.Sprintf("pair %d invalidated (%s): both members rerun in the same order", ev.Pair, ev.Reason))
	case engine.ArtifactChanged:
		if ev.Arm != "" {
			m.diff.Supersede(ev.Arm, ev.OldGen, ev.NewGen, ev.Repinned)
		}
		cmds = append(cmds, m.onArtifactChanged(ev))
	case engine.BuildProgress:
		m.onRebuild(ev)
	case engine.RowBlocked:
		m.blocked = fmt.Sprintf("%s stage: %s", ev.Stage, ev.Reason)
		m.alarm("row BLOCKED at the " + m.blocked)
		m.stale = true
	case engine.StageStarted:
		m.stageRunning, m.stopping = true, false
		m.header.SetRunning(ev.Stage)
		m.stale = true
		m.blocked = ""
		m.status = news("")
		m.say(string(ev.Stage) + " stage started")
	case engine.FollowedWriter:
		m.stale = true
		m.followed, m.followEnded = ev.Holder.PID, ev.Ended
		if ev.Ended {
			m.following = fmt.Sprintf("READ-ONLY: the kvparity it followed (pid %d) has ended; quit and open the campaign again to run stages here", ev.Holder.PID)
			m.say(writerEndedNews(ev))
			for _, r := range ev.Unfinished {
				m.logp.Note(unfinishedRunNote(r))
			}
		} else {
			// The mark stays on screen, so it is short; the log line below names the command.
			m.following = fmt.Sprintf("READ-ONLY: following kvparity pid %d", ev.Holder.PID)
			if !ev.Holder.Since.IsZero() {
				m.following += " (since " + ev.Holder.Since.UTC().Format("15:04:05 UTC") + ")"
			}
			m.following += "; its stages are shown live, stage keys are refused"
			m.say("following the campaign live: " + ev.Holder.String() + " writes it")
		}
	case engine.HistoryReplayed:
		m.stale = true
		if ev.Records > 0 {
			m.det.MarkInterrupted()
			m.perf.MarkInterrupted()
			m.say(fmt.Sprintf("campaign reopened: %d journal records replayed · %s", ev.Records, m.resumeKeys()))
		}
	case engine.StageStopped:
		m.stageRunning = false
		m.header.SetRunning("")
		m.stale = true
		switch {
		case m.following != "" && (ev.Cancelled || ev.WriterGone):
			m.say(m.followedStageStop(ev)) // the writer's stage: this workbench stopped nothing
		case ev.Cancelled && m.stopping:
			m.say(fmt.Sprintf("%s stage stopped by you (%s); its unfinished runs were killed (%s or %s resumes)",
				ev.Stage, keys.Name(km.StopStage), keys.Name(km.StartDeterminism), keys.Name(km.StartPerf)))
		case ev.Cancelled:
			m.say(string(ev.Stage) + " stage stopped; its unfinished runs were killed")
		case m.blocked != "":
			m.say(string(ev.Stage) + " stage ended BLOCKED; " + keys.Name(km.StartPerf) + " or " + keys.Name(km.StartDeterminism) + " resumes once its cause is fixed")
		default:
			m.say(string(ev.Stage) + " stage finished")
		}
		m.stopping = false
	}
	m.syncSelection()
	return tea.Batch(cmds...)
}

// onArtifactChanged words a rebuilt or changed artifact (the artifacts line has taken the
// event already) and asks for fresh info after a re-pin.
func (m *Model) onArtifactChanged(ev engine.ArtifactChanged) tea.Cmd {
	what := "the row file"
	if ev.Arm != "" {
		what = "the " + string(ev.Arm) + " binary"
	}
	if ev.Repinned {
		m.say(fmt.Sprintf("%s was rebuilt: re-pinned and rerunning", what))
		return fetchInfo(m.ctl)
	}
	// The status line keeps a STALE mark for as long as it lasts; the log keeps the details.
	if ev.Arm == "" {
		m.rowChanged = true
	}
	m.logp.Note(fmt.Sprintf("%s changed after pinning (%s); results no longer describe it", what, ev.Path))
	m.invalidateStatus()
	return nil
}

// invalidateStatus drops news that a newer condition (a STALE mark) makes misleading.
func (m *Model) invalidateStatus() {
	if !m.status.problem {
		m.status = news("")
	}
}

// selectedLabel names the selected repetition on screen.
func (m Model) selectedLabel() string {
	r, ok := m.det.Selected()
	if !ok {
		return ""
	}
	return determinism.LineLabel(r)
}
