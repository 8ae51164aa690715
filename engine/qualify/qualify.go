package qualify

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"kvparity/engine"
	"kvparity/report"
)

// Host is what the stage needs of its campaign (engine.StageHost, Campaign.Host): the frozen
// row and one journaled probe at a time.
type Host interface {
	Row() *engine.Row
	RunProbe(ctx context.Context, req engine.ProbeRequest) (engine.ProbeRun, error)
}

// DefaultFlag is the G1 capacity flag the protocol's golden points vary.
const DefaultFlag = "--num-gpu-blocks"

// A probe that runs StallFactor times longer than the slowest finished one (and at least
// MinProbeTimeout) has stalled: the golden points' rows replay in seconds, so a capacity at
// which one takes minutes shows pathological replay-loop growth, not a slow machine.
const (
	StallFactor     = 20
	MinProbeTimeout = time.Minute
)

// DefaultConfirmations is the fresh repetitions of the chosen capacity (the golden points ran
// ten; three is the least that makes "one digest" mean more than a pair).
const DefaultConfirmations = 3

// Options is one qualification.
type Options struct {
	Flag          string // the capacity flag ("" → DefaultFlag)
	Seed          int    // the first capacity (0 → the row's own value of Flag)
	Band          Band   // zero → the row's band (declared, or the protocol's default for its topology)
	Step          int    // the probe grain (0 → DefaultStep(Seed))
	MaxProbes     int    // 0 → 20
	Confirmations int    // fresh repetitions of the chosen capacity (0 → DefaultConfirmations)
	// ProbeTimeout bounds each probe (0 → StallFactor times the slowest finished probe, at
	// least MinProbeTimeout; the row's [determinism] timeout bounds every probe anyway).
	ProbeTimeout time.Duration
	// OnStart hears the search's settings once they are resolved (Result's Flag, Band, Seed,
	// Step); OnProbe hears each probe as it ends (the headless lines, the qualify view).
	OnStart func(Result)
	OnProbe func(Probe)
}

// A Probe is one recorded probe with its class.
type Probe struct {
	engine.ProbeRun
	Point
	Kind      string     `json:"kind"` // preemptions | retractions
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
}

// Lifecycle is what a probe proves about its run, from its evidence: the events readmitted,
// the requests completed, the virtual time it covered.
type Lifecycle struct {
	Readmitted     int     `json:"readmitted"`
	Completed      int     `json:"completed"`
	Requests       int     `json:"requests"`
	VirtualStartMs float64 `json:"virtual_start_ms"`
	VirtualEndMs   float64 `json:"virtual_end_ms"`
}

func lifecycle(ev *report.Evidence) *Lifecycle {
	l := &Lifecycle{Completed: ev.Terminal["completed"], Requests: ev.Requests, VirtualStartMs: ev.VirtualStartMs, VirtualEndMs: ev.VirtualEndMs}
	for _, r := range ev.Pressure {
		if r.Readmitted {
			l.Readmitted++
		}
	}
	return l
}

// Outcome words of a qualification.
const (
	Qualified    = "QUALIFIED"    // in band, confirmed: one digest and identical counters
	NotReached   = "NOT REACHED"  // no capacity gave the band: said with the nearest probes
	Unstable     = "UNSTABLE"     // the chosen capacity's fresh repetitions disagree
	RuleFailed   = "RULE FAILED"  // the chosen capacity fails a rule capacity cannot fix
	ProbesFailed = "PROBE FAILED" // a probe's run failed for a reason that is not pressure
	Interrupted  = "INTERRUPTED"  // stopped before it decided
)

// Result is the qualification's record: qualify/result.json, the frozen row's comment, the
// headless summary.
type Result struct {
	Outcome string  `json:"outcome"`
	Why     string  `json:"why"`
	Flag    string  `json:"flag"`
	Band    Band    `json:"band"`
	Seed    int     `json:"seed"`
	Step    int     `json:"step"`
	Chosen  int     `json:"chosen,omitempty"`
	Search  []Probe `json:"search"`
	// Edges are the probes either side of a chosen capacity the search reached without
	// passing it (an in-band seed): a frozen row states its nearest boundaries, as the golden
	// points do ("4,096 produced 21 and 8,192 produced 0").
	Edges    []Probe `json:"edges,omitempty"`
	Confirm  []Probe `json:"confirm,omitempty"`
	Digest   string  `json:"digest,omitempty"` // the chosen capacity's baseline digest
	Identity bool    `json:"identical"`        // every confirmation repeated it
	// Candidate is the candidate run once at the chosen capacity (never tuned separately): its
	// count is reported, in the band or not.
	Candidate *Probe `json:"candidate,omitempty"`
}

// Run qualifies the row's capacity on the pinned baseline (protocol stage 3): probes toward
// the band, confirms the chosen capacity with fresh repetitions, runs the candidate once with
// the same configuration. The error is a failure to probe at all (a stopped stage, a full
// disk, a row without the flag); every product outcome is the Result's.
func Run(ctx context.Context, h Host, o Options) (Result, error) {
	row := h.Row()
	if o.Flag == "" {
		o.Flag = DefaultFlag
	}
	if o.Seed == 0 {
		v, err := strconv.Atoi(row.ReplayArg(o.Flag))
		if err != nil || v <= 0 {
			return Result{}, fmt.Errorf("[replay] args: %s %q is not a capacity to start from (give --seed)", o.Flag, row.ReplayArg(o.Flag))
		}
		o.Seed = v
	}
	if o.Band == (Band{}) {
		b := row.Band()
		o.Band = Band{Min: b[0], Max: b[1]}
	}
	if o.Band.Min < 1 || o.Band.Max < o.Band.Min {
		return Result{}, fmt.Errorf("pressure band %s: a band is min >= 1 and max >= min", o.Band)
	}
	s := NewSearch(o.Band, o.Seed)
	if o.Step > 0 {
		s.Step = o.Step
	}
	if o.MaxProbes > 0 {
		s.MaxProbes = o.MaxProbes
	}
	if o.Confirmations <= 0 {
		o.Confirmations = DefaultConfirmations
	}
	res := Result{Flag: o.Flag, Band: o.Band, Seed: o.Seed, Step: s.Step}
	if o.OnStart != nil {
		o.OnStart(res)
	}
	var slowest time.Duration // the slowest probe that finished
	probe := func(arm engine.Arm, purpose string, index, capacity int) (Probe, error) {
		timeout := o.ProbeTimeout
		if timeout == 0 && slowest > 0 {
			timeout = max(MinProbeTimeout, StallFactor*slowest)
		}
		pr, err := h.RunProbe(ctx, engine.ProbeRequest{Arm: arm, Flag: o.Flag, Value: capacity, Purpose: purpose, Index: index, Timeout: timeout})
		if err != nil {
			return Probe{}, err
		}
		if el := time.Duration(pr.ElapsedMs * float64(time.Millisecond)); !pr.TimedOut && pr.Error == "" && el > slowest {
			slowest = el
		}
		p := classify(pr, o.Band)
		if p.Class == Stalled && timeout > 0 {
			p.Why = fmt.Sprintf("no end within %s, %d× the slowest finished probe: pathological replay-loop growth", timeout.Round(time.Second), StallFactor)
		}
		if o.OnProbe != nil {
			o.OnProbe(p)
		}
		return p, nil
	}
	interrupted := func(err error) (Result, error) {
		if ctx.Err() != nil {
			res.Outcome, res.Why = Interrupted, "stopped before it decided; run it again to resume from the recorded probes"
			return res, nil
		}
		return res, err
	}

	var points []Point
	var d Decision
	for {
		d = s.Next(points)
		if d.Done {
			break
		}
		p, err := probe(engine.Baseline, "search", len(points)+1, d.Next)
		if err != nil {
			return interrupted(err)
		}
		res.Search = append(res.Search, p)
		points = append(points, p.Point)
	}
	if d.Chosen == nil {
		res.Outcome, res.Why = NotReached, d.Why
		for _, p := range res.Search {
			if p.Class == Broken {
				res.Outcome = ProbesFailed
			}
		}
		return res, nil
	}
	res.Chosen = d.Chosen.Capacity
	var first Probe
	for _, p := range res.Search {
		if p.Capacity == res.Chosen {
			first = p
		}
	}
	res.Digest = first.Digest
	if failed := otherFailures(first.Evidence); failed != "" {
		res.Outcome, res.Why = RuleFailed, fmt.Sprintf("%d blocks give %s, inside the band, but %s", res.Chosen, events(first.Count, first.Kind), failed)
		return res, nil
	}

	for i, c := range edgeCapacities(s, res.Chosen, points) {
		p, err := probe(engine.Baseline, "edge", i+1, c)
		if err != nil {
			return interrupted(err)
		}
		res.Edges = append(res.Edges, p)
	}

	res.Identity = true
	for i := 1; i <= o.Confirmations; i++ {
		p, err := probe(engine.Baseline, "confirm", i, res.Chosen)
		if err != nil {
			return interrupted(err)
		}
		res.Confirm = append(res.Confirm, p)
		if p.Digest != res.Digest {
			res.Identity = false
		}
	}
	c, err := probe(engine.Candidate, "candidate", 1, res.Chosen)
	if err != nil {
		return interrupted(err)
	}
	res.Candidate = &c

	if !res.Identity {
		res.Outcome, res.Why = Unstable, fmt.Sprintf("%d fresh repetitions at %d blocks do not repeat the probe's digest %s: %s", o.Confirmations, res.Chosen, short(res.Digest), digests(res.Confirm))
		return res, nil
	}
	res.Outcome = Qualified
	res.Why = fmt.Sprintf("%d blocks give %s (band %s); %d fresh processes (the probe and %d repetitions) gave one digest %s and identical counters; the candidate at the same capacity gave %s",
		res.Chosen, events(first.Count, first.Kind), o.Band, o.Confirmations+1, o.Confirmations, short(res.Digest), c.describe(o.Band))
	return res, nil
}

// edgeSteps is how far an edge probe lies from the chosen capacity, in steps (about 12% at the
// default grain).
const edgeSteps = 4

// edgeCapacities are the capacities to probe so that the chosen one has a probe on each side.
func edgeCapacities(s Search, chosen int, points []Point) []int {
	var below, above bool
	for _, p := range points {
		below = below || p.Capacity < chosen
		above = above || p.Capacity > chosen
	}
	var out []int
	if c := s.round(float64(chosen - edgeSteps*s.Step)); !below && c < chosen {
		out = append(out, c)
	}
	if c := s.round(float64(chosen + edgeSteps*s.Step)); !above && c <= s.Limit {
		out = append(out, c)
	}
	return out
}

// classify places one probe against the band.
func classify(pr engine.ProbeRun, band Band) Probe {
	p := Probe{ProbeRun: pr, Point: Point{Capacity: pr.Value}}
	ev := pr.Evidence
	switch {
	case pr.TimedOut:
		p.Class, p.Why = Stalled, "the replay timed out: pathological replay-loop growth"
		return p
	case pr.Error != "":
		p.Class, p.Why = Broken, pr.Error
		return p
	case ev == nil:
		p.Class, p.Why = Broken, "the run left no lifecycle evidence"
		return p
	}
	p.Count, p.Kind, p.Lifecycle = ev.PressureTotal(), ev.PressureKind(), lifecycle(ev)
	if fl := ev.FloodRules(); len(fl) > 0 {
		p.Class, p.Why = Flood, fl[0].Name+": "+fl[0].Why
		return p
	}
	switch {
	case p.Count > band.Max:
		p.Class = Above
	case p.Count < band.Min:
		p.Class = Below
	default:
		p.Class = InBand
	}
	return p
}

// otherFailures names the first failed rule a capacity cannot fix, "" when none failed.
func otherFailures(ev *report.Evidence) string {
	if ev == nil {
		return "the run left no lifecycle evidence"
	}
	if f := ev.StandingFailures(); len(f) > 0 {
		return fmt.Sprintf("%s fails: %s", f[0].Name, f[0].Why)
	}
	return ""
}

// describe is a candidate probe in the result's words.
func (p Probe) describe(band Band) string {
	if p.Error != "" {
		return "a failed run: " + p.Error
	}
	where := "inside the band"
	if p.Count < band.Min || p.Count > band.Max {
		where = "outside the band: a changed count is recorded, never tuned away"
	}
	return fmt.Sprintf("%s (%s; digest %s)", events(p.Count, p.Kind), where, short(p.Digest))
}

// events is a count with its kind, singular for one ("1 preemption").
func events(n int, kind string) string {
	if n == 1 {
		kind = strings.TrimSuffix(kind, "s")
	}
	return fmt.Sprintf("%d %s", n, kind)
}

func digests(ps []Probe) string {
	out := ""
	for i, p := range ps {
		if i > 0 {
			out += ", "
		}
		out += short(p.Digest)
	}
	return out
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}
