// Package perf is the performance pane: warmups and pairs done out of total, the ratios
// plotted in pair order as they arrive, the running median, each dependence diagnostic once
// computable with its threshold, and the order-statistic bounds and verdict at the end. It
// imports engine for the perf events and result, stats for the gate's figures, and ui/* (pane,
// text, theme) for its box, text and palette.
package perf

import (
	"math"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"kvparity/engine"
	"kvparity/ui/pane"
	"kvparity/ui/theme"
	"kvparity/verdict"
)

// Model is the performance pane.
type Model struct {
	pane.Base
	desk        string // the row's desk-build note: it is never timed ("" for a release row)
	refused     string // why byte parity refuses the stage (an UNSTABLE or failed arm), while it does
	threshold   float64
	pairsTotal  int
	warmupTotal int
	warmupsDone int
	ratios      []float64 // by pair index - 1; NaN while a pair is not in
	pairsDone   int
	summary     engine.PerfSummary
	verdict     engine.StageVerdict
	invalid     []engine.SampleInvalidated
	live        map[engine.RunID]engine.RunStarted // warmups and samples in flight
	progress    map[engine.RunID]engine.RunProgress
	running     bool
	now         time.Time
	attempts    map[int]int     // pair → attempts so far (1 + its invalidations seen)
	causes      map[string]int  // invalidations by the condition that caused them
	runTimes    []time.Duration // wall time of each finished warmup and sample process
	// starts are the start instants of this stage run's warmups and samples (since its
	// StageStarted): their spacing is what a process costs on this machine, the waits after
	// invalidations and the gaps between processes included.
	starts []time.Time
	zoom   key.Binding // the workbench's zoom key, named when something does not fit
	// instructions is the instruction-count instrument's latest word (a secondary measure
	// shown under the verdict); counting says its stage is running.
	instructions engine.InstructionsDone
	counting     bool
}

// SetZoomKey names the workbench's zoom binding: what the pane cannot show, it says z shows.
func (m *Model) SetZoomKey(b key.Binding) { m.zoom = b }

// New builds the pane for a row's perf settings (pairs, warmups per arm, threshold).
func New(st theme.Styles, pairs, warmupsPerArm int, threshold float64) Model {
	m := Model{threshold: threshold, pairsTotal: pairs, warmupTotal: 2 * warmupsPerArm,
		live: map[engine.RunID]engine.RunStarted{}, progress: map[engine.RunID]engine.RunProgress{},
		attempts: map[int]int{}, causes: map[string]int{}}
	m.ratios = make([]float64, pairs)
	for i := range m.ratios {
		m.ratios[i] = math.NaN()
	}
	m.SetStyles(st)
	return m
}

// SetDeskBuild marks the row as desk builds (engine.CampaignInfo's DeskBuild): the pane says it
// is not timed instead of showing a gate that will not run.
func (m *Model) SetDeskBuild(note string) { m.desk = note }

// SetNow sets the instant used for the elapsed time of the sample in flight.
func (m *Model) SetNow(t time.Time) { m.now = t }

// MarkInterrupted forgets runs in flight after a reopened campaign's history: they were cut
// off when kvparity stopped.
func (m *Model) MarkInterrupted() {
	m.live = map[engine.RunID]engine.RunStarted{}
	m.progress = map[engine.RunID]engine.RunProgress{}
	m.running = false
}

// Sampling reports whether a measured sample is in flight: the root then redraws at most a few
// times a second so the workbench stays off the measured CPU.
func (m Model) Sampling() bool {
	for _, r := range m.live {
		if r.Kind == engine.KindSample {
			return true
		}
	}
	return false
}

// Live reports whether any warmup or sample is in flight.
func (m Model) Live() bool { return len(m.live) > 0 }

// Ratios returns the pair ratios in pair order (NaN for pairs not yet in).
func (m Model) Ratios() []float64 { return append([]float64(nil), m.ratios...) }

// Verdict returns the performance verdict once the stage decided it.
func (m Model) Verdict() engine.StageVerdict {
	if m.verdict.Verdict == "" && m.summary.Final {
		return engine.StageVerdict{Stage: engine.StagePerf, Verdict: m.summary.Verdict, Reason: m.summary.Reason}
	}
	return m.verdict
}

// ShortHelp is empty: the pane has no keys of its own (z, a workbench key, zooms it).
func (m Model) ShortHelp() []key.Binding { return nil }

// FullHelp is empty: the ? overlay says the pane has no keys of its own.
func (m Model) FullHelp() [][]key.Binding { return nil }

// Summary returns the latest PerfSummary.
func (m Model) Summary() engine.PerfSummary { return m.summary }

// Update takes the performance stage's events.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch ev := msg.(type) {
	case engine.InstructionsDone:
		m.instructions, m.counting = ev, false
	case engine.StageStarted:
		if ev.Stage == engine.StageInstructions {
			m.counting = true
		}
		if ev.Stage == engine.StagePerf {
			m.running = true
			m.verdict = engine.StageVerdict{}
			m.starts = nil
		}
		if ev.Stage == engine.StageDeterminism {
			m.refused = "" // new repetitions: parity is decided again
		}
	case engine.StageStopped:
		if ev.Stage == engine.StageInstructions {
			m.counting = false
		}
		if ev.Stage == engine.StagePerf {
			m.running = false
			m.live = map[engine.RunID]engine.RunStarted{}
			m.progress = map[engine.RunID]engine.RunProgress{}
		}
	case engine.RunStarted:
		if ev.Kind == engine.KindSample || ev.Kind == engine.KindWarmup {
			m.live[ev.Run] = ev
			if m.running && !ev.At.IsZero() {
				m.starts = append(m.starts, ev.At)
			}
		}
	case engine.RunProgress:
		if _, ok := m.live[ev.Run]; ok {
			m.progress[ev.Run] = ev
		}
	case engine.RunFinished:
		if (ev.Kind == engine.KindSample || ev.Kind == engine.KindWarmup) && ev.Err == nil && ev.Elapsed > 0 {
			m.runTimes = append(m.runTimes, ev.Elapsed)
		}
		delete(m.live, ev.Run)
		delete(m.progress, ev.Run)
	case engine.SampleDone:
		if ev.Warmup {
			m.warmupsDone++
		}
	case engine.PairDone:
		m.pair(ev)
	case engine.SampleInvalidated:
		m.invalid = append(m.invalid, ev)
		m.attempts[ev.Pair] = max(m.attempts[ev.Pair], ev.Attempt+1)
		for _, c := range ev.Causes {
			m.causes[c]++
		}
		if ev.Pair >= 1 && ev.Pair <= len(m.ratios) && !math.IsNaN(m.ratios[ev.Pair-1]) {
			m.ratios[ev.Pair-1] = math.NaN()
			m.pairsDone--
		}
	case engine.PerfSummary:
		m.summary = ev
		if ev.Total > 0 {
			m.pairsTotal = max(m.pairsTotal, ev.Total)
		}
	case engine.StageVerdict:
		if ev.Stage == engine.StagePerf {
			m.verdict = ev
		}
		if ev.Stage == engine.StageParity {
			m.refused = ""
			if ev.Verdict == verdict.Blocked {
				m.refused = ev.Reason
			}
		}
	}
	return m, nil
}

func (m *Model) pair(ev engine.PairDone) {
	if ev.Total > len(m.ratios) {
		grow := make([]float64, ev.Total-len(m.ratios))
		for i := range grow {
			grow[i] = math.NaN()
		}
		m.ratios = append(m.ratios, grow...)
		m.pairsTotal = ev.Total
	}
	if ev.Pair < 1 || ev.Pair > len(m.ratios) {
		return
	}
	if math.IsNaN(m.ratios[ev.Pair-1]) {
		m.pairsDone++
	}
	m.ratios[ev.Pair-1] = ev.Ratio
	if ev.Done > 0 {
		m.pairsDone = ev.Done
	}
}
