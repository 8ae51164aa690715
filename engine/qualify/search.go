package qualify

import (
	"fmt"
	"math"
	"slices"
)

// A Band is the pressure events a qualified row must show: inclusive, Min >= 1 (a row that
// never reaches the block-capacity edge proves nothing about it).
type Band struct{ Min, Max int }

func (b Band) String() string { return fmt.Sprintf("%d–%d", b.Min, b.Max) }

// A Class is where one probe's capacity lies against the band.
type Class string

const (
	// Flood: the capacity is too small: more pressure events than the band, or the run was
	// invalid for pressure (cycling, a growing count, stalled virtual time, requests never
	// readmitted or completed, a timeout).
	Flood Class = "flood"
	// Above: more events than the band, but bounded and valid: the capacity is still too small.
	Above Class = "above"
	// InBand: the band's count, and every rule of the record holds.
	InBand Class = "in band"
	// Below: fewer events than the band: the capacity is too large.
	Below Class = "below"
	// Stalled: the replay did not finish within its probe timeout, far longer than the probes
	// that finished: pathological replay-loop growth. Its side of the band is unknown, and
	// stalls come at single capacities (dynamo-bench 1.5.1's SGLang disaggregated row stalls at
	// 14,848 and 16,896 blocks but ends in 2 s at 14,080, 16,640 and 20,480), so the search
	// steps around it and stops after MaxStalls.
	Stalled Class = "stalled"
	// Broken: a rule that capacity cannot fix failed (routing, handoffs), or the run failed
	// for another reason: the search stops and says which.
	Broken Class = "broken"
)

// tooSmall reports whether a class asks for more capacity.
func (c Class) tooSmall() bool { return c == Flood || c == Above }

// A Point is one probe as the search sees it: a capacity, its count and class.
type Point struct {
	Capacity int    `json:"capacity"`
	Count    int    `json:"count"`
	Class    Class  `json:"class"`
	Why      string `json:"why,omitempty"` // a flood's or a broken run's reason
}

// A Search walks the capacity toward the band: it starts at Seed, grows or shrinks by Factor
// until one probe is on each side of the band, then bisects between the nearest two, on
// multiples of Step, for at most MaxProbes probes. The count need not fall monotonically with
// the capacity (a larger capacity changes routing, so the golden points' own probes go 11,
// 14, 6 over 5,000, 5,500, 6,000): the search keeps to the nearest bracket and stops when
// no untried multiple of Step lies inside it.
type Search struct {
	Band      Band
	Seed      int
	Step      int
	Factor    float64
	MaxProbes int
	Limit     int // the largest capacity probed
}

// DefaultStep is the probe grain for a seed: the largest power of two at most a 32nd of it
// (5,500 → 128, 11,264 → 256, 1,536 → 32), so the bracket closes within a few percent.
func DefaultStep(seed int) int {
	step := 1
	for step*2 <= seed/32 {
		step *= 2
	}
	return step
}

// NewSearch is the search from seed with the default grain and bounds.
func NewSearch(band Band, seed int) Search {
	return Search{Band: band, Seed: seed, Step: DefaultStep(seed), Factor: 1.5, MaxProbes: 20, Limit: seed * 64}
}

// MaxStalls ends a search whose probes stalled this often: each costs its whole timeout.
const MaxStalls = 3

// A Decision is the search's next move.
type Decision struct {
	Next   int    // the capacity to probe next (0 when Done)
	Done   bool   //
	Chosen *Point // the in-band probe the search settled on (nil: the band was not reached)
	Why    string // when Done without Chosen: why the band was not reached, with the nearest probes
}

// Next decides from the probes so far (in the order they ran).
func (s Search) Next(points []Point) Decision {
	if len(points) == 0 {
		return Decision{Next: s.Seed}
	}
	for i := range points {
		switch points[i].Class {
		case InBand:
			return Decision{Done: true, Chosen: &points[i]}
		case Broken:
			return Decision{Done: true, Why: fmt.Sprintf("the probe at %d failed for a reason capacity does not change: %s", points[i].Capacity, points[i].Why)}
		}
	}
	stalls := 0
	for _, p := range points {
		if p.Class == Stalled {
			stalls++
		}
	}
	if stalls >= MaxStalls {
		return Decision{Done: true, Why: fmt.Sprintf("%d probes stalled (pathological replay-loop growth): %s", stalls, s.nearest(points))}
	}
	if len(points) >= s.MaxProbes {
		return Decision{Done: true, Why: fmt.Sprintf("no capacity in %d probes gave %s: %s", len(points), s.Band, s.nearest(points))}
	}
	lo, hi := s.bracket(points)
	tried := func(c int) bool { return slices.ContainsFunc(points, func(p Point) bool { return p.Capacity == c }) }
	switch {
	case lo == 0: // every probe had too few events (or stalled): shrink below the smallest
		next := s.round(float64(hi) / s.Factor)
		if next >= hi {
			next = hi - s.Step
		}
		for tried(next) && next >= s.Step { // step around a stalled capacity
			next -= s.Step
		}
		if next < s.Step {
			return Decision{Done: true, Why: fmt.Sprintf("even %d blocks give fewer than %d: %s", hi, s.Band.Min, s.nearest(points))}
		}
		return Decision{Next: next}
	case hi == 0: // every probe had too much pressure: grow above the largest
		next := s.round(float64(lo) * s.Factor)
		if next <= lo {
			next = lo + s.Step
		}
		for tried(next) && next <= s.Limit { // step around a stalled capacity
			next += s.Step
		}
		if next > s.Limit {
			return Decision{Done: true, Why: fmt.Sprintf("up to %d blocks the pressure stays above %d: %s", lo, s.Band.Max, s.nearest(points))}
		}
		return Decision{Next: next}
	}
	mid := s.round(float64(lo+hi) / 2)
	for _, c := range []int{mid, mid - s.Step, mid + s.Step} {
		if c > lo && c < hi && !tried(c) {
			return Decision{Next: c}
		}
	}
	return Decision{Done: true, Why: fmt.Sprintf("no capacity gives %s: it jumps from %s to %s within one step of %d blocks", s.Band, s.describe(points, lo), s.describe(points, hi), s.Step)}
}

// bracket is the largest capacity with too much pressure (lo) and the smallest capacity
// above it with too little (hi); 0 when there is none.
func (s Search) bracket(points []Point) (lo, hi int) {
	for _, p := range points {
		if p.Class.tooSmall() && p.Capacity > lo {
			lo = p.Capacity
		}
	}
	for _, p := range points {
		if p.Class == Below && p.Capacity > lo && (hi == 0 || p.Capacity < hi) {
			hi = p.Capacity
		}
	}
	return lo, hi
}

// round is c on the step grid (at least one step).
func (s Search) round(c float64) int {
	return max(s.Step, int(math.Round(c/float64(s.Step)))*s.Step)
}

// nearest names the two probes either side of the band: the largest capacity with too much
// pressure and the smallest with too little.
func (s Search) nearest(points []Point) string {
	lo, hi := s.bracket(points)
	switch {
	case lo == 0:
		return "nearest probe " + s.describe(points, hi)
	case hi == 0:
		return "nearest probe " + s.describe(points, lo)
	}
	return "nearest probes " + s.describe(points, lo) + " and " + s.describe(points, hi)
}

func (s Search) describe(points []Point, capacity int) string {
	for _, p := range points {
		if p.Capacity == capacity {
			switch p.Class {
			case Flood:
				return fmt.Sprintf("%d at %d (a flood: %s)", p.Count, p.Capacity, p.Why)
			case Stalled:
				return fmt.Sprintf("a stall at %d (%s)", p.Capacity, p.Why)
			}
			return fmt.Sprintf("%d at %d", p.Count, p.Capacity)
		}
	}
	return fmt.Sprint(capacity)
}
