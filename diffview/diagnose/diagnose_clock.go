package diagnose

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"kvparity/diffview"
)

// ---- wall-clock leakage beyond epoch readings ----

// detectWallDurations finds wall-clock time inside values that should be virtual: a duration
// that moved while the virtual instants it spans did not (microseconds measured with a wall
// clock inside a queue wait), a throughput that moved while the virtual duration it is taken
// over did not (divided by a wall-clock duration), and a small offset on request times that
// grows with virtual time while no decision changed (a wall reading accumulating into the
// clock). Epoch-like readings are detectWallClock's; run-level jitter detectRunLevelClock's.
func detectWallDurations(d *Diff) *Signature {
	var ev []string
	var explained []int
	for _, lens := range []func(*Diff) ([]int, string){wallDurations, wallThroughputs, wallDrift} {
		if cs, e := lens(d); len(cs) > 0 {
			explained = append(explained, cs...)
			ev = append(ev, e)
		}
	}
	if len(explained) == 0 {
		return nil
	}
	return &Signature{Code: SigWallClock, Label: "wall-clock leakage (durations or times measured on the wall clock)", Evidence: ev, Explains: len(explained), Changes: explained}
}

// numericDelta is B − A of a changed number that is not rounding noise.
func numericDelta(c *diffview.Change) (float64, bool) {
	if c.Kind != diffview.Changed {
		return 0, false
	}
	a, aok := diffview.ParseNumber(c.A)
	b, bok := diffview.ParseNumber(c.B)
	if !aok || !bok || a == b || noise(a, b) {
		return 0, false
	}
	return b - a, true
}

func durationKey(k string) bool {
	return strings.HasSuffix(k, "wait_ms") || strings.HasSuffix(k, "duration_ms") || strings.HasSuffix(k, "_elapsed_ms")
}

// instantKey names a virtual instant of a record or event.
func instantKey(k string) bool {
	_, ok := diffview.TimeFields[k]
	return ok || k == "at_ms" || strings.HasSuffix(k, "_at_ms")
}

// requestDurations are a request's durations and the instants they span.
var requestDurations = map[string][2]string{
	"e2e_latency_ms": {"arrival_time_ms", "last_token_ms"},
	"ttft_ms":        {"arrival_time_ms", "first_token_ms"},
}

// spanUnmoved says change c is a request's duration whose two instants are equal in both runs.
func (d *Diff) spanUnmoved(c *diffview.Change) bool {
	segs := diffview.SplitPointer(c.Pointer)
	if len(segs) != 3 || segs[0] != "per_request" || c.IndexA < 0 || c.IndexB < 0 {
		return false
	}
	span, ok := requestDurations[segs[2]]
	if !ok {
		return false
	}
	for _, k := range span {
		a, okA := d.DocA.Field(c.IndexA, k)
		b, okB := d.DocB.Field(c.IndexB, k)
		if !okA || !okB || a != b {
			return false
		}
	}
	return true
}

// wallDurations: durations that moved between instants that did not.
func wallDurations(d *Diff) ([]int, string) {
	var moved []int
	var example string
	var spans []quantumDelta // request durations off their unmoved instants
	var spanExample string
	for i := range d.Changes {
		c := &d.Changes[i]
		key := diffview.LastSegment(c.Pointer)
		if _, ok := requestDurations[key]; ok { // (keys first: this runs over every change)
			if x, ok := numericDelta(c); ok && math.Abs(x) < 1000 && d.spanUnmoved(c) {
				spans = append(spans, quantumDelta{i: i, x: x})
				if spanExample == "" {
					spanExample = fmt.Sprintf("%s %s → %s while the instants it spans are equal", c.Pointer, c.A, c.B)
				}
				continue
			}
		}
		k := strings.LastIndexByte(c.Pointer, '/')
		if k <= 0 || !durationKey(key) || c.Pointer == "/summary/duration_ms" {
			continue
		}
		x, ok := numericDelta(c)
		if !ok || math.Abs(x) >= 1000 {
			continue
		}
		holder := c.Pointer[:k]
		va, okA := d.DocA.Value(d.SideA(c, holder))
		vb, okB := d.DocB.Value(holder)
		if !okA || !okB {
			continue
		}
		instants, same := 0, true
		for k, v := range d.DocB.Scanner.Members(vb) {
			key := d.DocB.Str(k)
			if !instantKey(key) || d.DocB.Raw(v) == "null" {
				continue
			}
			instants++
			u, ok := d.DocA.Scanner.Member(va, key)
			same = same && ok && d.DocA.Raw(u) == d.DocB.Raw(v)
		}
		zero := (c.A == "0" || c.A == "0.0" || c.B == "0" || c.B == "0.0") && math.Abs(x) < 1
		if !same || (instants == 0 && !zero) {
			continue // (a wait of exactly 0 that became microseconds needs no instants to judge)
		}
		moved = append(moved, i)
		if example == "" {
			example = fmt.Sprintf("%s %s → %s while the instants around it are equal", c.Pointer, c.A, c.B)
		}
	}
	// Wall readings jitter; durations all moved by whole multiples of one step were stepped.
	if _, _, stepped := sharedQuantum(spans); len(spans) == 1 || (len(spans) > 1 && !stepped) {
		for _, q := range spans {
			moved = append(moved, q.i)
		}
		if example == "" {
			example = spanExample
		}
	}
	if len(moved) == 0 {
		return nil, ""
	}
	return moved, fmt.Sprintf("%d duration(s) moved between virtual instants that did not (e.g. %s): measured with a wall clock", len(moved), example)
}

// rateCounts maps a run-level rate of the summary to the counts it divides by duration_ms.
var rateCounts = map[string][]string{
	"input_throughput_tok_s":  {"total_input_tokens"},
	"output_throughput_tok_s": {"total_output_tokens"},
	"total_throughput_tok_s":  {"total_input_tokens", "total_output_tokens"},
	"request_throughput_rps":  {"completed_requests"},
}

// runRate says a summary member is a run-level rate (not a per-user one, which moves with
// request timings).
func runRate(k string) bool {
	return !strings.Contains(k, "per_user") && (strings.HasSuffix(k, "_per_s") || strings.HasSuffix(k, "tok_s") || strings.HasSuffix(k, "_rps"))
}

// derivedRate is what rate k of a report is when taken over its virtual duration.
func derivedRate(dd *diffview.Doc, k string) (float64, bool) {
	counts, ok := rateCounts[k]
	if !ok {
		return 0, false
	}
	dur, ok := dd.At("/summary/duration_ms")
	ms, okd := diffview.ParseNumber(dur)
	if !ok || !okd || ms <= 0 {
		return 0, false
	}
	sum := 0.0
	for _, c := range counts {
		v, ok := dd.At("/summary/" + c)
		x, okx := diffview.ParseNumber(v)
		if !ok || !okx {
			return 0, false
		}
		sum += x
	}
	return sum / (ms / 1e3), true
}

// wallThroughputs: run-level rates that moved and are not their counts over the virtual
// duration in a run (or, for a rate whose counts are unknown, moved while the virtual duration
// did not): divided by a wall-clock duration.
func wallThroughputs(d *Diff) ([]int, string) {
	da, _ := d.DocA.At("/summary/duration_ms")
	db, _ := d.DocB.At("/summary/duration_ms")
	var ptrs []string
	var rates []int
	for i := range d.Changes {
		c := &d.Changes[i]
		k := diffview.LastSegment(c.Pointer)
		if !strings.HasPrefix(c.Pointer, "/summary/") || !runRate(k) {
			continue
		}
		if _, ok := numericDelta(c); !ok {
			continue
		}
		wall := false
		for _, side := range []struct {
			dd  *diffview.Doc
			raw string
		}{{d.DocA, c.A}, {d.DocB, c.B}} {
			want, ok := derivedRate(side.dd, k)
			got, okg := diffview.ParseNumber(side.raw)
			if !ok {
				wall = wall || (da != "" && da == db) // counts unknown: judge by the duration alone
				continue
			}
			wall = wall || (okg && want != got && !noise(want, got))
		}
		if wall {
			ptrs, rates = append(ptrs, c.Pointer), append(rates, i)
		}
	}
	if len(ptrs) == 0 {
		return nil, ""
	}
	return rates, fmt.Sprintf("%d run-level rate(s) moved (%s) and are not their counts over the virtual /summary/duration_ms (%s → %s): divided by a wall-clock duration", len(ptrs), strings.Join(ptrs[:min(3, len(ptrs))], ", "), da, db)
}

// wallDrift: request times offset by a sub-millisecond amount of one sign that grows with
// virtual time, with no decision changed.
func wallDrift(d *Diff) ([]int, string) {
	type shift struct {
		at, delta float64
		i         int // the change
	}
	var ss []shift
	timed := 0 // a drift moves request times: without three of them there is nothing to read
	for i := range d.Changes {
		p := d.Changes[i].Pointer
		if _, ok := diffview.TimeFields[diffview.LastSegment(p)]; ok && strings.HasPrefix(p, "/per_request/") {
			if timed++; timed == 3 {
				break
			}
		}
	}
	if timed < 3 {
		return nil, ""
	}
	var derived []int // values computed from the drifted times: latencies, the summary's aggregates
	flips := newFlipTest(d)
	for i := range d.Changes {
		c := &d.Changes[i]
		if flips.flipped(c) {
			return nil, "" // a different decision moves times too: the cascade lens
		}
		x, ok := numericDelta(c)
		if !ok || math.Abs(x) >= 1 {
			if ok && strings.HasPrefix(c.Pointer, "/summary/") {
				derived = append(derived, i)
			}
			continue
		}
		if !strings.HasPrefix(c.Pointer, "/per_request/") {
			derived = append(derived, i)
			continue
		}
		if _, ok := diffview.TimeFields[diffview.LastSegment(c.Pointer)]; !ok {
			derived = append(derived, i)
			continue
		}
		a, _ := diffview.ParseNumber(c.A)
		ss = append(ss, shift{a, x, i})
	}
	if len(ss) < 3 {
		return nil, ""
	}
	slices.SortFunc(ss, func(p, q shift) int { return cmp.Compare(p.at, q.at) })
	sign := math.Signbit(ss[0].delta)
	down := 0
	for k := range ss {
		if math.Signbit(ss[k].delta) != sign {
			return nil, ""
		}
		if k > 0 && math.Abs(ss[k].delta) < math.Abs(ss[k-1].delta) {
			down++
		}
	}
	first, last := ss[0], ss[len(ss)-1]
	if 10*down > len(ss) || math.Abs(last.delta) <= math.Abs(first.delta) {
		return nil, "" // not growing: a shift, not a drift
	}
	if detectQuantum(d) != nil {
		return nil, "" // whole multiples of one step: a pass taken more often, not a clock
	}
	shifted := make([]int, 0, len(ss)+len(derived))
	for _, x := range ss {
		shifted = append(shifted, x.i)
	}
	return append(shifted, derived...), fmt.Sprintf("%d request time(s) are offset by %+.3g ms at t=%s ms growing to %+.3g ms at t=%s ms, one sign, no decision changed: a wall-clock reading accumulating into virtual time; %d value(s) derived from them follow",
		len(ss), first.delta, diffview.FormatMs(first.at), last.delta, diffview.FormatMs(last.at), len(derived))
}
