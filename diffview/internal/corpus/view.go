package corpus

import (
	"encoding/json"
	"sort"
	"strings"
)

// Reading and editing the parts of a report the mutators touch, in the protocol's words.

// reqTime reads a per-request timestamp (false for null or missing).
func reqTime(r map[string]any, key string) (float64, bool) { return numOf(r[key]) }

// arrival is a request's trace arrival: fixed by the workload, never moved by a decision.
func arrival(r map[string]any) float64 {
	t, _ := reqTime(r, "arrival_time_ms")
	return t
}

// routing returns a request's routing_history entries.
func routing(r map[string]any) []map[string]any { return objects(asArray(r["routing_history"])) }

// admissions returns a request's admission_history entries.
func admissions(r map[string]any) []map[string]any { return objects(asArray(r["admission_history"])) }

// workerField is the per-request member that repeats a pool's routing decision.
func workerField(pool string) string {
	if pool == "prefill" {
		return "prefill_worker_idx"
	}
	return "decode_worker_idx" // agg and decode
}

// decisionTime is when a routing decision was made: entering the router queue, the
// decode hand-off for the decode pool, else the arrival.
func decisionTime(r map[string]any, e map[string]any) float64 {
	if t, ok := numOf(e["queue_entered_at_ms"]); ok {
		return t
	}
	if e["pool"] == "decode" {
		for _, k := range decodeRouting {
			if t, ok := reqTime(r, k); ok {
				return t
			}
		}
	}
	return arrival(r)
}

// poolWorkers lists the workers each pool routed to, in order.
func poolWorkers(rep *reportTree) map[string][]int {
	seen := map[string]map[int]bool{}
	for _, r := range rep.Requests() {
		for _, e := range routing(r) {
			p, _ := e["pool"].(string)
			w, ok := intOf(e["logical_worker_id"])
			if !ok {
				continue
			}
			if seen[p] == nil {
				seen[p] = map[int]bool{}
			}
			seen[p][w] = true
		}
	}
	out := map[string][]int{}
	for p, ws := range seen {
		for w := range ws {
			out[p] = append(out[p], w)
		}
		sort.Ints(out[p])
	}
	return out
}

// byArrival lists request indices in arrival order (ties in report order).
func byArrival(reqs []map[string]any) []int {
	idx := make([]int, len(reqs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return arrival(reqs[idx[i]]) < arrival(reqs[idx[j]]) })
	return idx
}

// arrivalTies groups request indices that share an arrival time (groups of two or more,
// in arrival order).
func arrivalTies(reqs []map[string]any) [][]int {
	var groups [][]int
	order := byArrival(reqs)
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && arrival(reqs[order[j]]) == arrival(reqs[order[i]]) {
			j++
		}
		if j-i >= 2 {
			g := append([]int(nil), order[i:j]...)
			sort.Ints(g)
			groups = append(groups, g)
		}
		i = j
	}
	return groups
}

// span is the virtual time the run covers: first arrival to last terminal.
func span(reqs []map[string]any) (lo, hi float64) {
	for i, r := range reqs {
		a := arrival(r)
		t, ok := reqTime(r, "terminal_time_ms")
		if !ok {
			t = a
		}
		if i == 0 || a < lo {
			lo = a
		}
		if t > hi {
			hi = t
		}
	}
	return lo, hi
}

// shiftAfter moves every virtual timestamp of a request strictly later than t by delta (the
// arrival stays: the trace fixes it) and rewrites the durations derived from them. It
// returns how many timestamps moved. Timestamps never move to t or before: a consequence
// cannot precede its cause.
func shiftAfter(r map[string]any, t, delta float64) int {
	moved := 0
	top := map[string]bool{}
	shift := func(m map[string]any, key string) bool {
		x, ok := numOf(m[key])
		if !ok || x <= t {
			return false
		}
		y := x + delta
		if y <= t {
			y = t + (x-t)/2
		}
		m[key] = num(y)
		moved++
		return true
	}
	for k := range timeFields {
		if k != "arrival_time_ms" && shift(r, k) {
			top[k] = true
		}
	}
	for _, e := range admissions(r) {
		shift(e, "at_ms")
	}
	for _, e := range routing(r) {
		// The protocol places a routing entry at its decision: one made at or before t stays
		// whole (its release and wait too), or a consequence would precede its cause.
		if q, ok := numOf(e["queue_entered_at_ms"]); !ok || q <= t {
			continue
		}
		shift(e, "queue_entered_at_ms")
		shift(e, "released_at_ms") // the wait, their difference, stays
	}
	rederive(r, top)
	return moved
}

// rederive recomputes the durations measured from the arrival after timestamps moved: time
// to first token when first_token_ms moved, end-to-end latency when last_token_ms did.
func rederive(r map[string]any, moved map[string]bool) {
	arr := arrival(r)
	if ft, ok := reqTime(r, "first_token_ms"); ok && moved["first_token_ms"] {
		if _, ok := numOf(r["ttft_ms"]); ok {
			r["ttft_ms"] = num(ft - arr)
		}
	}
	if lt, ok := reqTime(r, "last_token_ms"); ok && moved["last_token_ms"] {
		if _, ok := numOf(r["e2e_latency_ms"]); ok {
			r["e2e_latency_ms"] = num(lt - arr)
		}
	}
}

// pressureOf lists the pressure records whose victim is uuid.
func pressureOf(rep *reportTree, uuid string) []map[string]any {
	var out []map[string]any
	for _, p := range rep.Pressure() {
		if p["request_uuid"] == uuid {
			out = append(out, p)
		}
	}
	return out
}

// shiftPressureAfter moves a pressure event later than t, with its readmission. A record
// whose event is at or before t stays: the protocol places the whole record (its
// readmitted_at_ms too) at the event, and a consequence must not precede its cause.
func shiftPressureAfter(p map[string]any, t, delta float64) {
	if at, ok := numOf(p["at_ms"]); !ok || at <= t {
		return
	}
	for _, k := range []string{"at_ms", "readmitted_at_ms"} {
		if x, ok := numOf(p[k]); ok {
			y := x + delta
			if y <= t {
				y = t + (x-t)/2
			}
			p[k] = num(y)
		}
	}
}

// floatNumber says a number is spelled as an f64 (serde writes f64 with "." or an exponent).
func floatNumber(v any) bool {
	n, ok := v.(json.Number)
	return ok && strings.ContainsAny(string(n), ".eE")
}

// summaryFloats lists the f64 members of /summary, sorted.
func summaryFloats(rep *reportTree) []string {
	var keys []string
	for k, v := range rep.obj("/summary") {
		if floatNumber(v) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
