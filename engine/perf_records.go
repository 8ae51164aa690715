package engine

import (
	"fmt"
	"time"

	"kvparity/engine/instrument"
	"kvparity/report"
	"kvparity/stats"
)

// Journal records of the performance stage. Every sample process also has the core's run_start
// and run_end records (Kind warmup or sample), whose Data is a PerfRunData / PerfSample. A
// series is keyed by the artifact generations it measures, so a re-pinned arm starts a new
// series and an old one is never resumed on a different binary.
const (
	RecPerfSchedule  RecordType = "perf_schedule"    // the persisted schedule (Data: PerfScheduleData)
	RecPerfPair      RecordType = "perf_pair"        // a valid pair (Data: PerfPair)
	RecPerfInvalid   RecordType = "perf_invalidated" // a pair attempt invalidated (Data: PerfInvalidation)
	RecPerfFootprint RecordType = "perf_footprint"   // the footprint gate (Data: instrument.FootprintResult)
	RecPerfResult    RecordType = "perf_result"      // the final result (Data: PerfResultData)
)

// perfKey names the measured artifacts: "b<gen>-c<gen>".
func perfKey(baseGen, candGen int) string { return fmt.Sprintf("b%d-c%d", baseGen, candGen) }

type PerfScheduleData struct {
	Key      string         `json:"key"`
	Schedule stats.Schedule `json:"schedule"`
}

// PerfRunData is the Data of a perf run_start.
type PerfRunData struct {
	Key      string      `json:"key"`
	Order    stats.Order `json:"order,omitempty"`
	Position int         `json:"position,omitempty"` // 1 or 2 within its pair
}

// A PerfSample is one attempted perf process (warmup or pair member), valid or not. It is the
// Data of its run_end record and one entry of samples.json.
type PerfSample struct {
	Key       string               `json:"key"`
	Run       RunID                `json:"run"`
	Arm       Arm                  `json:"arm"`
	Warmup    bool                 `json:"warmup,omitempty"`
	Index     int                  `json:"index"` // warmup or pair index, 1-based
	Attempt   int                  `json:"attempt"`
	Order     stats.Order          `json:"order,omitempty"`
	Position  int                  `json:"position,omitempty"`
	Field     string               `json:"timing_field"`
	Proxy     bool                 `json:"timing_proxy,omitempty"`
	Ms        float64              `json:"ms,omitempty"` // the timing field; 0 when the sample has none
	StartedAt time.Time            `json:"started_at"`
	ExitCode  int                  `json:"exit_code"`
	Signal    string               `json:"signal,omitempty"`
	Error     string               `json:"error,omitempty"` // product failure, in words
	Env       instrument.SampleEnv `json:"env"`
	// Work is the fingerprint of what the timed run simulated (nil when its timing line has
	// none); WorkCheck what it was found equal to ("canonical", "samples", "" unchecked).
	Work      *report.WorkFingerprint `json:"work,omitempty"`
	WorkCheck string                  `json:"work_check,omitempty"`
}

// A PerfPair is one valid pair: r = candidate / baseline whatever the order.
type PerfPair struct {
	Key          string      `json:"key"`
	Pair         int         `json:"pair"`
	Attempt      int         `json:"attempt"`
	Order        stats.Order `json:"order"`
	BaselineMs   float64     `json:"baseline_ms"`
	CandidateMs  float64     `json:"candidate_ms"`
	Ratio        float64     `json:"ratio"`
	BaselineRun  RunID       `json:"baseline_run"`
	CandidateRun RunID       `json:"candidate_run"`
}

// A PerfInvalidation is one pair attempt that does not count. Environmental ones carry the
// predeclared condition; Interrupted ones were cut short by kvparity stopping mid-pair.
type PerfInvalidation struct {
	Key         string      `json:"key"`
	Pair        int         `json:"pair"`
	Attempt     int         `json:"attempt"`
	Order       stats.Order `json:"order"`
	Reason      string      `json:"reason"`
	Causes      []string    `json:"causes,omitempty"` // each condition once, without its run ("competing load on CPU 1")
	Runs        []RunID     `json:"runs"`
	Interrupted bool        `json:"interrupted,omitempty"`

	seq int64 // the journal record's sequence number (not serialized)
}

type PerfResultData struct {
	Key    string      `json:"key"`
	Result *PerfResult `json:"result"`
}

// perfSeries is the journal's view of one perf series (one key).
type perfSeries struct {
	key       string
	schedule  *stats.Schedule
	footprint *instrument.FootprintResult
	warmups   map[Arm]map[int]*PerfSample // successful warmups
	warmupAtt map[Arm]map[int]int         // latest warmup attempt
	samples   []PerfSample                // every ended sample process, in order
	pairs     map[int]*PerfPair
	pairAtt   map[int]int // latest started attempt per pair
	invalid   []PerfInvalidation
	result    *PerfResult
}

func newPerfSeries(key string) *perfSeries {
	return &perfSeries{key: key, warmups: map[Arm]map[int]*PerfSample{Baseline: {}, Candidate: {}},
		warmupAtt: map[Arm]map[int]int{Baseline: {}, Candidate: {}}, pairs: map[int]*PerfPair{}, pairAtt: map[int]int{}}
}

// keyedSeries is the series a record's payload names (nil for a payload without a key).
func (h *History) keyedSeries(key string) *perfSeries {
	if key == "" {
		return nil
	}
	return h.perfSeries(key)
}

// The performance stage's records, each folded into the series its payload names.
func init() {
	defineRecord(RecPerfSchedule, func(h *History, r *Record, d *PerfScheduleData) {
		if s := h.keyedSeries(d.Key); s != nil {
			s.schedule = &d.Schedule
		}
	}, nil)
	defineRecord(RecPerfFootprint, func(h *History, r *Record, d *instrument.FootprintResult) {
		if s := h.keyedSeries(d.Key); s != nil {
			s.footprint = d
		}
	}, nil)
	defineRecord(RecPerfPair, func(h *History, r *Record, d *PerfPair) {
		if s := h.keyedSeries(d.Key); s != nil {
			s.pairs[d.Pair] = d
		}
		h.progress.pairDone(h.row, d)
	}, func(c *Campaign, h *History, r *Record, pair *PerfPair) {
		s := h.perfSeries(pair.Key)
		c.emit(SampleDone{Run: pair.BaselineRun, Arm: Baseline, Index: pair.Pair, Attempt: pair.Attempt, Ms: pair.BaselineMs})
		c.emit(SampleDone{Run: pair.CandidateRun, Arm: Candidate, Index: pair.Pair, Attempt: pair.Attempt, Ms: pair.CandidateMs})
		c.emit(PairEvent(*pair, len(s.pairs), c.row.Perf.Pairs))
		c.emit(runningSummary(s, c.row, c.row.Perf.WarmupsPerArm))
	})
	defineRecord(RecPerfInvalid, func(h *History, r *Record, d *PerfInvalidation) {
		if s := h.keyedSeries(d.Key); s != nil {
			inv := *d
			inv.seq = r.Seq
			s.invalid = append(s.invalid, inv)
		}
	}, func(c *Campaign, h *History, r *Record, inv *PerfInvalidation) { c.emit(InvalidatedEvent(*inv)) })
	defineRecord(RecPerfResult, func(h *History, r *Record, d *PerfResultData) {
		if s := h.keyedSeries(d.Key); s != nil {
			s.result = d.Result
			// The scope is what the recorded samples show, also for a result written before
			// samples carried work fingerprints (it then said seeded routing unconditionally).
			if s.result != nil {
				s.result.Scope = workScope(s.result.Samples)
			}
		}
	}, func(c *Campaign, h *History, r *Record, d *PerfResultData) {
		if d.Result != nil {
			c.emit(FinalSummary(d.Result, c.row))
			// The result carries its verdict: announce it even if the verdict record was lost.
			c.emit(StageVerdict{Stage: StagePerf, Verdict: d.Result.Verdict, Reason: d.Result.Reason})
		}
	})
	perfRuns := []RunKind{KindWarmup, KindSample}
	defineRunData(RecRunStart, perfRuns, func(h *History, r *Record, d *PerfRunData) {
		s := h.keyedSeries(d.Key)
		if s == nil {
			return
		}
		switch r.Kind {
		case KindWarmup:
			s.warmupAtt[r.Arm][r.Index] = max(s.warmupAtt[r.Arm][r.Index], r.Attempt)
		case KindSample:
			s.pairAtt[r.Index] = max(s.pairAtt[r.Index], r.Attempt)
		}
	})
	defineRunData(RecRunEnd, perfRuns, func(h *History, r *Record, smp *PerfSample) {
		h.foldSample(r, smp)
		s := h.keyedSeries(smp.Key)
		if s == nil {
			return
		}
		s.samples = append(s.samples, *smp)
		if smp.Warmup && smp.Error == "" {
			s.warmups[smp.Arm][smp.Index] = smp
		}
	})
}

// invalidations counts a pair's environmental invalidations (interruptions do not count).
func (s *perfSeries) invalidations(pair int) int {
	n := 0
	for _, inv := range s.invalid {
		if inv.Pair == pair && !inv.Interrupted {
			n++
		}
	}
	return n
}

// settled reports whether a pair attempt already has a pair or invalidation record.
func (s *perfSeries) settled(pair, attempt int) bool {
	if p := s.pairs[pair]; p != nil && p.Attempt == attempt {
		return true
	}
	for _, inv := range s.invalid {
		if inv.Pair == pair && inv.Attempt == attempt {
			return true
		}
	}
	return false
}

// ratios returns the valid pairs' ratios and orders in pair order, up to the first missing pair.
func (s *perfSeries) ratios(n int) ([]float64, []stats.Order) {
	var r []float64
	var o []stats.Order
	for i := 1; i <= n; i++ {
		p := s.pairs[i]
		if p == nil {
			break
		}
		r = append(r, p.Ratio)
		o = append(o, p.Order)
	}
	return r, o
}
