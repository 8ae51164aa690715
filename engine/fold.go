package engine

import (
	"encoding/json"
	"fmt"
)

// A History is the journal folded into a campaign's current state. It is the one reading of
// the journal: Open rebuilds a campaign from it, Summary is computed from it, and the campaign
// report (which must work on a cleaned campaign whose binaries and trace window are gone, so
// it never calls Open) builds on it too.
type History struct {
	Row     *Row
	Records []Record
	// Pins is every pinned record, oldest first; Current is each arm's latest generation with
	// Stale set when a stale record followed it; PinSeq is the journal seq of that pin.
	Pins    []PinnedArtifact
	Current map[Arm]PinnedArtifact
	PinSeq  map[Arm]int64
	// Added counts the repetitions AddRepetition added per arm, beyond the row's.
	Added map[Arm]int
	// Gone maps a run whose full report was deleted (it matched) to the reports_gone seq.
	Gone map[RunID]int64
	// Blocked lists "<stage>: <reason>" of blocks recorded since the last run started (a later
	// run retried whatever blocked the row before).
	Blocked []string
	// Patch is the row's declared determinism patch as the campaign recorded it (nil: none).
	Patch *DeterminismPatch

	verdicts   map[verdictKey]Record
	exceptions *Record // the latest PASS_WITH_SEMANTIC_EXCEPTIONS parity record on the current pins
}

type verdictKey struct {
	stage Stage
	arm   Arm
}

// FoldJournal folds a campaign's journal records (oldest first) over its frozen row.
func FoldJournal(recs []Record, row *Row) *History {
	h := &History{Row: row, Records: recs, Current: map[Arm]PinnedArtifact{}, PinSeq: map[Arm]int64{},
		Added: map[Arm]int{}, Gone: map[RunID]int64{}, verdicts: map[verdictKey]Record{}}
	for _, r := range recs {
		switch r.Type {
		case RecPinned:
			if r.Artifact == nil {
				continue
			}
			p := pinFromRecord(r)
			h.Pins = append(h.Pins, p)
			if cur, ok := h.Current[r.Arm]; !ok || p.Gen >= cur.Gen {
				h.Current[r.Arm], h.PinSeq[r.Arm] = p, r.Seq
			}
		case RecStale:
			if p, ok := h.Current[r.Arm]; ok {
				p.Stale = true
				h.Current[r.Arm] = p
			}
		case RecAddRep:
			h.Added[r.Arm] = max(h.Added[r.Arm], r.Index-row.Determinism.Repetitions)
		case RecReportsGone:
			for _, id := range r.Runs {
				h.Gone[id] = r.Seq
			}
		case RecRunStart:
			h.Blocked = nil
		case RecBlocked:
			h.Blocked = append(h.Blocked, fmt.Sprintf("%s: %s", r.Stage, r.Reason))
		case RecPatch:
			var p DeterminismPatch
			if json.Unmarshal(r.Data, &p) == nil {
				h.Patch = &p
			}
		}
	}
	// A verdict judges the artifacts pinned when it was recorded: keep only the ones recorded
	// after the current pins they depend on (both arms' for a cross-arm verdict).
	bothPinned := max(h.PinSeq[Baseline], h.PinSeq[Candidate])
	for i := range recs {
		r := recs[i]
		if r.Type != RecVerdict {
			continue
		}
		after := bothPinned
		if r.Arm != "" {
			after = h.PinSeq[r.Arm]
		}
		if r.Seq <= after {
			continue
		}
		if r.Stage == StageParity && r.Verdict == "PASS_WITH_SEMANTIC_EXCEPTIONS" {
			h.exceptions = &recs[i] // the exception workflow's verdict over a byte FAIL
			continue
		}
		h.verdicts[verdictKey{r.Stage, r.Arm}] = r
	}
	return h
}

// Gen is an arm's current artifact generation (1 before any pin is recorded).
func (h *History) Gen(arm Arm) int { return max(h.Current[arm].Gen, 1) }

// Repetitions is an arm's repetition count: the row's plus AddRepetition's.
func (h *History) Repetitions(arm Arm) int { return h.Row.Determinism.Repetitions + h.Added[arm] }

// Verdict is the latest recorded verdict of stage for arm ("" for a cross-arm stage) that
// judges the current artifacts. Byte parity is what the digests said; the exception workflow's
// verdict is SemanticExceptions.
func (h *History) Verdict(st Stage, arm Arm) (Record, bool) {
	r, ok := h.verdicts[verdictKey{st, arm}]
	return r, ok
}

// SemanticExceptions is the exception workflow's PASS_WITH_SEMANTIC_EXCEPTIONS record on the
// current artifacts, if any.
func (h *History) SemanticExceptions() (Record, bool) {
	if h.exceptions == nil {
		return Record{}, false
	}
	return *h.exceptions, true
}

// A RepetitionAttempt is one attempt of one determinism repetition as the journal recorded it.
type RepetitionAttempt struct {
	Start *Record // its run_start (the run_end itself when no start was recorded)
	End   *Record // nil while in flight, or when kvparity stopped or died during it
	// Latest: this is the latest attempt of its repetition, the one the verdict uses.
	Latest bool
}

// Attempts returns every attempt of arm's repetitions on its current generation in journal
// order, and how many attempts ran on older generations.
func (h *History) Attempts(arm Arm) (all []RepetitionAttempt, olderGens int) {
	return repetitionAttempts(h.Records, arm, h.Gen(arm))
}

// repetitionAttempts is the one rule for which attempt of a repetition counts: a run_start
// with a higher attempt supersedes the previous one; a run_end counts when its attempt is at
// least the latest started one.
func repetitionAttempts(recs []Record, arm Arm, gen int) (all []RepetitionAttempt, olderGens int) {
	byRun := map[RunID]int{}
	latest := map[int]int{} // repetition -> index in all
	for i := range recs {
		r := &recs[i]
		if r.Kind != KindRepetition || r.Arm != arm || (r.Type != RecRunStart && r.Type != RecRunEnd) {
			continue
		}
		if max(r.Gen, 1) != gen {
			if r.Type == RecRunStart {
				olderGens++
			}
			continue
		}
		idx, seen := byRun[r.Run]
		if r.Type == RecRunStart || !seen {
			idx = len(all)
			byRun[r.Run] = idx
			all = append(all, RepetitionAttempt{Start: r})
		}
		if r.Type == RecRunEnd {
			all[idx].End = r
		}
		cur, ok := latest[r.Index]
		switch {
		case !ok:
			latest[r.Index] = idx
		case r.Type == RecRunStart && r.Attempt > all[cur].Start.Attempt:
			latest[r.Index] = idx
		case r.Type == RecRunEnd && r.Attempt >= all[cur].Start.Attempt:
			latest[r.Index] = idx
		}
	}
	for _, idx := range latest {
		all[idx].Latest = true
	}
	return all, olderGens
}

// attempts is the latest attempt of every repetition of arm at gen.
func attempts(recs []Record, arm Arm, gen int) map[int]repAttempt {
	all, _ := repetitionAttempts(recs, arm, gen)
	m := map[int]repAttempt{}
	for _, a := range all {
		if a.Latest {
			m[a.Start.Index] = repAttempt{attempt: a.Start.Attempt, end: a.End}
		}
	}
	return m
}

// ArmResult is an arm's determinism outcome over its current artifact, from the digests.
func (h *History) ArmResult(arm Arm) ArmResult {
	return armResult(h.Records, arm, h.Gen(arm), h.Repetitions(arm))
}

// Parity decides byte parity from both arms' digests ("" while undecided).
func (h *History) Parity() (verdict, reason string) {
	return parityResult(h.ArmResult(Baseline), h.ArmResult(Candidate))
}

// PerfKey names the performance series of the current artifacts ("b<gen>-c<gen>").
func (h *History) PerfKey() string { return perfKey(h.Gen(Baseline), h.Gen(Candidate)) }

// PerfProgress is the performance series of the current artifacts as recorded.
type PerfProgress struct {
	Key       string
	Started   bool // its schedule was persisted
	Pairs     int  // valid pairs recorded
	Samples   int  // sample and warmup processes ended
	Footprint *FootprintResult
	Result    *PerfResult // nil until the stage decided
}

// Perf folds the performance series of the current artifacts.
func (h *History) Perf() PerfProgress {
	s := foldPerf(h.Records, h.PerfKey())
	return PerfProgress{Key: s.key, Started: s.schedule != nil, Pairs: len(s.pairs), Samples: len(s.samples),
		Footprint: s.footprint, Result: s.result}
}
