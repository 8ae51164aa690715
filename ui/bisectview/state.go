package bisectview

import (
	"slices"
	"time"

	"kvparity/bisect"
	"kvparity/engine"
	"kvparity/verdict"
)

// phaseUntried is a commit's phase before any Progress names it; after, it is the bisect's
// (bisect.PhaseBuilding, PhaseRunning, PhaseJudged).
const phaseUntried = ""

// commitLine is one commit of the bisected history as the view draws it.
type commitLine struct {
	Commit bisect.Commit
	Phase  string
	Step   *bisect.Step // once judged (recorded or in this run)

	// While building: the build's phase, the units compiled so far and the crate being
	// compiled, and how long the build has taken.
	Build   string
	Units   int
	Crate   string
	Elapsed time.Duration
	// While its probe campaign runs: the runs finished, the run going now, the pairs measured
	// (perf judge) and the verdicts decided so far.
	Runs        int
	Run         engine.RunID
	Pair, Pairs int
	Verdicts    []decided
}

// snapshot is a bisect folded from its Progress: what the view draws. The zero snapshot is a bisect
// that has not started yet.
type snapshot struct {
	Started *bisect.Started
	Good    commitLine   // the good ref: every probe's baseline, built first
	Commits []commitLine // the history after the good ref, oldest first (the bad ref last)
	Range   bisect.Range
	Current string // the commit being built or probed ("" between probes)
	Steps   int    // steps judged, recorded ones included
}

// apply folds one Progress into the state.
func (s *snapshot) apply(p bisect.Progress) {
	if p.Started != nil {
		st := *p.Started
		s.Started, s.Range = &st, st.Range
		s.Good = commitLine{Commit: st.Good}
		s.Commits = make([]commitLine, len(st.Commits))
		for i, c := range st.Commits {
			s.Commits[i] = commitLine{Commit: c}
		}
		for _, step := range st.Recorded {
			if c := s.find(step.Commit); c != nil {
				c.judged(step)
			}
		}
		s.Steps = len(st.Recorded)
		return
	}
	c := s.find(p.Commit)
	if c == nil {
		return // before Started, or a commit outside the history
	}
	s.Current = p.Commit
	if c != &s.Good && s.Good.Phase == bisect.PhaseBuilding {
		s.Good.Phase = phaseUntried // built: a probe has started
	}
	switch p.Phase {
	case bisect.PhaseBuilding:
		if c.Phase == phaseUntried {
			c.Phase = bisect.PhaseBuilding
		}
		if b := p.Build; b != nil {
			c.Build, c.Elapsed = b.Phase, b.Elapsed
			if b.Units > 0 {
				c.Units = b.Units
			}
			if b.Current != "" {
				c.Crate = b.Current
			}
		}
	case bisect.PhaseRunning:
		c.Phase = bisect.PhaseRunning
		c.event(p.Event)
	case bisect.PhaseJudged:
		if p.Step != nil {
			c.judged(*p.Step)
			s.Steps++
		}
		if p.Range != nil {
			s.Range = *p.Range
		}
		s.Current = ""
	}
}

// find is the commit's line: the good ref's or one of the history's.
func (s *snapshot) find(sha string) *commitLine {
	if sha == "" {
		return nil
	}
	if s.Started != nil && sha == s.Good.Commit.SHA {
		return &s.Good
	}
	for i := range s.Commits {
		if s.Commits[i].Commit.SHA == sha {
			return &s.Commits[i]
		}
	}
	return nil
}

func (c *commitLine) judged(step bisect.Step) {
	st := step
	c.Phase, c.Step, c.Run = bisect.PhaseJudged, &st, ""
}

// event folds one of the probe campaign's events into the commit's live line.
func (c *commitLine) event(ev engine.Event) {
	switch e := ev.(type) {
	case engine.RunStarted:
		c.Run = e.Run
	case engine.RunFinished:
		c.Runs++
		if c.Run == e.Run {
			c.Run = ""
		}
	case engine.PairDone:
		c.Pair, c.Pairs = e.Done, e.Total
	case engine.StageVerdict:
		d := decided{What: string(e.Stage), Verdict: e.Verdict}
		if e.Arm != "" {
			d.What = string(e.Arm)
		}
		if i := slices.IndexFunc(c.Verdicts, func(v decided) bool { return v.What == d.What }); i >= 0 {
			c.Verdicts[i] = d
		} else {
			c.Verdicts = append(c.Verdicts, d)
		}
	}
}

// decided is one verdict a probe campaign reached: an arm's determinism ("candidate") or a
// cross-arm stage's ("parity", "perf").
type decided struct {
	What    string
	Verdict verdict.Word
}

// clone is a deep copy: the feed hands snapshots to another goroutine.
func (s snapshot) clone() snapshot {
	out := s
	out.Commits = slices.Clone(s.Commits)
	for i := range out.Commits {
		out.Commits[i].Verdicts = slices.Clone(out.Commits[i].Verdicts)
	}
	out.Good.Verdicts = slices.Clone(s.Good.Verdicts)
	return out
}

// outcome is a judged commit's outcome ("" while it is not judged).
func (c commitLine) outcome() bisect.Outcome {
	if c.Step == nil {
		return ""
	}
	return c.Step.Outcome
}
