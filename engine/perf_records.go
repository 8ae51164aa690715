package engine

import (
	"encoding/json"
	"fmt"
	"time"

	"kvparity/stats"
)

// Journal records of the performance stage. Every sample process also has the core's run_start
// and run_end records (Kind warmup or sample), whose Data is a perfRunData / PerfSample. A
// series is keyed by the artifact generations it measures, so a re-pinned arm starts a new
// series and an old one is never resumed on a different binary.
const (
	recPerfSchedule  RecordType = "perf_schedule"    // the persisted schedule (Data: perfScheduleData)
	RecPerfPair      RecordType = "perf_pair"        // a valid pair (Data: PerfPair)
	recPerfInvalid   RecordType = "perf_invalidated" // a pair attempt invalidated (Data: PerfInvalidation)
	RecPerfFootprint RecordType = "perf_footprint"   // the footprint gate (Data: FootprintResult)
	RecPerfResult    RecordType = "perf_result"      // the final result (Data: perfResultData)
)

// perfKey names the measured artifacts: "b<gen>-c<gen>".
func perfKey(baseGen, candGen int) string { return fmt.Sprintf("b%d-c%d", baseGen, candGen) }

type perfScheduleData struct {
	Key      string         `json:"key"`
	Schedule stats.Schedule `json:"schedule"`
}

// perfRunData is the Data of a perf run_start.
type perfRunData struct {
	Key      string      `json:"key"`
	Order    stats.Order `json:"order,omitempty"`
	Position int         `json:"position,omitempty"` // 1 or 2 within its pair
}

// A PerfSample is one attempted perf process (warmup or pair member), valid or not. It is the
// Data of its run_end record and one entry of samples.json.
type PerfSample struct {
	Key       string      `json:"key"`
	Run       RunID       `json:"run"`
	Arm       Arm         `json:"arm"`
	Warmup    bool        `json:"warmup,omitempty"`
	Index     int         `json:"index"` // warmup or pair index, 1-based
	Attempt   int         `json:"attempt"`
	Order     stats.Order `json:"order,omitempty"`
	Position  int         `json:"position,omitempty"`
	Field     string      `json:"timing_field"`
	Proxy     bool        `json:"timing_proxy,omitempty"`
	Ms        float64     `json:"ms,omitempty"` // the timing field; 0 when the sample has none
	StartedAt time.Time   `json:"started_at"`
	ExitCode  int         `json:"exit_code"`
	Signal    string      `json:"signal,omitempty"`
	Error     string      `json:"error,omitempty"` // product failure, in words
	Env       SampleEnv   `json:"env"`
}

// SampleEnv is the environmental evidence of one sample.
type SampleEnv struct {
	CPU               int        `json:"cpu"`
	AffinityChecks    int        `json:"affinity_checks"` // read-backs of every thread's Cpus_allowed_list
	AffinityViolation string     `json:"affinity_violation,omitempty"`
	ForcedBy          string     `json:"forced_by,omitempty"` // the test hook that caused the violation
	WallMs            float64    `json:"wall_ms"`             // the load window: first to last reading while the sample lived
	BusyMs            float64    `json:"cpu_busy_ms"`         // measured CPU busy over the window (/proc/stat)
	SampleCPUMs       float64    `json:"sample_cpu_ms"`       // the sample's own utime+stime over the window (/proc/<pid>/stat)
	CompetingMs       float64    `json:"competing_ms"`        // busy minus the sample's own time
	CompetingLimitMs  float64    `json:"competing_limit_ms"`
	SampleRusageMs    float64    `json:"sample_rusage_ms"` // the sample's whole user+system time (rusage)
	Load              string     `json:"load,omitempty"`   // why competing load was not measured, when it was not
	Telemetry         string     `json:"telemetry"`        // "unavailable" or "available"
	Before            *Telemetry `json:"telemetry_before,omitempty"`
	After             *Telemetry `json:"telemetry_after,omitempty"`
	Invalid           string     `json:"invalid,omitempty"` // the predeclared condition that fired
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

type perfResultData struct {
	Key    string      `json:"key"`
	Result *PerfResult `json:"result"`
}

func marshalData(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("engine: perf record does not marshal: %v", err)) // plain structs always do
	}
	return b
}

// perfSeries is the journal's view of one perf series (one key).
type perfSeries struct {
	key       string
	schedule  *stats.Schedule
	footprint *FootprintResult
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

// add folds one record of this series (History.Add routes them by key).
func (s *perfSeries) add(r Record) {
	switch r.Type {
	case recPerfSchedule:
		var d perfScheduleData
		if json.Unmarshal(r.Data, &d) == nil {
			s.schedule = &d.Schedule
		}
	case RecPerfFootprint:
		var f FootprintResult
		if json.Unmarshal(r.Data, &f) == nil {
			s.footprint = &f
		}
	case RecRunStart:
		switch r.Kind {
		case KindWarmup:
			s.warmupAtt[r.Arm][r.Index] = max(s.warmupAtt[r.Arm][r.Index], r.Attempt)
		case KindSample:
			s.pairAtt[r.Index] = max(s.pairAtt[r.Index], r.Attempt)
		}
	case RecRunEnd:
		var smp PerfSample
		if json.Unmarshal(r.Data, &smp) != nil {
			return
		}
		s.samples = append(s.samples, smp)
		if smp.Warmup && smp.Error == "" {
			s.warmups[smp.Arm][smp.Index] = &smp
		}
	case RecPerfPair:
		var p PerfPair
		if json.Unmarshal(r.Data, &p) == nil {
			s.pairs[p.Pair] = &p
		}
	case recPerfInvalid:
		var inv PerfInvalidation
		if json.Unmarshal(r.Data, &inv) == nil {
			inv.seq = r.Seq
			s.invalid = append(s.invalid, inv)
		}
	case RecPerfResult:
		var d perfResultData
		if json.Unmarshal(r.Data, &d) == nil {
			s.result = d.Result
		}
	}
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
