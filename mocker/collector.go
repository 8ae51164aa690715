package mocker

import (
	"math"
	"sort"
)

var unset = math.NaN()

func isSet(f float64) bool { return !math.IsNaN(f) }

type routeEntry struct {
	pool         string
	queued       bool
	enteredAt    float64
	releasedAt   float64
	waitMs       float64
	workerID     int
	overlapToken int
}

type admissionEntry struct {
	ordinal, poolOrdinal int
	pool                 string
	at                   float64
	reused               int
}

// A record is one request's per_request entry (the canonical record's, aisimulate-core
// canonical.rs), filled as the replay runs.
type record struct {
	uuid    string
	req     *request
	arrival float64

	firstAdmit, terminalAt       float64
	firstTok, secondTok, lastTok float64
	nTokens                      int
	gapSum                       float64

	reused, firstReused int
	hasReused           bool
	prefillWorker       int // −1: null
	decodeWorker        int
	prefillAdmit        float64
	sourceHeld          float64
	destReserved        float64
	destActivated       float64
	decodeAdmit         float64
	sourceReleased      float64
	decodeReused        int // −1: null
	prefillOverlap      int // −1: null
	decodeOverlap       int // −1: null
	routing             []routeEntry
	admissions          []admissionEntry
	poolAdmits          [3]int
	pressure            []int
	status              string
}

// collector is the TraceCollector: records, streamed inter-token statistics and the
// provisioned-worker integral.
type collector struct {
	records   []*record
	completed int
	disagg    bool
	uuid      func(ordinal int) string

	itl, otpu          streamStat
	lastGap, lastLnGap float64

	workers     int     // currently provisioned aggregated workers
	lastScaleAt float64 // start of the current provisioning segment
	workerMs    float64 // ∫ provisioned workers d(virtual ms) up to lastScaleAt
}

func newCollector(n int, disagg bool, workers int) *collector {
	return &collector{records: make([]*record, 0, n), disagg: disagg, uuid: ordinalUUID, workers: workers, itl: newStreamStat(), otpu: newStreamStat()}
}

func (c *collector) newRecord(r *request) *record {
	rec := &record{
		uuid: c.uuid(r.ord), req: r, arrival: r.arrival,
		firstAdmit: unset, terminalAt: unset, firstTok: unset, secondTok: unset, lastTok: unset,
		prefillWorker: -1, decodeWorker: -1,
		prefillAdmit: unset, sourceHeld: unset, destReserved: unset, destActivated: unset,
		decodeAdmit: unset, sourceReleased: unset, decodeReused: -1, prefillOverlap: -1, decodeOverlap: -1,
	}
	c.records = append(c.records, rec)
	return rec
}

func (c *collector) queued(q *seq, now float64) {
	q.rec.routing = append(q.rec.routing, routeEntry{pool: q.pool, queued: true, enteredAt: now, releasedAt: unset, workerID: -1})
}

func (c *collector) routed(q *seq, now float64, workerID, overlapTokens int, released bool) {
	rec := q.rec
	if released {
		// complete the queued entry of this pool
		for i := len(rec.routing) - 1; i >= 0; i-- {
			e := &rec.routing[i]
			if e.pool == q.pool && e.queued && !isSet(e.releasedAt) {
				e.releasedAt, e.waitMs, e.workerID, e.overlapToken = now, now-e.enteredAt, workerID, overlapTokens
				break
			}
		}
	} else {
		rec.routing = append(rec.routing, routeEntry{pool: q.pool, enteredAt: unset, releasedAt: unset, workerID: workerID, overlapToken: overlapTokens})
	}
	switch q.pool {
	case poolPrefill:
		rec.prefillWorker, rec.prefillOverlap = workerID, overlapTokens
	case poolDecode:
		rec.decodeWorker, rec.decodeOverlap = workerID, overlapTokens
	default:
		// aggregated serving reports its worker as the decode worker (decode-visible report)
		rec.decodeWorker, rec.prefillOverlap = workerID, overlapTokens
	}
}

func poolIndex(pool string) int {
	switch pool {
	case poolPrefill:
		return 1
	case poolDecode:
		return 2
	}
	return 0
}

func (c *collector) admission(q *seq, now float64, reused int) {
	rec := q.rec
	pi := poolIndex(q.pool)
	rec.admissions = append(rec.admissions, admissionEntry{ordinal: len(rec.admissions), poolOrdinal: rec.poolAdmits[pi], pool: q.pool, at: now, reused: reused})
	rec.poolAdmits[pi]++
	if !isSet(rec.firstAdmit) {
		rec.firstAdmit = now
	}
	switch q.pool {
	case poolDecode:
		// decode reuse is reported separately (decode_reused_input_tokens)
		if !isSet(rec.decodeAdmit) {
			rec.decodeAdmit = now
		}
		return
	case poolPrefill:
		if !isSet(rec.prefillAdmit) {
			rec.prefillAdmit = now
		}
	}
	if !rec.hasReused {
		rec.firstReused, rec.hasReused = reused, true
	}
	rec.reused = max(rec.reused, reused)
}

func (c *collector) sourceHeld(rec *record, now float64)           { rec.sourceHeld = now }
func (c *collector) destinationActivated(rec *record, now float64) { rec.destActivated = now }
func (c *collector) sourceReleased(rec *record, now float64)       { rec.sourceReleased = now }
func (c *collector) destinationReserved(rec *record, now float64, reused int) {
	rec.destReserved, rec.decodeReused = now, reused
}

func (c *collector) token(rec *record, now float64) {
	if rec.nTokens == 0 {
		rec.firstTok = now
	} else {
		gap := now - rec.lastTok
		rec.gapSum += gap
		// tokens of one pass mostly share their gap, so the logarithm is memoised
		if gap != c.lastGap {
			c.lastGap, c.lastLnGap = gap, math.Log(gap)
		}
		c.itl.addLn(gap, c.lastLnGap)
		if gap > 0 {
			c.otpu.addLn(1000/gap, ln1000-c.lastLnGap)
		}
		if rec.nTokens == 1 {
			rec.secondTok = now
		}
	}
	rec.lastTok = now
	rec.nTokens++
}

func (c *collector) terminal(rec *record, now float64, status string) {
	rec.terminalAt, rec.status = now, status
	if status == "completed" {
		c.completed++
	}
}

func (c *collector) scaleTo(now float64, workers int) {
	c.workerMs += float64(c.workers) * (now - c.lastScaleAt)
	c.workers, c.lastScaleAt = workers, now
}

// ordinalUUID is Uuid::from_u128(ordinal+1), lowercase and hyphenated.
func ordinalUUID(ord int) string {
	const hex = "0123456789abcdef"
	var b [36]byte
	v := uint64(ord + 1)
	pos := 35
	for i := 0; i < 32; i++ {
		if pos == 8 || pos == 13 || pos == 18 || pos == 23 {
			b[pos] = '-'
			pos--
		}
		b[pos] = hex[v&15]
		v >>= 4
		pos--
	}
	return string(b[:])
}

// dist is an exact distribution summary: mean, population std, min, max, and the element at
// rank round((n−1)·p/100) of the sorted values.
type dist struct{ mean, min, max, median, p75, p90, p95, p99, std float64 }

func exactDist(v []float64) dist {
	if len(v) == 0 {
		return dist{}
	}
	sort.Float64s(v)
	n := len(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(n)
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	at := func(p float64) float64 { return v[int(math.Round(float64(n-1)*p/100))] }
	return dist{mean: mean, min: v[0], max: v[n-1], median: at(50), p75: at(75), p90: at(90), p95: at(95), p99: at(99), std: math.Sqrt(ss / float64(n))}
}

// streamStat is a streamed statistic with exact mean/min/max/std and DDSketch percentiles
// (relative accuracy 0.001, at most 32,768 bins, as Dynamo's TraceCollector::finish). Bins are a
// dense slice over the key range seen so far, so adding a value never hashes.
type streamStat struct {
	n          int
	sum, sumSq float64
	lo, hi     float64
	zeros      int
	bins       []int // bins[i] counts key minKey+i
	minKey     int
	invLnGamma float64
	gamma      float64
}

const (
	sketchAlpha   = 0.001
	sketchMaxBins = 32768
)

func newStreamStat() streamStat {
	gamma := (1 + sketchAlpha) / (1 - sketchAlpha)
	return streamStat{invLnGamma: 1 / math.Log(gamma), gamma: gamma, lo: math.Inf(1), hi: math.Inf(-1)}
}

var ln1000 = math.Log(1000)

// addLn adds x whose natural logarithm lnx the caller already has.
func (s *streamStat) addLn(x, lnx float64) {
	s.n++
	s.sum += x
	s.sumSq += x * x
	if x < s.lo {
		s.lo = x
	}
	if x > s.hi {
		s.hi = x
	}
	if x <= 1e-9 {
		s.zeros++
		return
	}
	k := int(math.Ceil(lnx * s.invLnGamma))
	switch {
	case len(s.bins) == 0:
		s.bins, s.minKey = make([]int, 1, 1024), k
	case k < s.minKey:
		grow := s.minKey - k
		nb := make([]int, grow+len(s.bins), grow+len(s.bins)+1024)
		copy(nb[grow:], s.bins)
		s.bins, s.minKey = nb, k
	case k-s.minKey >= len(s.bins):
		s.bins = append(s.bins, make([]int, k-s.minKey+1-len(s.bins))...)
	}
	s.bins[k-s.minKey]++
	if len(s.bins) > sketchMaxBins {
		// DDSketch collapses its lowest bins when it runs out of bins
		extra := len(s.bins) - sketchMaxBins
		for i := 0; i < extra; i++ {
			s.bins[extra] += s.bins[i]
		}
		s.bins = s.bins[extra:]
		s.minKey += extra
	}
}

func (s *streamStat) dist() dist {
	if s.n == 0 {
		return dist{}
	}
	n := float64(s.n)
	mean := s.sum / n
	v := s.sumSq/n - mean*mean
	if v < 0 {
		v = 0
	}
	quant := func(p float64) float64 {
		rank := int(math.Round(float64(s.n-1) * p / 100))
		q := 1.0
		if s.n > 1 && rank < s.n-1 {
			q = (float64(rank) + 0.5) / float64(s.n-1)
		}
		target := q * float64(s.n-1)
		cum := float64(s.zeros)
		if cum > target {
			return 0
		}
		for i, c := range s.bins {
			cum += float64(c)
			if c > 0 && cum > target {
				return 2 * math.Pow(s.gamma, float64(s.minKey+i)) / (1 + s.gamma)
			}
		}
		return s.hi
	}
	return dist{mean: mean, min: s.lo, max: s.hi, median: quant(50), p75: quant(75), p90: quant(90), p95: quant(95), p99: quant(99), std: math.Sqrt(v)}
}
