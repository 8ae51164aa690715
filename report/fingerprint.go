package report

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A WorkFingerprint says what simulation one replay did, small enough to ride in every timing
// line: the gate times the work the digest verified only when a timed sample's fingerprint
// equals its arm's canonical run's. A timed run writes it after the timed call returns, from
// what the replay gives without capturing per-request records (the report's totals and a few
// counters the timing extension keeps); kvparity computes the same from the canonical record.
//
// Readmissions are not in it: telling a readmission from a first admission needs per-request
// state a timed run does not keep, and every readmission follows a pressure event, which is.
type WorkFingerprint struct {
	Scheme              string  `json:"scheme"`                                    // WorkScheme
	DurationMs          float64 `json:"duration_ms"`                               // virtual duration
	Requests            int64   `json:"num_requests"`                              // requests the trace offered
	Completed           int64   `json:"completed_requests"`                        // requests completed
	InputTokens         int64   `json:"total_input_tokens"`                        // of completed requests
	OutputTokens        int64   `json:"total_output_tokens"`                       // of completed requests
	PrefixReuse         float64 `json:"prefix_cache_reused_ratio"`                 // reused / input tokens
	FirstAdmissionReuse float64 `json:"first_admission_prefix_cache_reused_ratio"` // at first admission
	PressureEvents      int64   `json:"pressure_events"`                           // preemptions and retractions
	Admissions          int64   `json:"admissions"`                                // pool admissions, readmissions included
	Placements          int64   `json:"placements"`                                // routing decisions that chose a worker
	PlacementDigest     string  `json:"placement_digest"`                          // PlacementSum over them, 16 hex digits
}

// WorkScheme names the fingerprint's fields and the placement hash; a line written under another
// scheme is never compared field by field.
const WorkScheme = "kvparity.work.v1"

// workField is one field of a fingerprint as it compares: its JSON name and its value in words.
type workField struct{ name, value string }

func (f WorkFingerprint) fields() []workField {
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	g := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return []workField{
		{"scheme", f.Scheme},
		{"duration_ms", g(f.DurationMs)},
		{"num_requests", i(f.Requests)},
		{"completed_requests", i(f.Completed)},
		{"total_input_tokens", i(f.InputTokens)},
		{"total_output_tokens", i(f.OutputTokens)},
		{"prefix_cache_reused_ratio", g(f.PrefixReuse)},
		{"first_admission_prefix_cache_reused_ratio", g(f.FirstAdmissionReuse)},
		{"pressure_events", i(f.PressureEvents)},
		{"admissions", i(f.Admissions)},
		{"placements", i(f.Placements)},
		{"placement_digest", f.PlacementDigest},
	}
}

// String is the fingerprint in one line, field=value in a fixed order.
func (f WorkFingerprint) String() string {
	parts := make([]string, 0, 12)
	for _, w := range f.fields() {
		parts = append(parts, w.name+"="+w.value)
	}
	return strings.Join(parts, " ")
}

// A WorkDifference is the first field two fingerprints disagree on.
type WorkDifference struct {
	Field       string
	Want, Found string // the reference's value, the compared fingerprint's
}

func (d WorkDifference) String() string {
	return fmt.Sprintf("%s %s, not %s", d.Field, d.Found, d.Want)
}

// FirstDifference compares f against the reference want, field by field in the fixed order
// (floats exactly: both sides are the same f64 written by the same replay).
func (f WorkFingerprint) FirstDifference(want WorkFingerprint) (WorkDifference, bool) {
	a, b := want.fields(), f.fields()
	for i := range a {
		if a[i].value != b[i].value {
			return WorkDifference{Field: a[i].name, Want: a[i].value, Found: b[i].value}, true
		}
	}
	return WorkDifference{}, false
}

// ParseWorkFingerprint reads a timing line's work_fingerprint object; what names the place in
// errors. Every field must be present: a fingerprint missing one proves nothing.
func ParseWorkFingerprint(raw json.RawMessage, what string) (WorkFingerprint, error) {
	var f WorkFingerprint
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil || keys == nil {
		return f, fmt.Errorf("%s: /work_fingerprint is not a JSON object", what)
	}
	for _, w := range f.fields() {
		if _, ok := keys[w.name]; !ok {
			return f, fmt.Errorf("%s: /work_fingerprint/%s is missing", what, w.name)
		}
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return f, fmt.Errorf("%s: /work_fingerprint: %v", what, err)
	}
	if f.Scheme != WorkScheme {
		return f, fmt.Errorf("%s: /work_fingerprint/scheme is %q, kvparity reads %q", what, f.Scheme, WorkScheme)
	}
	if len(f.PlacementDigest) != 16 {
		return f, fmt.Errorf("%s: /work_fingerprint/placement_digest is %q, not 16 hex digits", what, f.PlacementDigest)
	}
	if _, err := hex.DecodeString(f.PlacementDigest); err != nil {
		return f, fmt.Errorf("%s: /work_fingerprint/placement_digest is %q, not 16 hex digits", what, f.PlacementDigest)
	}
	return f, nil
}

// PlacementSum is an order-free digest of placements: each placement (request uuid, pool,
// worker, dp rank) hashes to 64 bits and the hashes add up modulo 2^64, so a timed run can fold
// them as the replay decides them and a canonical record, whose routing histories are grouped
// per request, gives the same sum. The timing extension's Rust (bench_fingerprint::placement)
// computes exactly this; change both or neither.
type PlacementSum struct {
	N   int64
	Sum uint64
}

// poolIndex is the replay core's ReplayRequestPool order.
func poolIndex(pool string) (byte, error) {
	switch pool {
	case "agg":
		return 0, nil
	case "prefill":
		return 1, nil
	case "decode":
		return 2, nil
	}
	return 0, fmt.Errorf("unknown pool %q", pool)
}

// Add folds one placement: FNV-1a 64 over the uuid's 16 bytes, the pool's index byte, the
// worker as a little-endian u64 and the dp rank as a little-endian u32, then splitmix64's
// finalizer, added. It allocates nothing: a 5,000-request replay folds ~10,000 placements.
func (s *PlacementSum) Add(uuid, pool string, worker, dpRank int) error {
	var b [16 + 1 + 8 + 4]byte
	if !parseUUID(uuid, (*[16]byte)(b[:16])) {
		return fmt.Errorf("request uuid %q is not a UUID", uuid)
	}
	p, err := poolIndex(pool)
	if err != nil {
		return err
	}
	b[16] = p
	binary.LittleEndian.PutUint64(b[17:], uint64(worker))
	binary.LittleEndian.PutUint32(b[25:], uint32(dpRank))
	h := uint64(0xcbf29ce484222325)
	for _, c := range b {
		h ^= uint64(c)
		h *= 0x100000001b3
	}
	z := h + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	s.N++
	s.Sum += z
	return nil
}

// parseUUID reads the 32 hex digits of a hyphenated (8-4-4-4-12) or plain uuid into out.
func parseUUID(s string, out *[16]byte) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '-' && len(s) == 36 && (i == 8 || i == 13 || i == 18 || i == 23) {
			continue
		}
		v := hexValue[c]
		if v > 15 || n == 32 {
			return false
		}
		out[n/2] |= v << (4 * (1 - n%2))
		n++
	}
	return n == 32
}

// hexValue maps a byte to its hex digit's value, or 0xff: a table, since the fingerprint parses
// one uuid per placement.
var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c - '0'
	}
	for c := byte('a'); c <= 'f'; c++ {
		t[c], t[c-'a'+'A'] = c-'a'+10, c-'a'+10
	}
	return t
}()

// Hex is the sum as the fingerprint writes it.
func (s PlacementSum) Hex() string { return fmt.Sprintf("%016x", s.Sum) }

// workOf computes a canonical record's fingerprint from the evidence's decode of it: the
// summary's totals, the per-request placements and admissions, the pressure records.
func workOf(rec *evRecord) (*WorkFingerprint, error) {
	f := &WorkFingerprint{Scheme: WorkScheme}
	sm := &rec.Summary
	var err error
	num := func(n json.Number, field string, float bool) (float64, int64) {
		if err != nil {
			return 0, 0
		}
		if n == "" {
			err = fmt.Errorf("work fingerprint: /summary/%s is missing", field)
			return 0, 0
		}
		if float {
			v, e := n.Float64()
			if e != nil {
				err = fmt.Errorf("work fingerprint: /summary/%s is %s, not a number", field, n)
			}
			return v, 0
		}
		v, e := n.Int64()
		if e != nil {
			err = fmt.Errorf("work fingerprint: /summary/%s is %s, not an integer", field, n)
		}
		return 0, v
	}
	if sm.DurationMs == nil || sm.NumRequests == nil {
		return nil, fmt.Errorf("work fingerprint: /summary/duration_ms or /summary/num_requests is missing")
	}
	f.DurationMs, f.Requests = *sm.DurationMs, int64(*sm.NumRequests)
	_, f.Completed = num(sm.Completed, "completed_requests", false)
	_, f.InputTokens = num(sm.InputTokens, "total_input_tokens", false)
	_, f.OutputTokens = num(sm.OutputTokens, "total_output_tokens", false)
	f.PrefixReuse, _ = num(sm.PrefixReuse, "prefix_cache_reused_ratio", true)
	f.FirstAdmissionReuse, _ = num(sm.FirstAdmissionReuse, "first_admission_prefix_cache_reused_ratio", true)
	if err != nil {
		return nil, err
	}
	var sum PlacementSum
	for i := range rec.PerRequest {
		r := &rec.PerRequest[i]
		f.Admissions += int64(len(r.AdmissionHistory))
		for j, d := range r.RoutingHistory {
			if d.LogicalWorkerID == nil {
				continue // queued and never released: no worker was chosen
			}
			if err := sum.Add(r.UUID, d.Pool, *d.LogicalWorkerID, d.DPRank); err != nil {
				return nil, fmt.Errorf("work fingerprint: /per_request/%d/routing_history/%d: %v", i, j, err)
			}
		}
	}
	f.Placements, f.PlacementDigest = sum.N, sum.Hex()
	if pr := rec.Coverage.Pressure; pr != nil {
		f.PressureEvents = int64(len(pr.Records))
	}
	return f, nil
}
