package engine

import (
	"encoding/json"
	"fmt"

	"kvparity/verdict"
)

// A History is the journal folded into a campaign's current state. It is the one reading of
// the journal: Add folds one record, and Open, resume, the summary, the performance stage's
// resume, the campaign report (which must work on a cleaned campaign whose binaries and trace
// window are gone, so it never calls Open) and the matrix's live status all read a History.
// A new record type is handled here, once.
//
// Verdicts are derived, never taken from verdict records: a revision's verdict from its
// repetitions' digests, byte parity from both arms', performance and footprint from their
// result records. A verdict record is an announcement (the workbench shows it when it
// arrives); a kill between a result and its announcement can no longer tear them apart.
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
	// Stages is every stage run recorded, oldest first (stage_records.go).
	Stages []StageRun

	reps      map[repKey]*repLog            // repetition attempts per arm and generation
	perturbed map[repKey]map[string]*repLog // perturbed repetitions per arm, generation and set
	preflight map[repKey]Preflight          // the single-core probe per arm and generation
	series    map[string]*perfSeries        // performance series per key ("b<gen>-c<gen>")
}

type repKey struct {
	arm Arm
	gen int
}

// A repLog is every attempt of one arm's repetitions on one artifact generation.
type repLog struct {
	all    []RepetitionAttempt
	byRun  map[RunID]int
	latest map[int]int // repetition -> index in all
}

// NewHistory is the fold of an empty journal over the frozen row.
func NewHistory(row *Row) *History {
	return &History{Row: row, Current: map[Arm]PinnedArtifact{}, PinSeq: map[Arm]int64{},
		Added: map[Arm]int{}, Gone: map[RunID]int64{}, reps: map[repKey]*repLog{}, series: map[string]*perfSeries{},
		perturbed: map[repKey]map[string]*repLog{}, preflight: map[repKey]Preflight{}}
}

// FoldJournal folds a campaign's journal records (oldest first) over its frozen row.
func FoldJournal(recs []Record, row *Row) *History {
	h := NewHistory(row)
	h.Records = make([]Record, 0, len(recs))
	for _, r := range recs {
		h.Add(r)
	}
	return h
}

// Add folds one record (records arrive in journal order).
func (h *History) Add(r Record) {
	h.Records = append(h.Records, r)
	switch r.Type {
	case RecPinned:
		if r.Artifact == nil {
			return
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
		h.Added[r.Arm] = max(h.Added[r.Arm], r.Index-h.Row.Determinism.Repetitions)
	case recReportsGone:
		for _, id := range r.Runs {
			h.Gone[id] = r.Seq
		}
	case RecRunStart, RecRunEnd:
		if r.Type == RecRunStart {
			h.Blocked = nil
		}
		switch r.Kind {
		case KindRepetition:
			h.repLog(r.Arm, max(r.Gen, 1)).add(r)
		case KindPerturbed:
			h.perturbedLog(r.Arm, max(r.Gen, 1), r.Variation).add(r)
		}
	case recPreflight:
		var p Preflight
		if json.Unmarshal(r.Data, &p) == nil {
			h.preflight[repKey{p.Arm, max(p.Gen, 1)}] = p
		}
	case RecBlocked:
		h.Blocked = append(h.Blocked, fmt.Sprintf("%s: %s", r.Stage, r.Reason))
	case RecStageStart, RecStageEnd:
		h.foldStage(r)
	case recPatch:
		var p DeterminismPatch
		if json.Unmarshal(r.Data, &p) == nil {
			h.Patch = &p
		}
	}
	if key := perfRecordKey(r); key != "" {
		h.perfSeries(key).add(r)
	}
}

func (h *History) repLog(arm Arm, gen int) *repLog {
	k := repKey{arm, gen}
	l := h.reps[k]
	if l == nil {
		l = &repLog{byRun: map[RunID]int{}, latest: map[int]int{}}
		h.reps[k] = l
	}
	return l
}

// add is the one rule for which attempt of a repetition counts: a run_start with a higher
// attempt supersedes the previous one; a run_end counts when its attempt is at least the
// latest started one.
func (l *repLog) add(rec Record) {
	r := &rec
	idx, seen := l.byRun[r.Run]
	if r.Type == RecRunStart || !seen {
		idx = len(l.all)
		l.byRun[r.Run] = idx
		l.all = append(l.all, RepetitionAttempt{Start: r})
	}
	if r.Type == RecRunEnd {
		l.all[idx].End = r
	}
	cur, ok := l.latest[r.Index]
	switch {
	case !ok:
		l.latest[r.Index] = idx
	case r.Type == RecRunStart && r.Attempt > l.all[cur].Start.Attempt:
		l.latest[r.Index] = idx
	case r.Type == RecRunEnd && r.Attempt >= l.all[cur].Start.Attempt:
		l.latest[r.Index] = idx
	}
}

// Gen is an arm's current artifact generation (1 before any pin is recorded).
func (h *History) Gen(arm Arm) int { return max(h.Current[arm].Gen, 1) }

// Repetitions is an arm's repetition count: the row's plus AddRepetition's.
func (h *History) Repetitions(arm Arm) int { return h.Row.Determinism.Repetitions + h.Added[arm] }

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
	return h.attemptsAt(arm, h.Gen(arm))
}

func (h *History) attemptsAt(arm Arm, gen int) (all []RepetitionAttempt, olderGens int) {
	for k, l := range h.reps {
		if k.arm != arm || k.gen == gen {
			continue
		}
		for _, a := range l.all {
			if a.Start.Type == RecRunStart {
				olderGens++
			}
		}
	}
	l := h.reps[repKey{arm, gen}]
	if l == nil {
		return nil, olderGens
	}
	all = append([]RepetitionAttempt{}, l.all...)
	for _, idx := range l.latest {
		all[idx].Latest = true
	}
	return all, olderGens
}

// latestAttempts is the latest attempt of every repetition of arm at gen.
func (h *History) latestAttempts(arm Arm, gen int) map[int]repAttempt {
	m := map[int]repAttempt{}
	if l := h.reps[repKey{arm, gen}]; l != nil {
		for rep, idx := range l.latest {
			a := l.all[idx]
			m[rep] = repAttempt{attempt: a.Start.Attempt, end: a.End}
		}
	}
	return m
}

// ArmResult is an arm's determinism outcome over its current artifact, from the digests.
func (h *History) ArmResult(arm Arm) ArmResult {
	return h.armResultAt(arm, h.Gen(arm), h.Repetitions(arm))
}

// Parity decides byte parity from both arms' digests (Undecided while either is unfinished).
func (h *History) Parity() verdict.Outcome {
	return parityResult(h.ArmResult(Baseline), h.ArmResult(Candidate))
}

// perfKey names the performance series of the current artifacts ("b<gen>-c<gen>").
func (h *History) perfKey() string { return perfKey(h.Gen(Baseline), h.Gen(Candidate)) }

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
	s := h.perfSeries(h.perfKey())
	return PerfProgress{Key: s.key, Started: s.schedule != nil, Pairs: len(s.pairs), Samples: len(s.samples),
		Footprint: s.footprint, Result: s.result}
}

func (h *History) perfSeries(key string) *perfSeries {
	s := h.series[key]
	if s == nil {
		s = newPerfSeries(key)
		h.series[key] = s
	}
	return s
}

// perfRecordKey is the performance series a record belongs to ("" for none).
func perfRecordKey(r Record) string {
	switch r.Type {
	case recPerfSchedule, RecPerfFootprint, RecPerfPair, recPerfInvalid, RecPerfResult:
	case RecRunStart, RecRunEnd:
		if r.Kind != KindWarmup && r.Kind != KindSample {
			return ""
		}
	default:
		return ""
	}
	var k struct {
		Key string `json:"key"`
	}
	if len(r.Data) == 0 || json.Unmarshal(r.Data, &k) != nil {
		return ""
	}
	return k.Key
}
