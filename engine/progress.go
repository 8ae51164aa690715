package engine

import (
	"fmt"
	"maps"
	"slices"
)

// A Phase is where a campaign's journal says the campaign is, for a live follower (the
// matrix) that shows how far a row got.
type Phase string

// The phases, in the order a campaign passes them.
const (
	PhaseNone        Phase = ""            // no record yet
	PhasePinning     Phase = "pinning"     // the campaign exists; artifacts are pinned (or re-pinned after a stale arm)
	PhaseDeterminism Phase = "determinism" // a run other than a warmup or a sample was recorded last
	PhasePerf        Phase = "perf"        // warmups and pairs
	PhaseBlocked     Phase = "blocked"     // a block was recorded last
)

// A Progress is how far the journal's current phase got.
type Progress struct {
	Phase Phase
	// Done counts the phase's finished work since it began (or an arm went stale): clean
	// repetitions of both arms in determinism, valid pairs in perf; Total is what the phase
	// needs (kept after it ends).
	Done, Total int
	Samples     int              // measured samples of those pairs
	Running     RunID            // the run started last, until its end
	Digests     map[Arm][]string // each arm's distinct digests in the order seen; forgotten when it goes stale
	Blocked     string           // "<stage>: <reason>" of the last block, until a run starts
}

// progress is History's fold of Progress.
type progress struct {
	Progress
	ended map[RunID]bool // runs (or pairs) already counted in Done
}

func newProgress() progress {
	return progress{Progress: Progress{Digests: map[Arm][]string{}}, ended: map[RunID]bool{}}
}

// Progress is the current phase's progress (a copy).
func (h *History) Progress() Progress {
	p := h.progress.Progress
	p.Digests = maps.Clone(p.Digests)
	for a, d := range p.Digests {
		p.Digests[a] = slices.Clone(d)
	}
	return p
}

func (p *progress) pinned() {
	if p.Phase == PhaseNone {
		p.Phase = PhasePinning
	}
}

// enter switches the counters when the journal moves to another phase: determinism counts
// repetitions of both arms, perf counts valid pairs.
func (p *progress) enter(row *Row, k RunKind) {
	want, total := PhaseDeterminism, 2*row.Determinism.Repetitions
	if k == KindWarmup || k == KindSample {
		want, total = PhasePerf, row.Perf.Pairs
	}
	if p.Phase != want {
		p.Phase, p.Done, p.Total = want, 0, total
		p.ended = map[RunID]bool{}
	}
}

func (p *progress) runStarted(row *Row, r *Record) {
	p.enter(row, r.Kind)
	p.Running, p.Blocked = r.Run, "" // a new run retries whatever blocked the row
}

func (p *progress) runEnded(row *Row, r *Record) {
	p.enter(row, r.Kind)
	if p.Running == r.Run {
		p.Running = ""
	}
	if r.Kind == KindRepetition && r.Error == "" && !p.ended[r.Run] {
		p.ended[r.Run] = true
		p.Done++
	}
	if r.Digest != "" && r.Arm != "" && !slices.Contains(p.Digests[r.Arm], r.Digest) {
		p.Digests[r.Arm] = append(p.Digests[r.Arm], r.Digest)
	}
}

// pairDone counts a valid pair once (a rerun pair's second record is not counted again).
func (p *progress) pairDone(row *Row, pair *PerfPair) {
	p.enter(row, KindSample)
	if id := RunID(fmt.Sprintf("%s/pair-%d", pair.Key, pair.Pair)); !p.ended[id] {
		p.ended[id] = true
		p.Done++
		p.Samples += 2
	}
}

func (p *progress) blocked(r *Record) {
	p.Phase, p.Blocked = PhaseBlocked, fmt.Sprintf("%s: %s", r.Stage, r.Reason)
}

// stale: a re-pinned arm reruns its repetitions, so its digests and the counts start over.
func (p *progress) stale(arm Arm) {
	delete(p.Digests, arm)
	p.Phase, p.Done, p.Samples = PhasePinning, 0, 0
	p.ended = map[RunID]bool{}
}
