package corpus

import (
	"math"
	"strings"

	"kvparity/internal/pointer"
)

// The protocol places every differing value at the virtual time of the event it belongs to
// (diffview's doc: "a timestamp field, an admission, a routing decision, a pressure event;
// metadata is before time 0"), and a value that is an instant of its own, or a duration, where
// it happens or ends (a readmission, a release and the wait that ends there, the second token). The truth uses the same placement, written out here from the
// protocol's field list, so that "first divergence right" checks the diff against it.

// timeFields are per-request virtual timestamps: each is its own event.
var timeFields = map[string]bool{
	"arrival_time_ms": true, "dispatched_at_ms": true, "first_admit_ms": true, "prefill_admit_ms": true,
	"source_held_ms": true, "destination_reserved_ms": true, "destination_activated_ms": true,
	"decode_admit_ms": true, "source_released_ms": true, "first_token_ms": true, "last_token_ms": true,
	"terminal_time_ms": true,
}

// decodeRouting are the timestamps of a decode routing decision, first present wins.
var decodeRouting = []string{"source_held_ms", "destination_reserved_ms", "decode_admit_ms"}

// derivedFrom maps a per-request value to the timestamps of the event that produces it.
var derivedFrom = map[string][]string{
	"ttft_ms": {"first_token_ms"}, "ttst_ms": {"first_token_ms"},
	"e2e_latency_ms": {"last_token_ms"}, "itl_ms": {"last_token_ms"}, "output_length": {"last_token_ms"},
	"reused_input_tokens": {"first_admit_ms"},
	"prefill_worker_idx":  {"arrival_time_ms"}, "prefill_route_overlap_tokens": {"arrival_time_ms"},
	"decode_worker_idx": decodeRouting, "decode_route_overlap_tokens": decodeRouting,
	"decode_reused_input_tokens": {"decode_admit_ms"}, "terminal_status": {"terminal_time_ms"},
	"uuid": {"arrival_time_ms"}, "session_id": {"arrival_time_ms"}, "request_id": {"arrival_time_ms"},
	"input_length": {"arrival_time_ms"}, "requested_output_length": {"arrival_time_ms"},
}

// decisionKey says a member is a routing or placement decision (the worker, or the
// preemption victim of a pressure record).
func decisionKey(toks []string) bool {
	switch toks[len(toks)-1] {
	case "logical_worker_id", "scheduler_id", "dp_rank", "prefill_worker_idx", "decode_worker_idx", "worker_id":
		return true
	case "request_uuid":
		return isPressure(toks)
	}
	return false
}

func isPressure(toks []string) bool {
	return len(toks) >= 4 && toks[0] == "coverage" && toks[1] == "pressure" && toks[2] == "records"
}

// decisionRank orders values at one instant: the decision itself before the rest of its
// record, and those before values derived from it.
func decisionRank(toks []string) int {
	routing := len(toks) >= 4 && toks[0] == "per_request" && toks[2] == "routing_history"
	switch {
	case routing && decisionKey(toks):
		return 0
	case isPressure(toks) && decisionKey(toks):
		return 1
	case routing:
		return 2
	case isPressure(toks):
		return 3
	}
	return 4
}

// A placed leaf: its class (0 a history event, 1 configuration, 2 no virtual time), time,
// rank at its instant, and the event it belongs to.
type placed struct {
	class int
	t     float64
	rank  int
	event string
	toks  []string
}

// place puts a leaf of A and B at its event (the protocol's placement).
func place(l *leaf, a, b *reportTree) placed {
	toks, _ := pointer.Parse(l.ptr)
	p := placed{class: 2, rank: 4, event: l.ptr, toks: toks}
	if len(toks) == 0 {
		return p
	}
	p.rank = decisionRank(toks)
	timed := func(t float64, ok bool, event string) placed {
		if ok {
			p.class, p.t, p.event = 0, t, event
		}
		return p
	}
	switch {
	case toks[0] == "metadata":
		p.class, p.t, p.event = 1, math.Inf(-1), "/metadata"
		return p
	case isPressure(toks):
		elem := "/coverage/pressure/records/" + toks[3]
		at := "/at_ms"
		if len(toks) == 5 && laterInstant(toks[4]) {
			at = "/" + toks[4] // a readmission is placed where it happens
		}
		t, ok := minTime(lookup(a, elem+at), lookup(b, elem+at))
		return timed(t, ok, elem)
	case toks[0] != "per_request" || len(toks) < 2:
		if t, ok, ev := elementTime(l, toks, a, b); ok {
			return timed(t, true, ev)
		}
		return p
	}
	rec := "/per_request/" + toks[1]
	if len(toks) < 3 { // a whole record only one side has
		t, ok := l.recTime("arrival_time_ms")
		return timed(t, ok, rec)
	}
	f := toks[2]
	switch {
	case timeFields[f]:
		t, ok := l.recTime(f)
		if !ok {
			t, ok = l.recTime("arrival_time_ms")
		}
		return timed(t, ok, rec)
	case f == "ttst_ms" && l.secondToken() != nil:
		return timed(*l.secondToken(), true, rec)
	case derivedFrom[f] != nil:
		t, ok := l.recTime(derivedFrom[f]...)
		if !ok && (f == "decode_worker_idx" || f == "prefill_worker_idx") {
			t, ok = l.recTime("arrival_time_ms") // aggregated: the worker is chosen at the arrival
		}
		return timed(t, ok, rec)
	case f == "admission_history" && len(toks) >= 4:
		if t, ok := minTime(l.elem(f, toks[3], "at_ms")); ok {
			return timed(t, true, rec+"/"+f+"/"+toks[3])
		}
	case f == "routing_history" && len(toks) >= 4:
		elem := rec + "/" + f + "/" + toks[3]
		if len(toks) == 5 && (laterInstant(toks[4]) || toks[4] == "queue_wait_ms") {
			// A release, and the wait that ends there, are placed at the release.
			if t, ok := minTime(l.elem(f, toks[3], "released_at_ms")); ok {
				return timed(t, true, elem)
			}
		}
		if t, ok := minTime(l.elem(f, toks[3], "queue_entered_at_ms")); ok {
			return timed(t, true, elem)
		}
		if pa, pb := l.elem(f, toks[3], "pool"); pb == "decode" || (pb == nil && pa == "decode") {
			t, ok := l.recTime(decodeRouting...)
			return timed(t, ok, elem)
		}
		t, ok := l.recTime("arrival_time_ms")
		return timed(t, ok, elem)
	}
	if t, ok, ev := elementTime(l, toks, a, b); ok {
		return timed(t, true, ev)
	}
	t, ok := l.recTime("terminal_time_ms", "arrival_time_ms")
	return timed(t, ok, rec)
}

// laterInstant says a member of an event is an instant of its own after the event's time (a
// release, a readmission): it is placed where it happens.
func laterInstant(key string) bool {
	return strings.HasSuffix(key, "_at_ms") && key != "at_ms" && key != "queue_entered_at_ms"
}

// secondToken is the earlier of the two sides' second-token times (first_token_ms +
// ttst_ms), or nil.
func (l *leaf) secondToken() *float64 {
	var ts []float64
	for _, r := range []map[string]any{l.recA, l.recB} {
		if r == nil {
			continue
		}
		ft, ok1 := numOf(r["first_token_ms"])
		tt, ok2 := numOf(r["ttst_ms"])
		if ok1 && ok2 {
			ts = append(ts, ft+tt)
		}
	}
	if len(ts) == 0 {
		return nil
	}
	t := math.Min(ts[0], ts[len(ts)-1])
	return &t
}

// elementTimeKeys name an event's own time, read in this order (then any *_at_ms member).
var elementTimeKeys = []string{"at_ms", "timestamp_ms", "time_ms", "ts_ms"}

// elementTime places a value inside an element of any ordered array whose elements carry a
// time at that element's time, the earlier of A's and B's (the event is the element).
func elementTime(l *leaf, toks []string, a, b *reportTree) (float64, bool, string) {
	i := len(toks) - 1
	for ; i >= 1; i-- {
		if _, ok := pointer.Index(toks[i]); ok && !(i == 1 && toks[0] == "per_request") {
			break
		}
	}
	if i < 1 {
		return 0, false, ""
	}
	elem := toks[:i+1]
	var sides [2]any
	if toks[0] == "per_request" {
		sides[0], sides[1] = inside(l.recA, elem[2:]), inside(l.recB, elem[2:])
	} else {
		sides[0], sides[1] = lookup(a, pointer.Join(elem)), lookup(b, pointer.Join(elem))
	}
	var ts [2]any
	own := len(toks) == i+2 && laterInstant(toks[i+1]) // an instant of its own
	for s, e := range sides {
		ts[s] = timeMember(e)
		if m, _ := e.(map[string]any); own && m != nil {
			if _, ok := numOf(m[toks[i+1]]); ok {
				ts[s] = m[toks[i+1]]
			}
		}
	}
	t, ok := minTime(ts[0], ts[1])
	return t, ok, pointer.Join(elem)
}

// inside walks tokens down from a value.
func inside(v any, toks []string) any {
	for _, tok := range toks {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, ok := pointer.Index(tok)
			if !ok || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// timeMember is an event object's own time, or nil.
func timeMember(v any) any {
	e, _ := v.(map[string]any)
	if e == nil {
		return nil
	}
	for _, k := range elementTimeKeys {
		if _, ok := numOf(e[k]); ok {
			return e[k]
		}
	}
	for _, k := range sortedKeys(e) {
		if _, ok := numOf(e[k]); ok && strings.HasSuffix(k, "_at_ms") {
			return e[k]
		}
	}
	return nil
}

// recTime is the time of the first of keys either record has, the earlier of the two sides.
func (l *leaf) recTime(keys ...string) (float64, bool) {
	for _, k := range keys {
		var a, b any
		if l.recA != nil {
			a = l.recA[k]
		}
		if l.recB != nil {
			b = l.recB[k]
		}
		if t, ok := minTime(a, b); ok {
			return t, true
		}
	}
	return 0, false
}

// elem reads member key of element idx of a record's array on both sides.
func (l *leaf) elem(arr, idx, key string) (any, any) {
	get := func(r map[string]any) any {
		if r == nil {
			return nil
		}
		i, ok := pointer.Index(idx)
		a, _ := r[arr].([]any)
		if !ok || i >= len(a) {
			return nil
		}
		e, _ := a[i].(map[string]any)
		return e[key]
	}
	return get(l.recA), get(l.recB)
}

func lookup(r *reportTree, ptr string) any {
	v, _ := r.Get(ptr)
	return v
}

// minTime is the earlier of two optional numeric times.
func minTime(a, b any) (float64, bool) {
	fa, oka := numOf(a)
	fb, okb := numOf(b)
	switch {
	case oka && okb:
		return math.Min(fa, fb), true
	case oka:
		return fa, true
	case okb:
		return fb, true
	}
	return 0, false
}
