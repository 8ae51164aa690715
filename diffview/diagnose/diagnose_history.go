package diagnose

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"kvparity/diffview"
	"kvparity/internal/jsonscan"
)

// Lenses over the two runs' decision histories: they look at the first divergence and the
// routing decisions around it, where the report itself records no event list.

// A decision is one routing decision of a request, in both runs.
type decision struct {
	req      string
	k        int // routing_history index
	pool     string
	t        float64
	wa, wb   string // logical_worker_id
	oa, ob   string // reported_overlap_tokens
	arrival  bool   // routed at arrival (agg/prefill, not queued): trace order decides
	changed  bool
	ptrIndex int    // per_request index in B
	aIndex   int    // and in A
	da, db   string // dp_rank
}

// decisions lists every routing decision of the records the two runs share, by time. It
// needs aligned per_request arrays (no renamed records).
func (d *Diff) decisions() []decision {
	if !d.decsDone {
		d.decs, d.decsDone = d.buildDecisions(), true
	}
	return d.decs
}

func (d *Diff) buildDecisions() []decision {
	a, b := d.DocA, d.DocB
	if len(a.Records) == 0 || len(b.Records) == 0 {
		return nil
	}
	for _, c := range d.Changes {
		if c.RequestA != "" {
			return nil // renamed records: decisions cannot be paired by uuid
		}
	}
	ua, ub := a.UUIDs, b.UUIDs
	inA := make(map[string]int, len(ua))
	for i, u := range ua {
		inA[u] = i
	}
	var out []decision
	for j := range b.Records {
		i, ok := inA[ub[j]]
		if !ok {
			continue
		}
		va, vb := fieldArray(a, i, "routing_history"), fieldArray(b, j, "routing_history")
		if va == nil || vb == nil || len(va.ms) != len(vb.ms) {
			continue
		}
		uuid := ub[j]
		c := diffview.Change{IndexA: i, IndexB: j}
		for k := range va.ms {
			pool, _ := vb.get(k, "pool")
			pool = strings.Trim(pool, `"`)
			dec := decision{req: uuid, k: k, pool: pool, ptrIndex: j, aIndex: i}
			dec.wa, _ = va.get(k, "logical_worker_id")
			dec.wb, _ = vb.get(k, "logical_worker_id")
			dec.oa, _ = va.get(k, "reported_overlap_tokens")
			dec.ob, _ = vb.get(k, "reported_overlap_tokens")
			dec.da, _ = va.get(k, "dp_rank")
			dec.db, _ = vb.get(k, "dp_rank")
			dec.changed = dec.wa != dec.wb
			q, _ := va.get(k, "queue_entered_at_ms")
			var ok bool
			switch {
			case q != "" && q != "null":
				dec.t, ok = diffview.ParseNumber(q)
			case pool == "decode":
				dec.t, ok = d.RecordTime(&c, "source_held_ms", "destination_reserved_ms", "decode_admit_ms")
			default:
				dec.t, ok = d.RecordTime(&c, "arrival_time_ms")
				dec.arrival = true
			}
			if ok {
				out = append(out, dec)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].t < out[j].t })
	return out
}

// detectTieDecisions: at the first divergence, several requests reached the same decision
// at the same virtual time and their outcomes were permuted among them — the same multiset
// in another order. Arrivals are excluded: the trace fixes their order.
func detectTieDecisions(d *Diff) *Signature {
	f := d.First
	if f == nil || !f.Timed || math.IsInf(f.AtMs, -1) {
		return nil
	}
	decs := d.decisions()
	// Candidate-order leaks rename workers consistently over the whole run; a scheduling tie
	// only reshuffles outcomes locally. Leave the former to the cascade.
	if n, until, _ := relabeling(decs); n >= 2 && math.IsInf(until, 1) {
		return nil
	}
	byPool := map[string][]decision{}
	for _, x := range decs {
		if x.t == f.AtMs && !x.arrival {
			byPool[x.pool] = append(byPool[x.pool], x)
		}
	}
	var ev []string
	permuted := false // a pool's outcomes are one multiset in another order
	for _, pool := range sortedKeys(byPool) {
		xs := byPool[pool]
		changed := 0
		var as, bs, reqs []string
		for _, x := range xs {
			as, bs, reqs = append(as, x.wa), append(bs, x.wb), append(reqs, x.req)
			if x.changed {
				changed++
			}
		}
		if len(xs) < 2 || changed == 0 {
			continue
		}
		how := "the same events processed in a different order gave other outcomes"
		if sameMultiset(as, bs) {
			how = "same multiset, different order"
			permuted = true
		}
		ev = append(ev, fmt.Sprintf("at t=%s ms, %d requests reached %s routing at the same virtual time; workers [%s] → [%s] (%s)",
			diffview.FormatMs(f.AtMs), len(xs), pool, strings.Join(as, " "), strings.Join(bs, " "), how))
		ev = append(ev, "tied requests "+strings.Join(reqs, ", "))
	}
	if len(ev) == 0 {
		return nil
	}
	// A permutation of outcomes is the cause of all that follows; other outcomes at a tie may
	// be a flip among tied requests, so only the instant itself is claimed.
	var claimed []int
	if permuted {
		claimed = atOrAfter(d, f.AtMs)
		ev = append(ev, fmt.Sprintf("the processing order of same-time events leaked (executor or same-time sequence order); everything later follows from it: %d of %d differences are at or after t=%s ms", len(claimed), len(d.Changes), diffview.FormatMs(f.AtMs)))
	} else {
		for i := range d.Changes {
			if t, ok, _ := d.EventAt(i); ok && t == f.AtMs {
				claimed = append(claimed, i)
			}
		}
		ev = append(ev, "the processing order of same-time events leaked (executor or same-time sequence order); everything later follows from it")
	}
	return &Signature{Code: SigTieOrder, Label: "ordering only, within equal timestamps (at t=" + diffview.FormatMs(f.AtMs) + " ms)", Evidence: ev, Explains: len(claimed), Changes: claimed}
}

// atOrAfter lists the differences a root cause at virtual time t accounts for (indexes into
// d.Changes): every one at or after t in virtual time, and those with no time (run-level
// values derived from the whole history); a differing configuration is a cause of its own.
func atOrAfter(d *Diff, t float64) []int {
	var cs []int
	for i := range d.Changes {
		ti, ok, _ := d.EventAt(i)
		if !ok || (!math.IsInf(ti, -1) && ti >= t) {
			cs = append(cs, i)
		}
	}
	return cs
}

// relabeling reports how far the differing routing decisions are one consistent renaming of
// workers per pool: identical idle workers tied on cost, and the tie-break saw the
// candidates in another order (map iteration, unsorted candidates).
func relabeling(decs []decision) (n int, until float64, desc string) {
	return relabelingOf(decs, func(x *decision) (string, string) { return x.wa, x.wb })
}

// relabelingOf is relabeling over the pair of values get reads from each decision (the
// worker, the dp rank).
func relabelingOf(decs []decision, get func(*decision) (string, string)) (n int, until float64, desc string) {
	maps := map[string]map[string]string{}
	back := map[string]map[string]string{}
	until = math.Inf(1)
	for i := range decs {
		x := &decs[i]
		wa, wb := get(x)
		if maps[x.pool] == nil {
			maps[x.pool], back[x.pool] = map[string]string{}, map[string]string{}
		}
		m, bm := maps[x.pool], back[x.pool]
		if y, ok := m[wa]; (ok && y != wb) || (bm[wb] != "" && bm[wb] != wa) {
			until = x.t
			break
		}
		m[wa], bm[wb] = wb, wa
		if wa != wb {
			n++
		}
	}
	var parts []string
	for _, pool := range sortedKeys(maps) {
		var sw []string
		for _, a := range sortedKeys(maps[pool]) {
			if b := maps[pool][a]; a < b {
				if maps[pool][b] == a {
					sw = append(sw, a+"↔"+b)
				} else {
					sw = append(sw, a+"→"+b)
				}
			} else if b != a && maps[pool][b] != a {
				sw = append(sw, a+"→"+b)
			}
		}
		if len(sw) > 0 {
			parts = append(parts, pool+" "+strings.Join(sw, ","))
		}
	}
	return n, until, strings.Join(parts, "; ")
}

// detectIndexLoss: the first divergence is a routing decision that picked the same worker
// but saw a different KV overlap there, with nothing earlier differing — the router's KV
// index holds different blocks. The indexer drops a Stored event whose parent it has not
// indexed, so a child published before its parent loses the chain (seed 003).
func detectIndexLoss(d *Diff) *Signature {
	f := d.First
	if f == nil || !f.Timed || math.IsInf(f.AtMs, -1) {
		return nil
	}
	decs := d.decisions()
	var first *decision
	same := 0
	for i := range decs {
		x := &decs[i]
		if x.changed && x.t <= f.AtMs {
			return nil // a different worker came first: a decision flip, not index content
		}
		if !x.changed && x.oa != x.ob && sameTraceRequest(d, x) {
			same++
			if first == nil {
				first = x
			}
		}
	}
	if first == nil || first.t != f.AtMs {
		return nil
	}
	ev := []string{
		fmt.Sprintf("first divergence: request %s routed to the same %s worker %s at t=%s ms but saw %s → %s overlap tokens: the KV index differs with no earlier difference in either history",
			first.req, first.pool, first.wa, diffview.FormatMs(first.t), first.oa, first.ob),
		fmt.Sprintf("%d routing decision(s) in all saw a different overlap on the same worker", same),
	}
	for _, c := range d.Changes {
		if c.Pointer == "/coverage/kv_ingest/blake3_256" {
			ev = append(ev, "/coverage/kv_ingest/blake3_256 differs: the KV event stream itself differs")
		}
	}
	ev = append(ev, "the indexer drops a Stored event whose parent it has not indexed: a child published before its parent (seed 003)")
	after := atOrAfter(d, first.t)
	ev = append(ev, fmt.Sprintf("%d of %d differences are at or after it: they follow from the lost blocks", len(after), len(d.Changes)))
	return &Signature{Code: SigChildBeforeParent, Label: "KV events: child stored before its parent (index lost blocks)", Evidence: ev, Explains: len(after), Changes: after}
}

// sameTraceRequest says the decision's request is the same trace request in both runs (its
// trace-fixed members agree): otherwise its overlap differs because its input does.
func sameTraceRequest(d *Diff, x *decision) bool {
	for _, k := range diffview.TraceKeys {
		a, _ := d.DocA.Field(x.aIndex, k)
		b, _ := d.DocB.Field(x.ptrIndex, k)
		if a != b {
			return false
		}
	}
	return true
}

// detectRunLevelClock: only run-level time values moved while every virtual-time event of
// every request is identical, by a sub-millisecond amount that is neither float noise nor a
// quantum — a wall-clock reading reached a canonical field.
func detectRunLevelClock(d *Diff) *Signature {
	// Other causes may ride along (a tie swap among pressure records), but no request's own
	// virtual time may move: then the run-level times would follow from it.
	var timeChanges []diffview.Change
	var summary []int
	for i, c := range d.Changes {
		if !strings.HasPrefix(c.Pointer, "/summary/") {
			if _, ok := diffview.TimeFields[diffview.LastSegment(c.Pointer)]; ok && strings.HasPrefix(c.Pointer, "/per_request/") {
				return nil
			}
			continue
		}
		summary = append(summary, i)
		if strings.HasSuffix(c.Pointer, "_ms") && c.Kind == diffview.Changed {
			timeChanges = append(timeChanges, c)
		}
	}
	if len(timeChanges) == 0 {
		return nil
	}
	var ev []string
	for _, c := range timeChanges {
		a, aok := diffview.ParseNumber(c.A)
		b, bok := diffview.ParseNumber(c.B)
		if !aok || !bok || noise(a, b) || math.Abs(b-a) >= 1 {
			return nil
		}
		ev = append(ev, fmt.Sprintf("%s moved by %.6g ms while no per-request virtual time moved", c.Pointer, b-a))
	}
	// duration_ms must be the last terminal time; say by how much each run misses it.
	for _, side := range []struct {
		name string
		dd   *diffview.Doc
	}{{"A", d.DocA}, {"B", d.DocB}} {
		dur, ok := side.dd.At("/summary/duration_ms")
		if !ok {
			continue
		}
		if last, ok := maxTerminal(side.dd); ok {
			if x, _ := diffview.ParseNumber(dur); x != last {
				ev = append(ev, fmt.Sprintf("%s duration_ms %s ≠ last terminal_time_ms %s (%+.6g ms): not derived from virtual time", side.name, dur, diffview.FormatMs(last), x-last))
			}
		}
	}
	ev = append(ev, fmt.Sprintf("%d derived summary value(s) follow it", len(summary)-len(timeChanges)))
	return &Signature{Code: SigWallClock, Label: "wall-clock leakage (run-level time jitter)", Evidence: ev, Explains: len(summary), Changes: summary}
}

// maxTerminal is the largest terminal_time_ms of a report's completed requests.
func maxTerminal(dd *diffview.Doc) (float64, bool) {
	s, ok := dd.Root["per_request"]
	if !ok || dd.Kind(s) != jsonscan.Array {
		return 0, false
	}
	best, found := 0.0, false
	for _, e := range dd.Scanner.Elements(s) {
		if dd.Kind(e) != jsonscan.Object {
			continue
		}
		if st, ok := dd.Scanner.Member(e, "terminal_status"); ok && dd.Raw(st) != `"completed"` {
			continue
		}
		v, ok := dd.Scanner.Member(e, "terminal_time_ms")
		if !ok {
			continue
		}
		if x, err := strconv.ParseFloat(dd.Raw(v), 64); err == nil && (!found || x > best) {
			best, found = x, true
		}
	}
	return best, found
}
