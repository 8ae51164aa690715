package ui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/determinism"
	"kvparity/ui/keys"
	"kvparity/ui/text"
	"kvparity/verdict"
)

// actionDoneMsg reports a Controller call's outcome.
type actionDoneMsg struct {
	action string
	err    error
	watch  *bool // the new watch state when the action was a watch toggle
	saved  string
}

// quitCheckedMsg answers "is a stage running?" when the user asked to quit.
type quitCheckedMsg struct{ running bool }

// infoFetchedMsg carries fresh campaign info after an artifact was re-pinned.
type infoFetchedMsg struct{ info engine.CampaignInfo }

func fetchInfo(ctl engine.Controller) tea.Cmd {
	return func() tea.Msg { return infoFetchedMsg{info: ctl.Info()} }
}

// closedMsg says the controller is closed and its children stopped: the program may end.
type closedMsg struct{ err error }

// act runs one Controller call in a command so Update never waits on the engine. It captures
// only its arguments, never the model.
func act(action string, call func() error) tea.Cmd {
	return func() tea.Msg { return actionDoneMsg{action: action, err: call()} }
}

func actWatch(ctl engine.Controller, on bool) tea.Cmd {
	return func() tea.Msg {
		err := ctl.SetWatch(on)
		now := ctl.Watching()
		return actionDoneMsg{action: "watch", err: err, watch: &now}
	}
}

func (m *Model) onActionDone(msg actionDoneMsg) {
	switch {
	case msg.err != nil:
		m.alarm(refusal(msg.action, msg.err))
	case msg.watch != nil:
		m.watching = *msg.watch
		m.arts.SetWatching(m.watching)
		if m.watching {
			m.say(m.arts.WatchNews())
		} else {
			m.say("watch mode off")
		}
	case msg.saved != "":
		m.say("report written: " + msg.saved + " · " + keys.Name(m.keys.OpenReport) + " opens it in $PAGER")
	}
	if msg.err != nil && msg.watch != nil {
		m.watching = *msg.watch
		m.arts.SetWatching(m.watching)
	}
}

// refusal words a Controller call that failed: "start performance refused: candidate is
// UNSTABLE (…)". The engine's error may already say what it refused ("performance refused:
// …"): that head is dropped rather than said twice.
func refusal(action string, err error) string {
	why := err.Error()
	if head, rest, ok := strings.Cut(why, " refused: "); ok && !strings.ContainsAny(head, ":(") {
		why = rest
	}
	return action + " refused: " + why
}

// saveReport runs the injected campaign-report writer in a command.
func (m *Model) saveReport() tea.Cmd {
	if m.save == nil {
		m.alarm("report writer not available")
		return nil
	}
	save, dir := m.save, m.dir
	m.say("writing the campaign report…")
	return func() tea.Msg {
		if err := save(dir); err != nil {
			return actionDoneMsg{action: "save report", err: err}
		}
		return actionDoneMsg{action: "save report", saved: filepath.Join(dir, "report.md")}
	}
}

// pagerDoneMsg says the pager over report.md ended (the workbench takes the terminal back).
type pagerDoneMsg struct {
	what string
	err  error
}

// pagerArgv is the pager command from $PAGER (split into words, run without a shell), less
// when it is unset.
func pagerArgv(env string) []string {
	argv := strings.Fields(env)
	if len(argv) == 0 {
		return []string{"less"}
	}
	return argv
}

// openReport shows report.md in $PAGER: Bubble Tea releases the terminal while it runs.
func (m *Model) openReport() tea.Cmd {
	path := filepath.Join(m.dir, "report.md")
	if _, err := os.Stat(path); err != nil {
		m.say("no report.md in " + m.dir + " yet: " + keys.Name(m.keys.SaveReport) + " writes it")
		return nil
	}
	argv := pagerArgv(os.Getenv("PAGER"))
	if _, err := exec.LookPath(argv[0]); err != nil {
		m.alarm(fmt.Sprintf("cannot open the report: pager %q not found (set $PAGER)", argv[0]))
		return nil
	}
	what := argv[0] + " " + path
	m.say("opening " + path + " in " + argv[0] + " (quit it to come back)")
	c := exec.Command(argv[0], append(argv[1:], path)...)
	return tea.ExecProcess(c, func(err error) tea.Msg { return pagerDoneMsg{what: what, err: err} })
}

// quit closes the controller (stopping running children by process group) in a command, then
// ends the program.
func (m *Model) quit() tea.Cmd {
	m.closing = true
	ctl := m.ctl
	return func() tea.Msg { return closedMsg{err: ctl.Close()} }
}

// diffPair picks what d compares: the selected repetition against its own arm's first
// repetition when their digests differ (an unstable revision), otherwise against the other
// arm's first repetition (parity).
// same is set when both have one digest (nothing to diff).
func diffPair(reps []determinism.Repetition, sel determinism.Repetition) (a, b diffSide, same bool, err error) {
	first := func(arm engine.Arm) (determinism.Repetition, bool) {
		for _, r := range reps {
			if r.Arm == arm && r.Digest != "" {
				return r, true
			}
		}
		return determinism.Repetition{}, false
	}
	if sel.Digest == "" {
		return a, b, false, fmt.Errorf("%s has no canonical report yet", determinism.LineLabel(sel))
	}
	// A report that matches an earlier one of its arm is deleted once digested: compare the
	// earliest repetition with the same digest, whose report is the one kept.
	for _, r := range reps {
		if r.Arm == sel.Arm && r.Digest == sel.Digest {
			sel = r
			break
		}
	}
	other, ok := first(sel.Arm)
	if !ok || other.Run == sel.Run || other.Digest == sel.Digest {
		arm := engine.Candidate
		if sel.Arm == engine.Candidate {
			arm = engine.Baseline
		}
		if other, ok = first(arm); !ok {
			return a, b, false, fmt.Errorf("no %s repetition has a canonical report yet", arm)
		}
	}
	side := func(r determinism.Repetition) diffSide {
		return diffSide{Label: determinism.LineLabel(r), ReportPath: r.ReportPath, Arm: string(r.Arm),
			Build: fmt.Sprintf("%s/g%d", r.Arm, max(r.Gen, 1))}
	}
	a, b = side(sel), side(other)
	// Baseline on the left, as everywhere else; within one arm, the earlier repetition, and a
	// plain repetition before a perturbed one.
	if sel.Arm == engine.Candidate && other.Arm == engine.Baseline ||
		sel.Arm == other.Arm && (sel.Variation != "" && other.Variation == "" || sel.Variation == other.Variation && sel.Index > other.Index) {
		a, b = b, a
	}
	if other.Digest == sel.Digest {
		return a, b, true, nil
	}
	if a.ReportPath == "" || b.ReportPath == "" {
		return a, b, false, fmt.Errorf("the canonical report of %s or %s was not kept", a.Label, b.Label)
	}
	return a, b, false, nil
}

// openDiff opens the diff pane on the selected repetition and focuses it.
func (m *Model) openDiff() tea.Cmd {
	sel, ok := m.det.Selected()
	if !ok {
		m.say("nothing to diff yet: start the determinism stage with " + keys.Name(m.keys.StartDeterminism))
		return nil
	}
	a, b, same, err := diffPair(m.det.Repetitions(), sel)
	if err != nil {
		m.say("diff: " + err.Error())
		return nil
	}
	if same {
		// Matching full reports are deleted (only digests are kept): equal digests already say
		// the canonical reports are byte-identical.
		m.say(fmt.Sprintf("diff: %s and %s have the same digest %s: their canonical reports are byte-identical",
			a.Label, b.Label, text.Short(sel.Digest, 12)))
		return nil
	}
	m.setFocus(focusDiff)
	m.layout()
	var cmd tea.Cmd
	m.diff, cmd = m.diff.Open(a, b)
	m.say("diff: " + a.Label + " vs " + b.Label)
	return cmd
}

// focusDisagreement opens and focuses the diff pane when reports disagree (the design: kvparity
// "focuses the diff when canonical reports disagree"): an UNSTABLE arm shows its first
// repetition against the first one that differs, a parity FAIL shows baseline against
// candidate. It does nothing when the full reports were not kept.
func (m *Model) focusDisagreement(v engine.StageVerdict) tea.Cmd {
	reps := m.det.Repetitions()
	var sel determinism.Repetition
	switch {
	case v.Stage == engine.StageDeterminism && v.Verdict == verdict.Unstable:
		var first string
		for _, r := range reps {
			if r.Arm != v.Arm || r.Digest == "" {
				continue
			}
			if first == "" {
				first = r.Digest
			} else if r.Digest != first {
				sel = r
				break
			}
		}
	case v.Stage == engine.StageParity && v.Verdict == verdict.Fail:
		for _, r := range reps {
			if r.Arm == engine.Candidate && r.Digest != "" {
				sel = r
				break
			}
		}
	}
	if sel.Run == "" {
		return nil
	}
	a, b, same, err := diffPair(reps, sel)
	if err != nil || same {
		return nil
	}
	m.setFocus(focusDiff)
	m.layout()
	var cmd tea.Cmd
	m.diff, cmd = m.diff.Open(a, b)
	m.logp.Note(fmt.Sprintf("the diff pane shows %s vs %s (%s leaves it)", a.Label, b.Label, keys.Name(m.keys.NextPane)))
	return cmd
}
