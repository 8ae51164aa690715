package qualify

import (
	"strings"
	"testing"
)

// walk runs the search against a model of count by capacity (flood below floodBelow) and
// returns the probes it made and its final decision.
func walk(t *testing.T, s Search, count func(int) int, floodBelow int) ([]Point, Decision) {
	t.Helper()
	var pts []Point
	for range 100 {
		d := s.Next(pts)
		if d.Done {
			return pts, d
		}
		for _, p := range pts {
			if p.Capacity == d.Next {
				t.Fatalf("probed %d twice: %v", d.Next, pts)
			}
		}
		if d.Next%s.Step != 0 && d.Next != s.Seed {
			t.Fatalf("probe %d is off the %d-block grid", d.Next, s.Step)
		}
		p := Point{Capacity: d.Next, Count: count(d.Next)}
		switch {
		case d.Next < floodBelow:
			p.Class, p.Why = Flood, "no preempt/readmit cycling: request 7 was hit 4 times"
		case p.Count > s.Band.Max:
			p.Class = Above
		case p.Count < s.Band.Min:
			p.Class = Below
		default:
			p.Class = InBand
		}
		pts = append(pts, p)
	}
	t.Fatal("the search never ended")
	return nil, Decision{}
}

// The golden points' vLLM disaggregated seed read as a curve: 24 at 4,000, 16 at 4,500, 11 at
// 5,000, 14 at 5,500, 6 at 6,000 — not monotone, and the seed itself in band.
func goldenVLLMDisagg(c int) int {
	switch {
	case c < 4250:
		return 24
	case c < 4750:
		return 16
	case c < 5250:
		return 11
	case c < 5750:
		return 14
	case c < 6250:
		return 6
	}
	return 0
}

func TestSearchKeepsAnInBandSeed(t *testing.T) {
	pts, d := walk(t, NewSearch(Band{10, 20}, 5500), goldenVLLMDisagg, 0)
	if len(pts) != 1 || d.Chosen == nil || d.Chosen.Capacity != 5500 || d.Chosen.Count != 14 {
		t.Fatalf("probes %v, decision %+v", pts, d)
	}
}

func TestSearchBracketsThenBisectsToTheBand(t *testing.T) {
	// Too much capacity at the seed: shrink by the factor, then bisect.
	pts, d := walk(t, NewSearch(Band{1, 3}, 8192), func(c int) int { return max(0, (7000-c)/200) }, 0)
	if d.Chosen == nil || d.Chosen.Count < 1 || d.Chosen.Count > 3 {
		t.Fatalf("probes %v, decision %+v", pts, d)
	}
	if len(pts) > 8 {
		t.Fatalf("%d probes for a smooth curve: %v", len(pts), pts)
	}
	// Too little at the seed, flooding below 3,000: grow out of the flood first.
	pts, d = walk(t, NewSearch(Band{10, 20}, 2048), func(c int) int { return max(0, (9000-c)/150) }, 3000)
	if d.Chosen == nil || pts[0].Class != Flood || d.Chosen.Capacity < 3000 {
		t.Fatalf("probes %v, decision %+v", pts, d)
	}
}

func TestSearchSaysABandNoCapacityReaches(t *testing.T) {
	// 25 events up to 6,143 blocks, 0 from 6,144: no capacity on the grid gives 1–3.
	pts, d := walk(t, NewSearch(Band{1, 3}, 4096), func(c int) int {
		if c < 6144 {
			return 25
		}
		return 0
	}, 0)
	if d.Chosen != nil || !strings.Contains(d.Why, "no capacity gives 1–3: it jumps from 25 at") || !strings.Contains(d.Why, "0 at 6144") {
		t.Fatalf("probes %v, decision %+v", pts, d)
	}
}

func TestSearchStopsAtAFailureCapacityCannotFix(t *testing.T) {
	s := NewSearch(Band{1, 3}, 4096)
	d := s.Next([]Point{{Capacity: 4096, Class: Broken, Why: "exit status 101"}})
	if !d.Done || d.Chosen != nil || !strings.Contains(d.Why, "exit status 101") {
		t.Fatalf("decision %+v", d)
	}
}

func TestSearchIsBounded(t *testing.T) {
	s := NewSearch(Band{10, 20}, 1024)
	s.MaxProbes = 5
	pts, d := walk(t, s, func(int) int { return 500 }, 0) // always above: grows until the cap
	if len(pts) != 5 || d.Chosen != nil || !strings.Contains(d.Why, "no capacity in 5 probes gave 10–20: nearest probe 500 at") {
		t.Fatalf("probes %v, decision %+v", pts, d)
	}
	s = NewSearch(Band{1, 3}, 64)
	pts, d = walk(t, s, func(int) int { return 0 }, 0) // never any pressure: shrinks to one step
	if d.Chosen != nil || !strings.Contains(d.Why, "give fewer than 1") {
		t.Fatalf("probes %v, decision %+v", pts, d)
	}
}

func TestDefaultStep(t *testing.T) {
	for seed, want := range map[int]int{5500: 128, 11264: 256, 1536: 32, 6144: 128, 16000: 256, 20: 1} {
		if got := DefaultStep(seed); got != want {
			t.Errorf("DefaultStep(%d) = %d, want %d", seed, got, want)
		}
	}
}

// A stalled probe is stepped around, not a wall: dynamo-bench 1.5.1's SGLang disaggregated
// row stalls at 16,896 blocks yet gives 14 retractions at 20,480. Three stalls end the search.
func TestSearchStepsAroundAStall(t *testing.T) {
	s := NewSearch(Band{10, 20}, 11264)
	pts := []Point{{Capacity: 11264, Count: 66, Class: Above}, {Capacity: 16896, Class: Stalled, Why: "no end within 1m0s"}}
	d := s.Next(pts)
	if d.Done || d.Next != 16896+s.Step {
		t.Fatalf("decision %+v", d)
	}
	pts = append(pts, Point{Capacity: d.Next, Class: Stalled}, Point{Capacity: 40000, Class: Stalled})
	d = s.Next(pts)
	if !d.Done || d.Chosen != nil || !strings.Contains(d.Why, "3 probes stalled (pathological replay-loop growth): nearest probe 66 at 11264") {
		t.Fatalf("decision %+v", d)
	}
}
