// Package determinism is the pane with one line per repetition (state, progress in virtual
// time and completed requests, elapsed time, digest), the per-arm verdict and cross-arm parity.
// It owns the run selection the lifecycle, pressure and diff panes follow. It imports engine
// for the runs and verdicts it shows and ui/* (pane, keys, text, theme) for its box, keys, text
// and palette.
package determinism

import (
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/keys"
	"kvparity/ui/pane"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

// A State is where a repetition is in its life.
type State int

const (
	Running State = iota
	Done          // exited cleanly with valid outputs
	Failed        // product failure: non-zero exit, malformed report, timeout
	Killed        // stopped by the user (signal, no product error)
)

// A Repetition is one line of the pane: the latest attempt of an arm's repetition.
type Repetition struct {
	Run        engine.RunID
	Arm        engine.Arm
	Index      int    // 1-based repetition number (a perturbed line: the try of its variation)
	Variation  string // "" for the protocol's plain repetitions; "set" or the variation tried alone
	Gen        int    // the generation of pinned artifacts it ran: one arm's repetitions of one Gen ran one build
	attempts   int
	State      State
	startedAt  time.Time
	elapsed    time.Duration // from RunProgress/RunFinished; 0 until one arrives
	virtualMs  float64
	completed  int
	total      int
	Digest     string
	ReportPath string
	fixedPoint string
	err        string
}

// Model is the determinism pane.
type Model struct {
	pane.Base
	keys     keys.KeyMap
	reps     []Repetition // baseline first, then candidate, each by index
	byRun    map[engine.RunID]int
	cursor   int
	pinned   bool // the user moved the cursor; otherwise it follows the newest digested run
	verdicts map[engine.Arm]engine.StageVerdict
	parity   engine.StageVerdict
	now      time.Time
	total    map[engine.Arm]int // repetitions per arm, known when the stage starts
	// preflight is each arm's single-core probe, once measured.
	preflight map[engine.Arm]engine.Preflight
}

// New builds an empty pane.
func New(st theme.Styles, km keys.KeyMap) Model {
	m := Model{keys: km, byRun: map[engine.RunID]int{}, verdicts: map[engine.Arm]engine.StageVerdict{}, total: map[engine.Arm]int{},
		preflight: map[engine.Arm]engine.Preflight{}}
	m.SetStyles(st)
	return m
}

// SetNow sets the instant running repetitions measure their elapsed time against; the root
// sets it from its injected clock once per frame so View stays a pure read.
func (m *Model) SetNow(t time.Time) { m.now = t }

// Repetitions returns the pane's lines in display order.
func (m Model) Repetitions() []Repetition { return slices.Clone(m.reps) }

// Selected returns the selected repetition, if any.
func (m Model) Selected() (Repetition, bool) {
	if m.cursor < 0 || m.cursor >= len(m.reps) {
		return Repetition{}, false
	}
	return m.reps[m.cursor], true
}

// Verdict returns the per-arm verdict (STABLE/UNSTABLE) once known.
func (m Model) Verdict(a engine.Arm) engine.StageVerdict { return m.verdicts[a] }

// Parity returns the cross-arm parity verdict once known.
func (m Model) Parity() engine.StageVerdict { return m.parity }

// Total is how many repetitions the stage runs over both arms: known when it starts (the
// lines it has started so far when no start said so).
func (m Model) Total() int {
	n := 0
	for _, a := range []engine.Arm{engine.Baseline, engine.Candidate} {
		lines := 0
		for _, r := range m.reps {
			if r.Arm == a && r.Variation == "" {
				lines++
			}
		}
		n += max(lines, m.total[a])
	}
	return n
}

// Live reports whether any repetition is running.
func (m Model) Live() bool {
	for _, r := range m.reps {
		if r.State == Running {
			return true
		}
	}
	return false
}

// Update takes repetition events, verdicts, and (when focused) the selection keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch ev := msg.(type) {
	case engine.RunStarted:
		if ev.Kind == engine.KindRepetition || ev.Kind == engine.KindPerturbed {
			m.started(ev)
		}
	case engine.PreflightDone:
		m.preflight[ev.Preflight.Arm] = ev.Preflight
	case engine.RunProgress:
		if i, ok := m.byRun[ev.Run]; ok {
			r := &m.reps[i]
			r.virtualMs, r.completed, r.total = ev.VirtualTimeMs, ev.Completed, ev.Total
			r.elapsed = ev.Elapsed
		}
	case engine.RunFinished:
		if i, ok := m.byRun[ev.Run]; ok {
			m.finished(&m.reps[i], ev)
		}
	case engine.DigestReady:
		if i, ok := m.byRun[ev.Run]; ok {
			r := &m.reps[i]
			r.Digest, r.ReportPath, r.fixedPoint = ev.Digest, ev.ReportPath, ev.FixedPoint
			// Follow the newest digested run: its evidence is what the other panes can show (a
			// perturbed run has none: its line adds a digest).
			if r.Variation == "" {
				m.follow(i)
			}
		}
	case engine.StageVerdict:
		switch {
		case ev.Stage == engine.StageDeterminism && ev.Arm != "":
			m.verdicts[ev.Arm] = ev
		case ev.Stage == engine.StageParity:
			m.parity = ev
		}
	case engine.StageStarted:
		if ev.Stage == engine.StageDeterminism {
			// A new determinism run decides afresh; old verdicts would be misleading.
			m.verdicts = map[engine.Arm]engine.StageVerdict{}
			m.parity = engine.StageVerdict{}
			for a, n := range ev.Repetitions {
				m.total[a] = n
			}
		}
	case tea.KeyPressMsg:
		if m.Focused() {
			m.move(ev)
		}
	}
	return m, nil
}

// ScrollBy moves the selection by n repetitions (the mouse wheel over the pane).
func (m *Model) ScrollBy(n int) {
	if len(m.reps) == 0 {
		return
	}
	m.cursor = max(0, min(len(m.reps)-1, m.cursor+n))
	m.pinned = true
}

// ClickAt selects the repetition drawn on line y of the pane (0 is the title).
func (m *Model) ClickAt(y int) {
	shown := m.shownRows()
	if y >= 1 && y <= len(shown) {
		m.cursor, m.pinned = shown[y-1], true
	}
}

// bodyRows is how many repetition lines the pane shows.
func (m Model) bodyRows() int {
	if body := m.Height - 2; body >= 1 {
		return body
	}
	return max(m.Height-1, 0)
}

// shownRows lists the repetitions drawn, in display order. When they do not all fit, the ones
// that matter are never the ones cut: the selected line, then the lines of an UNSTABLE arm
// (the ones whose digest differs first), then live and failed runs, then the lines nearest
// the selection. The title says how many are hidden (hiddenNote).
func (m Model) shownRows() []int {
	body := m.bodyRows()
	if len(m.reps) <= body {
		out := make([]int, len(m.reps))
		for i := range out {
			out[i] = i
		}
		return out
	}
	order := make([]int, len(m.reps))
	for i := range order {
		order[i] = i
	}
	rank := func(i int) int {
		r := m.reps[i]
		_, differs := m.differsFrom(r)
		switch {
		case i == m.cursor:
			return 0
		case differs:
			return 1
		case m.verdicts[r.Arm].Verdict == verdict.Unstable:
			return 2
		case r.State != Done:
			return 3
		}
		return 4
	}
	dist := func(i int) int { return max(i-m.cursor, m.cursor-i) }
	slices.SortStableFunc(order, func(a, b int) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return dist(a) - dist(b)
	})
	shown := order[:body]
	slices.Sort(shown)
	return shown
}

// differsFrom finds a repetition of r's arm whose digest r disagrees with: for a plain
// repetition another plain one, for a perturbed one a plain one (its variations are what
// differ). ok is false while r has no digest or agrees with every other.
func (m Model) differsFrom(r Repetition) (Repetition, bool) {
	if r.Digest == "" {
		return Repetition{}, false
	}
	for _, o := range m.reps {
		if o.Arm == r.Arm && o.Digest != "" && o.Run != r.Run && o.Variation == "" && o.Digest != r.Digest {
			return o, true
		}
	}
	return Repetition{}, false
}

// MarkStoppedByUser says a run that ended with an error was stopped by the user (x), not a
// product failure: its line reads "stopped by you".
func (m *Model) MarkStoppedByUser(run engine.RunID) {
	if i, ok := m.byRun[run]; ok {
		m.reps[i].State, m.reps[i].err = Killed, "stopped by you"
	}
}

// MarkInterrupted ends every line still running: after a reopened campaign's history, a run
// that started but never finished was cut off when kvparity stopped (the engine reruns it).
func (m *Model) MarkInterrupted() {
	for i := range m.reps {
		if m.reps[i].State == Running {
			m.reps[i].State, m.reps[i].err = Killed, "interrupted; "+keys.Name(m.keys.StartDeterminism)+" reruns it"
		}
	}
}

func (m *Model) move(k tea.KeyPressMsg) {
	switch {
	case key.Matches(k, m.keys.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(k, m.keys.Down):
		m.cursor = min(m.cursor+1, len(m.reps)-1)
	case key.Matches(k, m.keys.Top):
		m.cursor = 0
	case key.Matches(k, m.keys.End):
		m.cursor = len(m.reps) - 1
	default:
		return
	}
	m.cursor = max(m.cursor, 0)
	m.pinned = true
}

// started adds or restarts the line of (arm, repetition): a rerun replaces the line's state but
// counts the attempt, since the journal keeps every attempt.
func (m *Model) started(ev engine.RunStarted) {
	fresh := Repetition{Run: ev.Run, Arm: ev.Arm, Index: ev.Repetition, Variation: ev.Variation, Gen: ev.Gen, attempts: 1, State: Running, startedAt: ev.At}
	for i := range m.reps {
		r := &m.reps[i]
		if r.Arm == ev.Arm && r.Index == ev.Repetition && r.Variation == ev.Variation {
			delete(m.byRun, r.Run)
			fresh.attempts = r.attempts + 1
			*r = fresh
			m.byRun[ev.Run] = i
			m.followLive(ev.Run)
			return
		}
	}
	selected, hadSel := m.Selected()
	m.reps = append(m.reps, fresh)
	// The plain repetitions by arm and index, then the perturbed ones: each arm's whole set,
	// then the variations tried alone in the order they ran.
	slices.SortStableFunc(m.reps, func(a, b Repetition) int {
		if ka, kb := variationOrder(a.Variation), variationOrder(b.Variation); ka != kb {
			return ka - kb
		}
		if a.Arm != b.Arm {
			return armOrder(a.Arm) - armOrder(b.Arm)
		}
		if a.Variation != "" && a.Variation != "set" {
			return 0
		}
		return a.Index - b.Index
	})
	m.byRun = map[engine.RunID]int{}
	for i, r := range m.reps {
		m.byRun[r.Run] = i
	}
	if hadSel {
		m.cursor = m.byRun[selected.Run] // the same line stays selected when lines are inserted
	}
	m.followLive(ev.Run)
}

// followLive moves the cursor to a run that just started, so the panes that follow the
// selection show its evidence live, unless the user chose a line or another live run is
// already selected (parallel runs would make the selection jump).
func (m *Model) followLive(run engine.RunID) {
	if sel, ok := m.Selected(); ok && sel.State == Running && sel.Run != run {
		return
	}
	if m.reps[m.byRun[run]].Variation != "" {
		return // no live evidence to follow
	}
	m.follow(m.byRun[run])
}

// follow moves the cursor to line i unless the user chose a line themselves.
func (m *Model) follow(i int) {
	if !m.pinned {
		m.cursor = i
	}
}

func (m *Model) finished(r *Repetition, ev engine.RunFinished) {
	r.elapsed = ev.Elapsed
	switch {
	case ev.Err != nil:
		r.State, r.err = Failed, ev.Err.Error()
	case ev.Signal != "" || ev.ExitCode != 0:
		r.State, r.err = Killed, "stopped"
		if ev.Signal != "" {
			r.err = "stopped (" + ev.Signal + ")"
		}
	default:
		r.State = Done
	}
}

// variationOrder places plain lines before the whole set, and the set before lines alone.
func variationOrder(v string) int {
	switch v {
	case "":
		return 0
	case "set":
		return 1
	}
	return 2
}

func armOrder(a engine.Arm) int {
	if a == engine.Baseline {
		return 0
	}
	return 1
}

// ShortHelp is the pane's own bindings (help.KeyMap), shown while it has focus.
func (m Model) ShortHelp() []key.Binding { return []key.Binding{m.keys.Up, m.keys.Down} }

// FullHelp is the pane's bindings for the ? overlay (help.KeyMap).
func (m Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{m.keys.Up, m.keys.Down, m.keys.Top, m.keys.End}}
}
