package diffview

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"kvparity/internal/jsonscan"
)

// A Divergence is the earliest point in virtual time at which the two runs' histories differ.
type Divergence struct {
	AtMs    float64 // virtual time of the first differing event (math.Inf(-1): configuration)
	Timed   bool    // false when no differing pointer carries a virtual time (summary only)
	Change  int     // index into Diff.Changes
	Pointer string
	Request string // uuid, "" for run-level events
	Event   string // what happened there, in the protocol's words
	A, B    string
}

// String is the one-line headline the pane and the CLI show.
func (v *Divergence) String() string {
	if v == nil {
		return "none: the reports are byte-identical"
	}
	where := "no virtual time (run-level fields only)"
	switch {
	case v.Timed && math.IsInf(v.AtMs, -1):
		where = "before virtual time 0"
	case v.Timed:
		where = "t=" + FormatMs(v.AtMs) + " ms"
	}
	s := where + " · " + v.Event
	if v.Request != "" {
		s += " · request " + v.Request
	}
	return s + " · " + v.Pointer + " " + Short(v.A) + " → " + Short(v.B)
}

// FormatMs prints a virtual time for people: at most six decimals (a nanosecond), no padding.
func FormatMs(x float64) string {
	s := strconv.FormatFloat(x, 'f', 6, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Short is a raw value cut for one line of text (∅ when absent).
func Short(s string) string {
	if s == "" {
		return "∅"
	}
	if len(s) > 40 {
		return s[:37] + "…"
	}
	return s
}

// TimeFields are per-request virtual timestamps; each names its own event.
var TimeFields = map[string]string{
	"arrival_time_ms":          "arrival",
	"dispatched_at_ms":         "dispatch",
	"first_admit_ms":           "first admission",
	"prefill_admit_ms":         "prefill admission",
	"source_held_ms":           "handoff: source held",
	"destination_reserved_ms":  "handoff: destination reserved",
	"destination_activated_ms": "handoff: destination activated",
	"decode_admit_ms":          "decode admission",
	"source_released_ms":       "handoff: source released",
	"first_token_ms":           "first token",
	"last_token_ms":            "last token",
	"terminal_time_ms":         "terminal",
}

// DerivedFrom maps a per-request value to the timestamp of the event that produces it.
var DerivedFrom = map[string][]string{
	"ttft_ms":                      {"first_token_ms"},
	"ttst_ms":                      {"first_token_ms"},
	"e2e_latency_ms":               {"last_token_ms"},
	"itl_ms":                       {"last_token_ms"},
	"output_length":                {"last_token_ms"},
	"reused_input_tokens":          {"first_admit_ms"},
	"prefill_worker_idx":           {"arrival_time_ms"},
	"prefill_route_overlap_tokens": {"arrival_time_ms"},
	"decode_worker_idx":            {"source_held_ms", "destination_reserved_ms", "decode_admit_ms"},
	"decode_route_overlap_tokens":  {"source_held_ms", "destination_reserved_ms", "decode_admit_ms"},
	"decode_reused_input_tokens":   {"decode_admit_ms"},
	"terminal_status":              {"terminal_time_ms"},
	"uuid":                         {"arrival_time_ms"},
	"session_id":                   {"arrival_time_ms"},
	"request_id":                   {"arrival_time_ms"},
	"input_length":                 {"arrival_time_ms"},
	"requested_output_length":      {"arrival_time_ms"},
}

// ParseNumber reads a raw value as a number (null and absent are none).
func ParseNumber(s string) (float64, bool) {
	if s == "" || s == "null" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// minTime is the earlier of two optional times.
func minTime(a string, aok bool, b string, bok bool) (float64, bool) {
	fa, oka := 0.0, false
	fb, okb := 0.0, false
	if aok {
		fa, oka = ParseNumber(a)
	}
	if bok {
		fb, okb = ParseNumber(b)
	}
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

// RecordTime is the time of field key in the request on either side (earliest).
func (d *Diff) RecordTime(c *Change, keys ...string) (float64, bool) {
	for _, k := range keys {
		a, aok := d.DocA.Field(c.IndexA, k)
		b, bok := d.DocB.Field(c.IndexB, k)
		if t, ok := minTime(a, aok, b, bok); ok {
			return t, true
		}
	}
	return 0, false
}

// ElementField reads key of element idx of the ordered array arr in a request, on either side.
func (d *Diff) ElementField(c *Change, arr string, idx int, key string) (float64, bool, string) {
	var vals [2]string
	var oks [2]bool
	for s, dd := range []*Doc{d.DocA, d.DocB} {
		ri := c.IndexA
		if s == 1 {
			ri = c.IndexB
		}
		if ri < 0 {
			continue
		}
		vals[s], oks[s] = dd.ElementMember(ri, arr, idx, key)
	}
	t, ok := minTime(vals[0], oks[0], vals[1], oks[1])
	label := ""
	for s := range vals {
		if oks[s] {
			label = vals[s]
		}
	}
	return t, ok, label
}

// ElementMember reads member key of element idx of array arr in per_request record ri.
func (d *Doc) ElementMember(ri int, arr string, idx int, key string) (string, bool) {
	a, ok := d.FieldValue(ri, arr)
	if !ok || d.Kind(a) != jsonscan.Array {
		return "", false
	}
	e, ok := d.Scanner.Element(a, idx)
	if !ok || d.Kind(e) != jsonscan.Object {
		return "", false
	}
	v, ok := d.Scanner.Member(e, key)
	if !ok {
		return "", false
	}
	return d.Raw(v), true
}

// eventOf places one change in virtual time and names the event it belongs to.
func (d *Diff) eventOf(c *Change) (t float64, timed bool, event string) {
	segs := SplitPointer(c.Pointer)
	if len(segs) == 0 {
		return 0, false, "report"
	}
	switch segs[0] {
	case "metadata":
		return math.Inf(-1), true, "configuration"
	case "coverage":
		if len(segs) >= 4 && segs[1] == "pressure" && segs[2] == "records" {
			k, _ := strconv.Atoi(segs[3])
			ptr := "/coverage/pressure/records/" + segs[3]
			at := "/at_ms"
			if len(segs) == 5 && laterInstant(segs[4]) {
				at = "/" + segs[4] // a readmission is placed where it happens
			}
			a, aok := d.DocA.At(ptr + at)
			b, bok := d.DocB.At(ptr + at)
			t, ok := minTime(a, aok, b, bok)
			kind, _ := d.DocB.At(ptr + "/kind")
			if kind == "" {
				kind, _ = d.DocA.At(ptr + "/kind")
			}
			return t, ok, fmt.Sprintf("pressure event #%d %s", k, strings.Trim(kind, `"`))
		}
		if t, ok, ev := d.elementTime(c); ok {
			return t, true, ev
		}
		return 0, false, "coverage counter"
	case "per_request":
		if len(segs) < 3 {
			t, ok := d.RecordTime(c, "arrival_time_ms")
			return t, ok, "request record " + c.Kind.String()
		}
		f := segs[2]
		if ev, ok := TimeFields[f]; ok {
			t, ok := d.RecordTime(c, f)
			if !ok {
				t, ok = d.RecordTime(c, "arrival_time_ms")
			}
			return t, ok, ev
		}
		if f == "ttst_ms" { // the second token: first token plus the time to it
			if t, ok := d.secondToken(c); ok {
				return t, true, "ttst_ms (second token)"
			}
		}
		if keys, ok := DerivedFrom[f]; ok {
			t, ok := d.RecordTime(c, keys...)
			if !ok && DecisionKey(c.Pointer) {
				// No hand-off instants: an aggregated run's worker is chosen at the arrival.
				keys = []string{"arrival_time_ms"}
				t, ok = d.RecordTime(c, keys...)
			}
			return t, ok, f + " (" + TimeFields[keys[0]] + ")"
		}
		switch f {
		case "admission_history":
			if len(segs) >= 4 {
				k, _ := strconv.Atoi(segs[3])
				if t, ok, _ := d.ElementField(c, f, k, "at_ms"); ok {
					_, _, pool := d.ElementField(c, f, k, "pool")
					return t, true, fmt.Sprintf("admission #%d (pool %s)", k, strings.Trim(pool, `"`))
				}
			}
		case "routing_history":
			if len(segs) >= 4 {
				k, _ := strconv.Atoi(segs[3])
				_, _, pool := d.ElementField(c, f, k, "pool")
				pool = strings.Trim(pool, `"`)
				ev := fmt.Sprintf("routing decision #%d (pool %s)", k, pool)
				if len(segs) == 5 && (laterInstant(segs[4]) || segs[4] == "queue_wait_ms") {
					// A release, and the wait that ends there, are placed at the release.
					if t, ok, _ := d.ElementField(c, f, k, "released_at_ms"); ok {
						return t, true, fmt.Sprintf("routing decision #%d (pool %s): release", k, pool)
					}
				}
				if t, ok, _ := d.ElementField(c, f, k, "queue_entered_at_ms"); ok {
					return t, true, ev
				}
				if pool == "decode" {
					t, ok := d.RecordTime(c, "source_held_ms", "destination_reserved_ms", "decode_admit_ms")
					return t, ok, ev
				}
				t, ok := d.RecordTime(c, "arrival_time_ms")
				return t, ok, ev
			}
		}
		if t, ok, ev := d.elementTime(c); ok {
			return t, true, ev
		}
		t, ok := d.RecordTime(c, "terminal_time_ms", "arrival_time_ms")
		return t, ok, f
	}
	if t, ok, ev := d.elementTime(c); ok {
		return t, true, ev
	}
	return 0, false, segs[0]
}

// An eventInfo caches eventOf for one change; t is NaN when the event has no virtual time
// (24 bytes, not 32: it is kept for every change).
type eventInfo struct {
	t    float64
	name string
}

// EventAt is where Changes[i] was placed: its virtual time, whether it has one, and its event
// (eventOf, computed once per diff).
func (d *Diff) EventAt(i int) (float64, bool, string) {
	if d.events == nil {
		d.events = make([]eventInfo, len(d.Changes))
		for k := range d.Changes {
			t, ok, ev := d.eventOf(&d.Changes[k])
			if !ok {
				t = math.NaN()
			}
			d.events[k] = eventInfo{t, ev}
		}
	}
	e := d.events[i]
	if math.IsNaN(e.t) {
		return 0, false, e.name
	}
	return e.t, true, e.name
}

// Event names the event Changes[i] belongs to and, when it has one, its virtual time:
// "admission #2 (pool decode) at t=140.25 ms", or the event alone ("coverage counter").
func (d *Diff) Event(i int) string {
	t, ok, e := d.EventAt(i)
	if !ok {
		return e
	}
	return fmt.Sprintf("%s at t=%s ms", e, FormatMs(t))
}

// rankOf orders candidates for the first divergence: a point in the run's history first,
// then configuration (metadata, "before time 0"), then run-level values with no time. A
// differing setting is named by the diagnosis; the divergence points into the history.
func rankOf(timed bool, t float64) int {
	switch {
	case timed && !math.IsInf(t, -1):
		return 0
	case timed:
		return 1
	}
	return 2
}

func firstDivergence(d *Diff) *Divergence {
	if len(d.Changes) == 0 {
		return nil
	}
	best := -1
	var bt float64
	var bTimed bool
	var bev string
	// A field that one version's records carry and the other's do not is the layout, not the
	// history: the first divergence is found among the rest, when there is a rest.
	layout := 0
	for i := range d.Changes {
		if d.SchemaPointer(&d.Changes[i]) {
			layout++
		}
	}
	for i := range d.Changes {
		if layout > 0 && layout < len(d.Changes) && d.SchemaPointer(&d.Changes[i]) {
			continue
		}
		t, timed, ev := d.EventAt(i)
		better := best < 0 || rankOf(timed, t) < rankOf(bTimed, bt) ||
			(rankOf(timed, t) == rankOf(bTimed, bt) && timed && (t < bt ||
				(t == bt && DecisionRank(d.Changes[i].Pointer) < DecisionRank(d.Changes[best].Pointer))))
		if better {
			best, bt, bTimed, bev = i, t, timed, ev
		}
	}
	c := d.Changes[best]
	return &Divergence{AtMs: bt, Timed: bTimed, Change: best, Pointer: c.Pointer, Request: c.Request, Event: bev, A: c.A, B: c.B}
}

// laterInstant says a member of an event is an instant of its own after the event's time (a
// release, a readmission): a value is placed where it happens, so a consequence after a flip
// never reads as earlier than the flip.
func laterInstant(key string) bool {
	return strings.HasSuffix(key, "_at_ms") && key != "at_ms" && key != "queue_entered_at_ms"
}

// secondToken is the time of a request's second token on either side (earliest): its first
// token plus its time to the second.
func (d *Diff) secondToken(c *Change) (float64, bool) {
	var ts []float64
	for s, dd := range []*Doc{d.DocA, d.DocB} {
		ri := c.IndexA
		if s == 1 {
			ri = c.IndexB
		}
		ft, ok1 := dd.Field(ri, "first_token_ms")
		tt, ok2 := dd.Field(ri, "ttst_ms")
		x, okx := ParseNumber(ft)
		y, oky := ParseNumber(tt)
		if ri >= 0 && ok1 && ok2 && okx && oky {
			ts = append(ts, x+y)
		}
	}
	if len(ts) == 0 {
		return 0, false
	}
	return slices.Min(ts), true
}

// elementTimeKeys name an event's own virtual time, in the order they are read.
var elementTimeKeys = []string{"at_ms", "timestamp_ms", "time_ms", "ts_ms"}

// elementTime places a change inside an element of any ordered array whose elements carry a
// time (an at_ms, a timestamp, a *_at_ms member) at that element's time, the earlier of A's
// and B's, so the first divergence is the earliest across every timed array, not only the
// histories and pressure records the report's schema names.
func (d *Diff) elementTime(c *Change) (float64, bool, string) {
	arr, elem, k, ok := ElementPrefix(c.Pointer)
	if !ok || !d.eventArray(arr) {
		return 0, false, ""
	}
	key := LastSegment(c.Pointer)
	own := laterInstant(key) && len(elem)+1+len(key) == len(c.Pointer) // a member of the event itself, an instant of its own: placed where it happens
	var ts []float64
	for s, dd := range []*Doc{d.DocA, d.DocB} {
		p := elem
		if s == 0 {
			p = d.SideA(c, elem)
		}
		if own {
			if raw, ok := dd.At(p + "/" + key); ok {
				if t, ok := ParseNumber(raw); ok {
					ts = append(ts, t)
					continue
				}
			}
		}
		v, ok := dd.Value(p)
		if !ok || dd.Kind(v) != jsonscan.Object {
			continue
		}
		if t, ok := timeMember(dd, v); ok {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return 0, false, ""
	}
	return slices.Min(ts), true, fmt.Sprintf("event #%d of %s", k, LastSegment(arr))
}

// eventArray says the array at ptr (B's, else A's) holds objects: only events carry a time
// (an array of numbers is not read element by element). Kept per array.
func (d *Diff) eventArray(ptr string) bool {
	if ok, seen := d.objectArrays[ptr]; seen {
		return ok
	}
	ok := false
	for _, dd := range []*Doc{d.DocB, d.DocA} {
		if v, found := dd.Value(ptr); found && dd.Kind(v) == jsonscan.Array {
			if e, found := dd.Scanner.Element(v, 0); found {
				ok = dd.Kind(e) == jsonscan.Object
				break
			}
		}
	}
	if d.objectArrays == nil {
		d.objectArrays = map[string]bool{}
	}
	d.objectArrays[ptr] = ok
	return ok
}

// timeMember reads an event object's own time.
func timeMember(dd *Doc, v int32) (float64, bool) {
	for _, key := range elementTimeKeys {
		if m, ok := dd.Scanner.Member(v, key); ok {
			if t, ok := ParseNumber(dd.Raw(m)); ok {
				return t, true
			}
		}
	}
	for _, m := range dd.Members(v) {
		if strings.HasSuffix(m.Key, "_at_ms") {
			if t, ok := ParseNumber(dd.Raw(m.Val)); ok {
				return t, true
			}
		}
	}
	return 0, false
}

// SideA rewrites a B-side per_request pointer to the A-side record index of change c.
func (d *Diff) SideA(c *Change, ptr string) string {
	segs := SplitPointer(ptr)
	if len(segs) >= 2 && segs[0] == "per_request" && c.IndexA >= 0 {
		segs[1] = strconv.Itoa(c.IndexA)
		return PointerOf(segs)
	}
	return ptr
}

// DecisionKey says a pointer is a routing or placement decision.
func DecisionKey(p string) bool {
	switch LastSegment(p) {
	case "logical_worker_id", "scheduler_id", "dp_rank", "prefill_worker_idx", "decode_worker_idx", "worker_id":
		return true
	case "request_uuid":
		return strings.HasPrefix(p, "/coverage/pressure/records/") // the preemption victim
	case "outcome":
		return strings.Contains(p, "/routing_history/") // admitted at once, or queued
	}
	return false
}

// DecisionRank orders changes at one instant: the decision itself (the worker or victim
// chosen) before the other fields of its record, and those before derived values.
func DecisionRank(p string) int {
	routing := strings.Contains(p, "/routing_history/")
	pressure := strings.HasPrefix(p, "/coverage/pressure/records/")
	switch {
	case routing && DecisionKey(p):
		return 0
	case pressure && DecisionKey(p):
		return 1
	case routing:
		return 2
	case pressure:
		return 3
	}
	return 4
}
