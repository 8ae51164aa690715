package engine

import (
	"fmt"
	"time"

	"kvparity/engine/instrument"
	"kvparity/verdict"
)

// A History is the journal folded into a campaign's current state. It is the one reader of
// journal records: Add folds one record, and Open, resume, the summary, the stages' resume,
// the campaign report and clean (which must work on a cleaned campaign whose binaries and
// trace window are gone, so they never call Open) and the matrix's live status all ask a
// History. A record type is folded by its definition (records.go), once.
//
// Verdicts are derived, never taken from verdict records: a revision's verdict from its
// repetitions' digests, byte parity from both arms', performance and footprint from their
// result records. A verdict record is an announcement (the workbench shows it when it
// arrives); a kill between a result and its announcement can no longer tear them apart.
type History struct {
	row *Row
	// pins is every pinned record, oldest first; Current is each arm's latest generation with
	// Stale set when a stale record followed it; pinSeq is the journal seq of that pin.
	pins    []PinnedArtifact
	Current map[Arm]PinnedArtifact
	pinSeq  map[Arm]int64
	// Added counts the repetitions AddRepetition added per arm, beyond the row's.
	Added map[Arm]int
	// Gone maps a run whose full report was deleted (it matched) to the reports_gone seq.
	Gone map[RunID]int64
	// blocked lists "<stage>: <reason>" of blocks recorded since the last run started (a later
	// run retried whatever blocked the row before).
	blocked []string
	// blocks is blocked with each block's stage apart: what Inputs hands stage 8, so the
	// verdict a blocked stage decides reads BLOCKED.
	blocks []stageBlock
	// diagnoses are the recorded diagnoses of two differing repetitions of an arm.
	diagnoses map[diagnosisKey]string
	// Patch is the row's declared determinism patch as the campaign recorded it (nil: none).
	Patch *DeterminismPatch
	// stages is every stage run recorded, oldest first (stage_records.go).
	stages []recordedStage

	pinSeqs   []int64                       // the journal seq of each of Pins
	span      JournalSpan                   // how much journal was folded
	last      map[RecordType]Record         // each type's latest record
	runs      []RecordedRun                 // every run recorded, in journal order
	runIdx    map[RunID]int                 // each run id's latest entry in runs
	reps      map[repKey]*repLog            // repetition attempts per arm and generation
	perturbed map[repKey]map[string]*repLog // perturbed repetitions per arm, generation and set
	preflight map[repKey]Preflight          // the single-core probe per arm and generation
	series    map[string]*perfSeries        // performance series per key ("b<gen>-c<gen>")
	progress  progress                      // the current stage's progress (progress.go)
	kinds     map[RecordType]any            // what record kinds' files fold (kindState)
}

type repKey struct {
	arm Arm
	gen int
}

// NewHistory is the fold of an empty journal over the frozen row.
func NewHistory(row *Row) *History {
	return &History{row: row, Current: map[Arm]PinnedArtifact{}, pinSeq: map[Arm]int64{},
		Added: map[Arm]int{}, Gone: map[RunID]int64{}, reps: map[repKey]*repLog{}, series: map[string]*perfSeries{},
		perturbed: map[repKey]map[string]*repLog{}, preflight: map[repKey]Preflight{}, diagnoses: map[diagnosisKey]string{},
		last: map[RecordType]Record{}, runIdx: map[RunID]int{}, progress: newProgress(), kinds: map[RecordType]any{}}
}

// FoldJournal folds a campaign's journal records (oldest first) over its frozen row.
func FoldJournal(recs []Record, row *Row) *History {
	h := NewHistory(row)
	for _, r := range recs {
		h.Add(r)
	}
	return h
}

// Add folds one record (records arrive in journal order).
func (h *History) Add(r Record) { h.add(r) }

// A folded record is one record as History.add decoded it, for the replay of its events.
type folded struct {
	rec  *Record
	kind *recordKind
	data any
}

// add folds r by its definitions: its type's fold, then (a run record) its run kind's payload.
func (h *History) add(r Record) folded {
	if h.span.Records == 0 {
		h.span.First = r.At
	}
	h.span.Records, h.span.LastSeq, h.span.Last = h.span.Records+1, r.Seq, r.At
	h.last[r.Type] = r
	core, runKind := kindsOf(&r)
	f := folded{rec: &r, kind: core, data: payloadOf(core, &r)}
	if applies(core, f.data) && core.fold != nil {
		core.fold(h, &r, f.data)
	}
	if d := payloadOf(runKind, &r); d != nil && runKind.fold != nil {
		runKind.fold(h, &r, d)
	}
	return f
}

// applies reports whether a definition's fold and replay run for a record: always for a plain
// record, only with a decoded payload for one that carries a payload.
func applies(k *recordKind, data any) bool { return k != nil && (k.decode == nil || data != nil) }

// A JournalSpan is how much journal a History folded.
type JournalSpan struct {
	Records     int
	LastSeq     int64
	First, Last time.Time // the first and last records' times (zero for an empty journal)
}

// Span is the extent of the journal folded.
func (h *History) Span() JournalSpan { return h.span }

// Last is the latest record of type t (ok false when none was folded): for a record type
// another package defines and folds no further, such as the matrix's job records.
func (h *History) Last(t RecordType) (Record, bool) {
	r, ok := h.last[t]
	return r, ok
}

// CheckArtifacts cross-checks artifacts.json (at path, holding pins) against the journal's
// pinned records: a report built on two disagreeing records of the same artifact would be
// untrustworthy. The error names the entry and the journal seq.
func (h *History) CheckArtifacts(path string, pins []PinnedArtifact) error {
	for k, r := range h.pins {
		found := false
		for i, p := range pins {
			if p.Arm == r.Arm && p.Gen == r.Gen {
				found = true
				if p.SHA256 != r.SHA256 {
					return fmt.Errorf("%s: /artifacts/%d/sha256 is %s but the journal (seq %d) pinned %s %s gen %d as %s",
						path, i, p.SHA256, h.pinSeqs[k], r.Arm, r.Path, r.Gen, r.SHA256)
				}
			}
		}
		if !found {
			return fmt.Errorf("%s: no entry for %s generation %d, which the journal pinned (seq %d)", path, r.Arm, r.Gen, h.pinSeqs[k])
		}
	}
	return nil
}

// A RecordedRun is one process the journal recorded: its run_start and its run_end.
type RecordedRun struct {
	Start *Record // nil when only its end was recorded
	End   *Record // nil while it runs, or when kvparity stopped or died during it
	// Sample is the run_end's performance sample (warmup and sample runs; nil for others).
	Sample *PerfSample
}

// Failed reports whether the run ended with a product failure (its own, or its sample's).
func (r RecordedRun) Failed() bool {
	return r.End != nil && (r.End.Error != "" || (r.Sample != nil && r.Sample.Error != ""))
}

// Runs is every run the journal recorded, in the order each started (or, without a start,
// ended). A run_start supersedes an earlier start of the same run id that has no end.
func (h *History) Runs() []RecordedRun { return append([]RecordedRun(nil), h.runs...) }

// foldRun adds a run record to the runs index.
func (h *History) foldRun(r *Record) {
	i, ok := h.runIdx[r.Run]
	if r.Type == RecRunStart || !ok || h.runs[i].End != nil {
		i = len(h.runs)
		h.runIdx[r.Run] = i
		h.runs = append(h.runs, RecordedRun{})
	}
	if r.Type == RecRunStart {
		h.runs[i].Start = r
	} else {
		h.runs[i].End = r
	}
}

// foldSample attaches a perf run_end's sample to its run.
func (h *History) foldSample(r *Record, smp *PerfSample) {
	if i, ok := h.runIdx[r.Run]; ok {
		h.runs[i].Sample = smp
	}
}

// openRuns is the run_start of every run without a recorded end (each run id's latest start):
// it was running when the journal was read, or its kvparity died during it.
func (h *History) openRuns() []Record {
	var open []Record
	for i, r := range h.runs {
		if r.Start != nil && r.End == nil && h.runIdx[r.Start.Run] == i {
			open = append(open, *r.Start)
		}
	}
	return open
}

// StartedRun is the latest run_start of run id (ok false when none was recorded).
func (h *History) StartedRun(id RunID) (Record, bool) {
	for i := len(h.runs) - 1; i >= 0; i-- {
		if s := h.runs[i].Start; s != nil && s.Run == id {
			return *s, true
		}
	}
	return Record{}, false
}

// nextAttempt is the attempt number a new run of kind on arm gets: one past the highest
// started, at generation gen (0: at any generation).
func (h *History) nextAttempt(kind RunKind, arm Arm, gen int) int {
	attempt := 1
	for _, r := range h.runs {
		if s := r.Start; s != nil && s.Kind == kind && s.Arm == arm && (gen == 0 || max(s.Gen, 1) == gen) {
			attempt = max(attempt, s.Attempt+1)
		}
	}
	return attempt
}

// kindState is what the file of record kind t folds, an S created on first use: a kind keeps
// its state here (and its query methods in its own file), so a new kind needs no History field.
func kindState[S any](h *History, t RecordType) *S {
	if s, ok := h.kinds[t].(*S); ok {
		return s
	}
	s := new(S)
	h.kinds[t] = s
	return s
}

// A repLog is every attempt of one arm's repetitions on one artifact generation.
type repLog struct {
	all    []RepetitionAttempt
	byRun  map[RunID]int
	latest map[int]int // repetition -> index in all
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
func (h *History) Repetitions(arm Arm) int { return h.row.Determinism.Repetitions + h.Added[arm] }

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

// LatestAttempts is the latest attempt of every repetition of arm at gen.
func (h *History) LatestAttempts(arm Arm, gen int) map[int]RepAttempt {
	m := map[int]RepAttempt{}
	if l := h.reps[repKey{arm, gen}]; l != nil {
		for rep, idx := range l.latest {
			a := l.all[idx]
			m[rep] = RepAttempt{Attempt: a.Start.Attempt, End: a.End}
		}
	}
	return m
}

// ArmResult is an arm's determinism outcome over its current artifact, from the digests.
func (h *History) ArmResult(arm Arm) ArmResult {
	return h.ArmResultAt(arm, h.Gen(arm), h.Repetitions(arm))
}

// Parity decides byte parity from both arms' digests (Undecided while either is unfinished).
func (h *History) Parity() verdict.Outcome {
	return ParityResult(h.ArmResult(Baseline), h.ArmResult(Candidate))
}

// perfKey names the performance series of the current artifacts ("b<gen>-c<gen>").
func (h *History) perfKey() string { return perfKey(h.Gen(Baseline), h.Gen(Candidate)) }

// PerfProgress is the performance series of the current artifacts as recorded.
type PerfProgress struct {
	key       string
	Started   bool // its schedule was persisted
	pairs     int  // valid pairs recorded
	samples   int  // sample and warmup processes ended
	Footprint *instrument.FootprintResult
	Result    *PerfResult // nil until the stage decided
	Scope     string      // what the timed samples so far simulated (workScope)
}

// Perf folds the performance series of the current artifacts.
func (h *History) Perf() PerfProgress {
	s := h.perfSeries(h.perfKey())
	return PerfProgress{key: s.key, Started: s.schedule != nil, pairs: len(s.pairs), samples: len(s.samples),
		Footprint: s.footprint, Result: s.result, Scope: workScope(s.samples)}
}

func (h *History) perfSeries(key string) *perfSeries {
	s := h.series[key]
	if s == nil {
		s = newPerfSeries(key)
		h.series[key] = s
	}
	return s
}
