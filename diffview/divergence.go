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
	request string // uuid, "" for run-level events
	event   string // what happened there, in the protocol's words
	a, b    string
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
		where = "t=" + fmtMs(v.AtMs) + " ms"
	}
	s := where + " · " + v.event
	if v.request != "" {
		s += " · request " + v.request
	}
	return s + " · " + v.Pointer + " " + short(v.a) + " → " + short(v.b)
}

// fmtMs prints a virtual time for people: at most six decimals (a nanosecond), no padding.
func fmtMs(x float64) string {
	s := strconv.FormatFloat(x, 'f', 6, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func short(s string) string {
	if s == "" {
		return "∅"
	}
	if len(s) > 40 {
		return s[:37] + "…"
	}
	return s
}

// timeFields are per-request virtual timestamps; each names its own event.
var timeFields = map[string]string{
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

// derivedFrom maps a per-request value to the timestamp of the event that produces it.
var derivedFrom = map[string][]string{
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

func parseNum(s string) (float64, bool) {
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
		fa, oka = parseNum(a)
	}
	if bok {
		fb, okb = parseNum(b)
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

// recordTime is the time of field key in the request on either side (earliest).
func (d *Diff) recordTime(c *Change, keys ...string) (float64, bool) {
	for _, k := range keys {
		a, aok := d.docA.field(c.indexA, k)
		b, bok := d.docB.field(c.indexB, k)
		if t, ok := minTime(a, aok, b, bok); ok {
			return t, true
		}
	}
	return 0, false
}

// elemField reads key of element idx of the ordered array arr in a request, on either side.
func (d *Diff) elemField(c *Change, arr string, idx int, key string) (float64, bool, string) {
	var vals [2]string
	var oks [2]bool
	for s, dd := range []*doc{d.docA, d.docB} {
		ri := c.indexA
		if s == 1 {
			ri = c.indexB
		}
		if ri < 0 {
			continue
		}
		vals[s], oks[s] = dd.elementMember(ri, arr, idx, key)
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

// elementMember reads member key of element idx of array arr in per_request record ri.
func (d *doc) elementMember(ri int, arr string, idx int, key string) (string, bool) {
	a, ok := d.fieldValue(ri, arr)
	if !ok || d.kind(a) != jsonscan.Array {
		return "", false
	}
	e, ok := d.sc.Element(a, idx)
	if !ok || d.kind(e) != jsonscan.Object {
		return "", false
	}
	v, ok := d.sc.Member(e, key)
	if !ok {
		return "", false
	}
	return d.raw(v), true
}

// eventOf places one change in virtual time and names the event it belongs to.
func (d *Diff) eventOf(c *Change) (t float64, timed bool, event string) {
	segs := splitPointer(c.Pointer)
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
			a, aok := d.docA.at(ptr + at)
			b, bok := d.docB.at(ptr + at)
			t, ok := minTime(a, aok, b, bok)
			kind, _ := d.docB.at(ptr + "/kind")
			if kind == "" {
				kind, _ = d.docA.at(ptr + "/kind")
			}
			return t, ok, fmt.Sprintf("pressure event #%d %s", k, strings.Trim(kind, `"`))
		}
		if t, ok, ev := d.elementTime(c); ok {
			return t, true, ev
		}
		return 0, false, "coverage counter"
	case "per_request":
		if len(segs) < 3 {
			t, ok := d.recordTime(c, "arrival_time_ms")
			return t, ok, "request record " + c.Kind.String()
		}
		f := segs[2]
		if ev, ok := timeFields[f]; ok {
			t, ok := d.recordTime(c, f)
			if !ok {
				t, ok = d.recordTime(c, "arrival_time_ms")
			}
			return t, ok, ev
		}
		if f == "ttst_ms" { // the second token: first token plus the time to it
			if t, ok := d.secondToken(c); ok {
				return t, true, "ttst_ms (second token)"
			}
		}
		if keys, ok := derivedFrom[f]; ok {
			t, ok := d.recordTime(c, keys...)
			if !ok && decisionKey(c.Pointer) {
				// No hand-off instants: an aggregated run's worker is chosen at the arrival.
				keys = []string{"arrival_time_ms"}
				t, ok = d.recordTime(c, keys...)
			}
			return t, ok, f + " (" + timeFields[keys[0]] + ")"
		}
		switch f {
		case "admission_history":
			if len(segs) >= 4 {
				k, _ := strconv.Atoi(segs[3])
				if t, ok, _ := d.elemField(c, f, k, "at_ms"); ok {
					_, _, pool := d.elemField(c, f, k, "pool")
					return t, true, fmt.Sprintf("admission #%d (pool %s)", k, strings.Trim(pool, `"`))
				}
			}
		case "routing_history":
			if len(segs) >= 4 {
				k, _ := strconv.Atoi(segs[3])
				_, _, pool := d.elemField(c, f, k, "pool")
				pool = strings.Trim(pool, `"`)
				ev := fmt.Sprintf("routing decision #%d (pool %s)", k, pool)
				if len(segs) == 5 && (laterInstant(segs[4]) || segs[4] == "queue_wait_ms") {
					// A release, and the wait that ends there, are placed at the release.
					if t, ok, _ := d.elemField(c, f, k, "released_at_ms"); ok {
						return t, true, fmt.Sprintf("routing decision #%d (pool %s): release", k, pool)
					}
				}
				if t, ok, _ := d.elemField(c, f, k, "queue_entered_at_ms"); ok {
					return t, true, ev
				}
				if pool == "decode" {
					t, ok := d.recordTime(c, "source_held_ms", "destination_reserved_ms", "decode_admit_ms")
					return t, ok, ev
				}
				t, ok := d.recordTime(c, "arrival_time_ms")
				return t, ok, ev
			}
		}
		if t, ok, ev := d.elementTime(c); ok {
			return t, true, ev
		}
		t, ok := d.recordTime(c, "terminal_time_ms", "arrival_time_ms")
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

// eventAt is eventOf for Changes[i], computed once per diff.
func (d *Diff) eventAt(i int) (float64, bool, string) {
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
	t, ok, e := d.eventAt(i)
	if !ok {
		return e
	}
	return fmt.Sprintf("%s at t=%s ms", e, fmtMs(t))
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
		if d.schemaPointer(&d.Changes[i]) {
			layout++
		}
	}
	for i := range d.Changes {
		if layout > 0 && layout < len(d.Changes) && d.schemaPointer(&d.Changes[i]) {
			continue
		}
		t, timed, ev := d.eventAt(i)
		better := best < 0 || rankOf(timed, t) < rankOf(bTimed, bt) ||
			(rankOf(timed, t) == rankOf(bTimed, bt) && timed && (t < bt ||
				(t == bt && decisionRank(d.Changes[i].Pointer) < decisionRank(d.Changes[best].Pointer))))
		if better {
			best, bt, bTimed, bev = i, t, timed, ev
		}
	}
	c := d.Changes[best]
	return &Divergence{AtMs: bt, Timed: bTimed, Change: best, Pointer: c.Pointer, request: c.Request, event: bev, a: c.A, b: c.B}
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
	for s, dd := range []*doc{d.docA, d.docB} {
		ri := c.indexA
		if s == 1 {
			ri = c.indexB
		}
		ft, ok1 := dd.field(ri, "first_token_ms")
		tt, ok2 := dd.field(ri, "ttst_ms")
		x, okx := parseNum(ft)
		y, oky := parseNum(tt)
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
	arr, elem, k, ok := elementPrefix(c.Pointer)
	if !ok || !d.eventArray(arr) {
		return 0, false, ""
	}
	key := lastSeg(c.Pointer)
	own := laterInstant(key) && len(elem)+1+len(key) == len(c.Pointer) // a member of the event itself, an instant of its own: placed where it happens
	var ts []float64
	for s, dd := range []*doc{d.docA, d.docB} {
		p := elem
		if s == 0 {
			p = d.sideA(c, elem)
		}
		if own {
			if raw, ok := dd.at(p + "/" + key); ok {
				if t, ok := parseNum(raw); ok {
					ts = append(ts, t)
					continue
				}
			}
		}
		v, ok := dd.value(p)
		if !ok || dd.kind(v) != jsonscan.Object {
			continue
		}
		if t, ok := timeMember(dd, v); ok {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return 0, false, ""
	}
	return slices.Min(ts), true, fmt.Sprintf("event #%d of %s", k, lastSeg(arr))
}

// eventArray says the array at ptr (B's, else A's) holds objects: only events carry a time
// (an array of numbers is not read element by element). Kept per array.
func (d *Diff) eventArray(ptr string) bool {
	if ok, seen := d.objectArrays[ptr]; seen {
		return ok
	}
	ok := false
	for _, dd := range []*doc{d.docB, d.docA} {
		if v, found := dd.value(ptr); found && dd.kind(v) == jsonscan.Array {
			if e, found := dd.sc.Element(v, 0); found {
				ok = dd.kind(e) == jsonscan.Object
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
func timeMember(dd *doc, v int32) (float64, bool) {
	for _, key := range elementTimeKeys {
		if m, ok := dd.sc.Member(v, key); ok {
			if t, ok := parseNum(dd.raw(m)); ok {
				return t, true
			}
		}
	}
	for _, m := range dd.members(v) {
		if strings.HasSuffix(m.key, "_at_ms") {
			if t, ok := parseNum(dd.raw(m.val)); ok {
				return t, true
			}
		}
	}
	return 0, false
}
