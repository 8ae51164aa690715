package diagnose

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"kvparity/diffview"
	fx "kvparity/diffview/difftest"
)

// The profile's excluded pointers are not compared, but the diff says they differed.
func TestDiffExcludesTheProfilesPointers(t *testing.T) {
	a, b := fx.ExcludedOnly()
	d := mustDiff(t, a, b)
	if !d.Equal() || len(d.Diagnosis) != 0 || d.First != nil {
		t.Fatalf("excluded fields compared: %v %v", d.Pointers(), d.Diagnosis)
	}
	if len(d.Excluded) != 2 || d.Excluded[0].String() != "/summary/processed_tokens_per_s 99.25 → 91.5" || d.Excluded[1].Pointer != "/summary/wall_time_ms" {
		t.Fatalf("excluded %v", d.Excluded)
	}
	var out strings.Builder
	if err := WriteText(&out, d, 0); err != nil || !strings.Contains(out.String(), "identical: no differing pointer\nexcluded by the canonical profile (not compared): /summary/processed_tokens_per_s 99.25 → 91.5\n") {
		t.Errorf("text:\n%s", out.String())
	}
	// Present on one side only is said too; a member that is not excluded still differs.
	delete(b["summary"].(map[string]any), "wall_time_ms")
	fx.Set(b, "/summary/mean_ttft_ms", fx.Num(21.25))
	d = mustDiff(t, a, b)
	if fmt.Sprint(d.Pointers()) != "[/summary/mean_ttft_ms]" || len(d.Excluded) != 2 || d.Excluded[1].B != "" {
		t.Fatalf("pointers %v excluded %v", d.Pointers(), d.Excluded)
	}
}

// 4.0 against 4 is one value spelled two ways: its own signature, never "unclassified".
func TestDiagnoseNumberSpelling(t *testing.T) {
	a := fx.Report(10, 0)
	b := fx.Clone(a)
	for i := 0; i < 10; i++ {
		fx.Set(b, fmt.Sprintf("/per_request/%d/itl_ms", i), fx.Int(12))
	}
	fx.Set(b, "/summary/completed_requests", json.Number("1e1"))
	d := mustDiff(t, a, b)
	s := top(t, d, SigNumberSpelling)
	if s.Explains != 11 || s.Of != 11 || !strings.Contains(evidence(s), "itl_ms 12.0 vs 12") {
		t.Fatalf("%v\n%s", s, evidence(s))
	}
}

// Ranking by explanatory power (mode 1): last-digit noise beside a cascade is listed below
// it; a cascade whose flip is preceded by other differences yields to the cause found for
// them; a signature that explains a few differences of many is not the answer.
func TestDiagnosisRanksByExplanatoryPower(t *testing.T) {
	a := fx.Report(40, 0)
	b := fx.Clone(a)
	fx.Set(b, "/per_request/15/routing_history/1/logical_worker_id", fx.Int(1))
	fx.Set(b, "/per_request/15/decode_worker_idx", fx.Int(1))
	for i := 15; i < 40; i++ {
		fx.Shift(b, fmt.Sprintf("/per_request/%d/terminal_time_ms", i), 0.37*float64(i-14)+0.011*float64(i%7))
	}
	fx.NextULP(b, "/summary/prefix_cache_reused_ratio")
	d := mustDiff(t, a, b)
	top(t, d, SigCascade)
	if len(d.Diagnosis) < 2 || d.Diagnosis[1].Code != SigFloatNoise {
		t.Errorf("diagnosis %v", d.Diagnosis)
	}

	// Only one of many differences has a shape: unclassified leads, naming how many are left.
	b = fx.Clone(a)
	for i := 0; i < 30; i++ {
		fx.Set(b, fmt.Sprintf("/per_request/%d/input_length", i), fx.Int(7+i))
	}
	fx.NextULP(b, "/summary/mean_e2e_latency_ms")
	d = mustDiff(t, a, b)
	s := top(t, d, SigUnclassified)
	if s.Explains != 30 || !strings.Contains(evidence(s), "up to 30 of 31 differing pointers are explained by no signature: the largest explains 1") || d.Diagnosis[1].Code != SigFloatNoise {
		t.Errorf("%v\n%s", d.Diagnosis, evidence(s))
	}
}

// Mixed causes (mode 7): records renamed by an unseeded uuid AND carrying last-digit noise
// are still paired (by what the trace fixes), so both causes are named, each with its share.
func TestDiagnoseRenamingWithFloatNoiseNamesBoth(t *testing.T) {
	a := fx.Report(25, 0)
	b := fx.Clone(a)
	reqs := fx.Get(b, "/per_request").([]any)
	for k, r := range reqs {
		m := r.(map[string]any)
		m["uuid"] = randomUUID()
		if k%5 == 0 {
			m["e2e_latency_ms"] = nextULP(m["e2e_latency_ms"])
		}
	}
	sort.Slice(reqs, func(i, j int) bool {
		return reqs[i].(map[string]any)["uuid"].(string) < reqs[j].(map[string]any)["uuid"].(string)
	})
	d := mustDiff(t, a, b)
	s := top(t, d, SigIDDrift)
	if s.Explains != 25 || s.Of != 30 {
		t.Fatalf("%v: %v", s, d.Pointers())
	}
	if len(d.Diagnosis) < 2 || d.Diagnosis[1].Code != SigFloatNoise || d.Diagnosis[1].Explains != 5 {
		t.Fatalf("the second cause is not named: %v", d.Diagnosis)
	}
	for _, c := range d.Changes {
		if c.Kind != diffview.Changed {
			t.Fatalf("renamed records must pair, got %v %s", c.Kind, c.Pointer)
		}
	}
}

func nextULP(v any) json.Number {
	m := map[string]any{"x": v}
	fx.NextULP(m, "/x")
	return m["x"].(json.Number)
}

// Ids handed out in executor order among requests that arrive together (mode 5): each uuid
// names the other request's record in B. It is an ordering leak, not index loss or a cascade.
func TestDiagnoseIdsPermutedAmongSameTimeArrivals(t *testing.T) {
	a := fx.Report(20, 0)
	for _, k := range []int{5, 6} { // requests 4, 5 and 6 arrive together
		for _, f := range []string{"arrival_time_ms", "first_admit_ms", "prefill_admit_ms"} {
			fx.Set(a, fmt.Sprintf("/per_request/%d/%s", k, f), fx.Get(a, "/per_request/4/"+f))
		}
	}
	b := fx.Clone(a)
	reqs := fx.Get(b, "/per_request").([]any)
	r4, r6 := reqs[4].(map[string]any), reqs[6].(map[string]any)
	for _, id := range []string{"uuid", "session_id"} {
		r4[id], r6[id] = r6[id], r4[id]
	}
	reqs[4], reqs[6] = r6, r4 // the report is sorted by uuid
	d := mustDiff(t, a, b)
	s := top(t, d, SigTieOrder)
	if s.Explains != s.Of || !strings.Contains(evidence(s), "2 requests arriving at t=42.0 ms hold the same records under permuted ids") {
		t.Fatalf("%v\n%s\nall: %v", s, evidence(s), d.Diagnosis)
	}
}

// A consistent relabel of workers (decode 0↔1) over the whole run, with nothing else moved,
// is a renaming (mode 6), not a cascade; one later decision that breaks it is a cascade again.
// The renaming is a placement tie among interchangeable workers, its own cause beside id
// drift (issue 41; it was named id-drift before).
func TestDiagnoseWorkerRelabelIsARenaming(t *testing.T) {
	a := fx.Report(40, 0)
	b := fx.Clone(a)
	for i := 0; i < 40; i++ {
		w := fx.Int(i % 2) // decode worker (i+1)%2 becomes i%2
		for _, p := range []string{"/per_request/%d/routing_history/1/logical_worker_id", "/per_request/%d/routing_history/1/scheduler_id", "/per_request/%d/decode_worker_idx"} {
			fx.Set(b, fmt.Sprintf(p, i), w)
		}
	}
	d := mustDiff(t, a, b)
	s := top(t, d, SigTieOrder)
	if s.Explains != s.Of || s.Label != "consistent renaming of workers (decode 0↔1)" || !s.placement {
		t.Fatalf("%v\n%s\nall: %v", s, evidence(s), d.Diagnosis)
	}
	// A time that moved besides is a second cause, said as such.
	fx.Shift(b, "/per_request/30/terminal_time_ms", 0.5)
	d = mustDiff(t, a, b)
	if s = top(t, d, SigTieOrder); s.Explains != s.Of-1 || d.Diagnosis[len(d.Diagnosis)-1].Code != SigUnclassified || d.Diagnosis[len(d.Diagnosis)-1].Explains != 1 {
		t.Fatalf("%v", d.Diagnosis)
	}
	// A renaming that stops holding is a cascade.
	b = fx.Clone(a)
	for i := 20; i < 40; i++ {
		fx.Set(b, fmt.Sprintf("/per_request/%d/routing_history/1/logical_worker_id", i), fx.Int(i%2))
		fx.Set(b, fmt.Sprintf("/per_request/%d/decode_worker_idx", i), fx.Int(i%2))
	}
	fx.Set(b, "/per_request/25/routing_history/1/logical_worker_id", fx.Int(0))
	fx.Set(b, "/per_request/25/decode_worker_idx", fx.Int(0))
	for i := 20; i < 40; i++ {
		fx.Shift(b, fmt.Sprintf("/per_request/%d/terminal_time_ms", i), 0.37*float64(i-19))
	}
	if d = mustDiff(t, a, b); d.Diagnosis[0].Code != SigCascade {
		t.Fatalf("%v", d.Diagnosis)
	}
}

// The tie lens sees events whose differing values sit in a nested list (mode 4): two KV events
// at one instant, each with its own block hashes, stored in the other order.
func TestDiagnoseTieOrderOfEventsWithNestedLists(t *testing.T) {
	a := fx.Report(10, 0)
	fx.Set(a, "/coverage/kv_events", []any{
		map[string]any{"at_ms": fx.Num(4), "block_hashes": []any{"a1", "a2"}, "worker_id": fx.Int(0)},
		map[string]any{"at_ms": fx.Num(9.5), "block_hashes": []any{"b1", "b2", "b3"}, "worker_id": fx.Int(1)},
		map[string]any{"at_ms": fx.Num(9.5), "block_hashes": []any{"c1", "c2", "c3"}, "worker_id": fx.Int(1)},
		map[string]any{"at_ms": fx.Num(12), "block_hashes": []any{"d1"}, "worker_id": fx.Int(0)},
	})
	b := fx.Clone(a)
	e1, e2 := fx.Get(b, "/coverage/kv_events/1"), fx.Get(b, "/coverage/kv_events/2")
	fx.Set(b, "/coverage/kv_events/1", e2)
	fx.Set(b, "/coverage/kv_events/2", e1)
	d := mustDiff(t, a, b)
	s := top(t, d, SigTieOrder)
	if s.Explains != 6 || s.Of != 6 || !strings.Contains(evidence(s), "/coverage/kv_events: 1 tie group(s) reordered") {
		t.Fatalf("%v\n%s", s, evidence(s))
	}
}

// The wall-clock lens beyond epoch readings (mode 3): a queue wait measured on the wall clock
// between equal instants, a throughput over an equal virtual duration, a slowly growing offset
// on completion times; and summary-only noise at a relative 1e-13 is float noise, not a clock.
func TestDiagnoseWallClockInDurationsRatesAndDrift(t *testing.T) {
	a := fx.Report(30, 0)
	fx.Set(a, "/summary/output_throughput_tok_s", fx.Num(5123.25))
	for i := 0; i < 30; i++ {
		fx.Set(a, fmt.Sprintf("/per_request/%d/routing_history/0/queue_entered_at_ms", i), fx.Num(float64(i)*10.5))
		fx.Set(a, fmt.Sprintf("/per_request/%d/routing_history/0/released_at_ms", i), fx.Num(float64(i)*10.5+2))
		fx.Set(a, fmt.Sprintf("/per_request/%d/routing_history/0/queue_wait_ms", i), fx.Num(2))
	}
	b := fx.Clone(a)
	for i := 0; i < 30; i += 3 {
		fx.Set(b, fmt.Sprintf("/per_request/%d/routing_history/0/queue_wait_ms", i), fx.Num(2.000317+float64(i)*1e-6))
	}
	fx.Set(b, "/summary/output_throughput_tok_s", fx.Num(5119.75))
	d := mustDiff(t, a, b)
	s := top(t, d, SigWallClock)
	ev := evidence(s)
	if s.Explains != s.Of || !strings.Contains(ev, "10 duration(s) moved between virtual instants that did not") || !strings.Contains(ev, "1 run-level rate(s) moved (/summary/output_throughput_tok_s)") {
		t.Fatalf("%v\n%s\nall %v", s, ev, d.Diagnosis)
	}

	b = fx.Clone(a)
	for i := 0; i < 30; i++ {
		p := fmt.Sprintf("/per_request/%d/terminal_time_ms", i)
		fx.Shift(b, p, 0.0007+3e-4*fx.Float(a, p)) // 0.3 µs more per virtual ms
	}
	d = mustDiff(t, a, b)
	if s = top(t, d, SigWallClock); s.Explains != 30 || !strings.Contains(evidence(s), "growing to") {
		t.Fatalf("%v\n%s", s, evidence(s))
	}

	b = fx.Clone(a)
	x := fx.Float(b, "/summary/duration_ms") * (1 + 1e-13)
	fx.Set(b, "/summary/duration_ms", fx.Num(x))
	top(t, mustDiff(t, a, b), SigFloatNoise)
}

// A step taken late at the first divergence (leak-executor-order's lag): the earliest shifts
// are whole multiples of the quantum, later ones are not (the moved steps met other batches).
// The quantum is the cause of everything after it.
func TestDiagnoseQuantumAtTheFirstDivergence(t *testing.T) {
	a := fx.Report(40, 0)
	b := fx.Clone(a)
	const q = 0.123076
	for i := 10; i < 40; i++ {
		x := q * float64(1+i%3)
		if i >= 25 {
			x = 0.41 + 0.0137*float64(i) // later: other batches, other step times
		}
		fx.Shift(b, fmt.Sprintf("/per_request/%d/terminal_time_ms", i), x)
		fx.Shift(b, fmt.Sprintf("/per_request/%d/e2e_latency_ms", i), x)
	}
	fx.Shift(b, "/summary/mean_e2e_latency_ms", 0.2)
	d := mustDiff(t, a, b)
	s := top(t, d, SigQuantum)
	if s.Explains != s.Of || s.Quantum < q*0.999 || s.Quantum > q*1.001 || !strings.Contains(evidence(s), "later shifts are not whole multiples") {
		t.Fatalf("%v q=%v\n%s\nall %v", s, s.Quantum, evidence(s), d.Diagnosis)
	}
}

// Ids shifted by a counter offset (ordinal n named n+2): every uuid names another request's
// record, so content, not the uuid, pairs the records, and the diagnosis is id drift.
func TestDiagnoseUUIDCounterOffsetPairsByContent(t *testing.T) {
	a := fx.Report(30, 0)
	b := fx.Clone(a)
	for k, r := range fx.Get(b, "/per_request").([]any) {
		r.(map[string]any)["uuid"] = fx.UUID(k + 2)
	}
	d := mustDiff(t, a, b)
	s := top(t, d, SigIDDrift)
	if s.Explains != s.Of || s.Of != 30 {
		t.Fatalf("%v: %v", d.Diagnosis, d.Pointers()[:5])
	}
	for _, c := range d.Changes {
		if c.Kind != diffview.Changed || diffview.LastSegment(c.Pointer) != "uuid" {
			t.Fatalf("records paired wrong: %v %s", c.Kind, c.Pointer)
		}
	}
}

func TestDiffIdenticalReports(t *testing.T) {
	a := fx.Report(20, 5)
	d := mustDiff(t, a, fx.Clone(a))
	if !d.Equal() || d.First != nil || len(d.Diagnosis) != 0 || len(d.Groups) != 0 {
		t.Fatalf("identical reports: got %d changes, first %v, diagnosis %v", len(d.Changes), d.First, d.Diagnosis)
	}
}
