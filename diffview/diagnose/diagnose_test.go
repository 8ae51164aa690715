package diagnose

import (
	"crypto/rand"
	"fmt"
	"sort"
	"strings"
	"testing"

	"kvparity/diffview"
	fx "kvparity/diffview/difftest"
)

// top returns the first signature and fails unless its code is want.
func top(t *testing.T, d *Diff, want SignatureCode) Signature {
	t.Helper()
	if len(d.Diagnosis) == 0 {
		t.Fatalf("no diagnosis; want %s", want)
	}
	if d.Diagnosis[0].Code != want {
		var got []string
		for _, s := range d.Diagnosis {
			got = append(got, s.String())
		}
		t.Fatalf("top signature %s, want %s; all: %v", d.Diagnosis[0].Code, want, got)
	}
	return d.Diagnosis[0]
}

func evidence(s Signature) string { return strings.Join(s.Evidence, "\n") }

func TestDiagnoseTieOrderPressureRecords(t *testing.T) {
	a := fx.Report(40, 5) // records for requests 4, 9, 14, ...
	// Put records 1 and 2 at the same virtual time in both runs.
	at := fx.Get(a, "/coverage/pressure/records/1/at_ms")
	fx.Set(a, "/coverage/pressure/records/2/at_ms", at)
	b := fx.Clone(a)
	// B processed the two same-time preemptions in the other order: positions (and so
	// ordinals) swapped, and the requests' ordinal references follow.
	r1, r2 := fx.Get(b, "/coverage/pressure/records/1").(map[string]any), fx.Get(b, "/coverage/pressure/records/2").(map[string]any)
	r1["pressure_ordinal"], r2["pressure_ordinal"] = r2["pressure_ordinal"], r1["pressure_ordinal"]
	fx.Set(b, "/coverage/pressure/records/1", r2)
	fx.Set(b, "/coverage/pressure/records/2", r1)
	fx.Set(b, "/per_request/9/pressure_record_ordinals/0", fx.Int(2))
	fx.Set(b, "/per_request/14/pressure_record_ordinals/0", fx.Int(1))
	d := mustDiff(t, a, b)
	s := top(t, d, SigTieOrder)
	if s.Explains != s.Of {
		t.Errorf("tie order should explain all %d, explains %d", s.Of, s.Explains)
	}
	ev := evidence(s)
	for _, w := range []string{"/coverage/pressure/records: 1 tie group(s) reordered", "2 events at " + at.(interface{ String() string }).String() + " ms permuted", "2 ordinal reference(s)"} {
		if !strings.Contains(ev, w) {
			t.Errorf("evidence lacks %q:\n%s", w, ev)
		}
	}
}

func TestDiagnoseTieOrderRejectsMovedTimestamps(t *testing.T) {
	a := fx.Report(40, 5)
	b := fx.Clone(a)
	r1, r2 := fx.Get(b, "/coverage/pressure/records/1"), fx.Get(b, "/coverage/pressure/records/2")
	fx.Set(b, "/coverage/pressure/records/1", r2)
	fx.Set(b, "/coverage/pressure/records/2", r1)
	d := mustDiff(t, a, b)
	for _, s := range d.Diagnosis {
		if s.Code == SigTieOrder {
			t.Fatalf("records at different times swapped is not a tie reordering: %v", s)
		}
	}
}

// Seed 000: a subset of decode-admit, destination-activation and terminal timestamps moved by
// exact 0.123076 ms increments.
func TestDiagnoseConstantQuantumSeed000(t *testing.T) {
	a := fx.Report(60, 0)
	b := fx.Clone(a)
	const q = 0.123076
	for i, k := range map[int]int{7: 1, 19: 2, 23: 1, 40: 3, 41: 1} {
		for _, f := range []string{"decode_admit_ms", "destination_activated_ms", "terminal_time_ms", "last_token_ms", "e2e_latency_ms"} {
			fx.Shift(b, fmt.Sprintf("/per_request/%d/%s", i, f), float64(k)*q)
		}
	}
	d := mustDiff(t, a, b)
	s := top(t, d, SigQuantum)
	if s.Quantum < q-1e-9 || s.Quantum > q+1e-9 {
		t.Fatalf("quantum %v, want %v", s.Quantum, q)
	}
	if !strings.Contains(s.Label, "0.123076 ms") || !strings.Contains(evidence(s), "whole multiple of 0.123076 ms (×1: 15, ×2: 5, ×3: 5)") {
		t.Errorf("label %q evidence:\n%s", s.Label, evidence(s))
	}
	if !strings.Contains(evidence(s), "5 request(s) shifted") {
		t.Errorf("evidence:\n%s", evidence(s))
	}
}

func TestDiagnoseQuantumRejectsIrregularShifts(t *testing.T) {
	a := fx.Report(20, 0)
	b := fx.Clone(a)
	fx.Shift(b, "/per_request/3/terminal_time_ms", 0.1)
	fx.Shift(b, "/per_request/5/terminal_time_ms", 0.1732)
	d := mustDiff(t, a, b)
	for _, s := range d.Diagnosis {
		if s.Code == SigQuantum {
			t.Fatalf("0.1 and 0.1732 share no quantum: %v", s)
		}
	}
	top(t, d, SigUnclassified)
}

func randomUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func TestDiagnoseUUIDDrift(t *testing.T) {
	a := fx.Report(25, 6)
	b := fx.Clone(a)
	rename := map[string]string{}
	reqs := fx.Get(b, "/per_request").([]any)
	for _, r := range reqs {
		m := r.(map[string]any)
		u := randomUUID()
		rename[m["uuid"].(string)] = u
		m["uuid"] = u
	}
	for _, r := range fx.Get(b, "/coverage/pressure/records").([]any) {
		m := r.(map[string]any)
		m["request_uuid"] = rename[m["request_uuid"].(string)]
	}
	sort.Slice(reqs, func(i, j int) bool {
		return reqs[i].(map[string]any)["uuid"].(string) < reqs[j].(map[string]any)["uuid"].(string)
	})
	d := mustDiff(t, a, b)
	s := top(t, d, SigIDDrift)
	if s.Explains != s.Of || s.Of != 25+4 {
		t.Fatalf("id drift should explain all 29 changes (25 uuids + 4 pressure request_uuid), got %d/%d: %v", s.Explains, s.Of, d.Pointers())
	}
	ev := evidence(s)
	for _, w := range []string{"bijection", "25 per-request record(s) paired by content", "29 of 29 B value(s) match the random UUIDv4 pattern"} {
		if !strings.Contains(ev, w) {
			t.Errorf("evidence lacks %q:\n%s", w, ev)
		}
	}
	for _, c := range d.Changes {
		if c.Kind != diffview.Changed {
			t.Fatalf("renamed records must pair, got %v %s", c.Kind, c.Pointer)
		}
	}
}

func TestDiagnoseWallClock(t *testing.T) {
	a := fx.Report(10, 0)
	b := fx.Clone(a)
	for i := 0; i < 10; i++ {
		fx.Set(a, fmt.Sprintf("/per_request/%d/dispatched_at_ms", i), fx.Num(1764405000123.25+float64(i)))
		fx.Set(b, fmt.Sprintf("/per_request/%d/dispatched_at_ms", i), fx.Num(1764405007456.5+float64(i)))
	}
	d := mustDiff(t, a, b)
	s := top(t, d, SigWallClock)
	ev := evidence(s)
	if s.Explains != 10 || !strings.Contains(ev, "epoch timestamp in ms") || !strings.Contains(ev, "B − A ranges over [7333.25, 7333.25]") {
		t.Fatalf("explains %d evidence:\n%s", s.Explains, ev)
	}
}

func TestDiagnoseFloatNoise(t *testing.T) {
	a := fx.Report(10, 0)
	b := fx.Clone(a)
	fx.NextULP(b, "/summary/mean_e2e_latency_ms")
	fx.NextULP(b, "/summary/prefix_cache_reused_ratio")
	d := mustDiff(t, a, b)
	s := top(t, d, SigFloatNoise)
	if s.Explains != 2 || s.Of != 2 || !strings.Contains(evidence(s), "max 1 ULP") {
		t.Fatalf("%v\n%s", s, evidence(s))
	}
}

// Seed 003: self-describing KV stored events, a child emitted before its parent.
func TestDiagnoseChildBeforeParent(t *testing.T) {
	a := fx.Report(5, 0)
	events := []any{
		map[string]any{"at_ms": fx.Num(1), "block_hashes": []any{"h1"}, "event_id": fx.Int(0), "parent_block_hash": nil},
		map[string]any{"at_ms": fx.Num(1), "block_hashes": []any{"h2"}, "event_id": fx.Int(1), "parent_block_hash": "h1"},
		map[string]any{"at_ms": fx.Num(1), "block_hashes": []any{"h3"}, "event_id": fx.Int(2), "parent_block_hash": "h2"},
	}
	fx.Set(a, "/coverage/kv_events", events)
	b := fx.Clone(a)
	e1, e2 := fx.Get(b, "/coverage/kv_events/1"), fx.Get(b, "/coverage/kv_events/2")
	fx.Set(b, "/coverage/kv_events/1", e2)
	fx.Set(b, "/coverage/kv_events/2", e1)
	d := mustDiff(t, a, b)
	s := top(t, d, SigChildBeforeParent)
	ev := evidence(s)
	for _, w := range []string{"/coverage/kv_events in B: 1 event(s) store a child before its parent", "event #1 stores h3 before its parent h2 (stored at #2)", "same multiset of 3 stored blocks"} {
		if !strings.Contains(ev, w) {
			t.Errorf("evidence lacks %q:\n%s", w, ev)
		}
	}
}

func TestDiagnoseDecisionCascade(t *testing.T) {
	a := fx.Report(40, 0)
	b := fx.Clone(a)
	// Request 15's decode routing flips to the other worker; everything after it moves.
	fx.Set(b, "/per_request/15/routing_history/1/logical_worker_id", fx.Int(1))
	fx.Set(b, "/per_request/15/routing_history/1/scheduler_id", fx.Int(1))
	fx.Set(b, "/per_request/15/decode_worker_idx", fx.Int(1))
	for i := 15; i < 40; i++ {
		fx.Shift(b, fmt.Sprintf("/per_request/%d/terminal_time_ms", i), 0.37*float64(i-14)+0.011*float64(i%7))
	}
	fx.Set(b, "/summary/mean_e2e_latency_ms", fx.Num(90.5))
	d := mustDiff(t, a, b)
	s := top(t, d, SigCascade)
	if !strings.Contains(s.Label, "routing decision #1 (pool decode) of request "+fx.UUID(15)) {
		t.Errorf("label %q", s.Label)
	}
	ev := evidence(s)
	if !strings.Contains(ev, "logical_worker_id 0 → 1") || !strings.Contains(ev, fmt.Sprintf("%d of %d differences are at or after it", s.Of, s.Of)) {
		t.Errorf("evidence:\n%s", ev)
	}
}

func TestDiagnoseKVDigestWithParentOrderCounter(t *testing.T) {
	a := fx.Report(5, 0)
	fx.Set(a, "/coverage/kv_ingest/parent_order_violations", fx.Int(0))
	b := fx.Clone(a)
	fx.Set(b, "/coverage/kv_ingest/blake3_256", strings.Repeat("ef", 32))
	fx.Set(b, "/coverage/kv_ingest/parent_order_violations", fx.Int(3))
	d := mustDiff(t, a, b)
	s := top(t, d, SigChildBeforeParent)
	if !strings.Contains(evidence(s), "B /coverage/kv_ingest/parent_order_violations = 3") {
		t.Errorf("evidence:\n%s", evidence(s))
	}
}
