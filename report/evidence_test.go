package report

import (
	"strings"
	"testing"
)

func evidenceOf(t *testing.T, rec map[string]any, o EvidenceOptions) *Evidence {
	t.Helper()
	c, err := canonicalizeRecord(marshal(rec), DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	e, err := ExtractEvidence(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func rule(t *testing.T, e *Evidence, name string) Rule {
	t.Helper()
	for _, r := range e.Rules {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no rule %q in %+v", name, e.Rules)
	return Rule{}
}

func wantRule(t *testing.T, e *Evidence, name string, passed bool, why string) {
	t.Helper()
	r := rule(t, e, name)
	if r.Passed != passed || !strings.Contains(r.Why, why) {
		t.Errorf("rule %q: passed %v why %q; want passed %v and why containing %q", name, r.Passed, r.Why, passed, why)
	}
}

func requests(rec map[string]any) []map[string]any {
	var out []map[string]any
	for _, r := range rec["per_request"].([]any) {
		out = append(out, r.(map[string]any))
	}
	return out
}

func pressureRecords(rec map[string]any) []any {
	return rec["coverage"].(map[string]any)["pressure"].(map[string]any)["records"].([]any)
}

func setPressure(rec map[string]any, records []any) {
	p := rec["coverage"].(map[string]any)["pressure"].(map[string]any)
	p["records"] = records
	p["vllm_preemptions_total"] = len(records)
}

func TestEvidenceAggregatedVLLMPasses(t *testing.T) {
	e := evidenceOf(t, synthRecord(synthOpts{Requests: 50, Pressure: 2}), EvidenceOptions{})
	if !e.passed() {
		t.Fatalf("failed rules: %+v", e.failed())
	}
	if e.Topology != "aggregated" || e.Engine != "vllm" || e.Requests != 50 || e.Handoffs != nil || e.QueueThresholdSet {
		t.Fatalf("header: %+v", e)
	}
	if len(e.Pools) != 1 {
		t.Fatalf("pools: %+v", e.Pools)
	}
	p := e.Pools[0]
	// Every 7th synthetic request has no overlap: 50 - ceil(50/7) = 42.
	if p.Pool != poolAgg || p.RoutingDecisions != 50 || p.OverlapPositive != 42 || p.Immediate != 50 || p.Queued != 0 ||
		p.Admissions != 52 || p.Readmissions != 2 || p.PressureEvents != 2 || p.PressureReadmitted != 2 || p.RequestsWithReuse != 42 {
		t.Fatalf("pool: %+v", p)
	}
	if len(p.Workers) == 0 || p.Workers[0] != 0 {
		t.Fatalf("workers: %v", p.Workers)
	}
	if e.PreemptionsTotal != 2 || len(e.Pressure) != 2 || e.Pressure[0].Kind != "vllm_preemption" || !e.Pressure[1].Readmitted ||
		e.Pressure[0].RunningBefore != 4 || e.Pressure[0].ActiveBlocks != 112 || e.Pressure[0].RequestUUID != uuidOf(0) {
		t.Fatalf("pressure: %+v", e.Pressure)
	}
	if e.Terminal["completed"] != 50 || e.Terminal["stranded"] != 0 || e.KVEvents["stored"] != 150 || e.KVEvents["cleared"] != 0 {
		t.Fatalf("terminal %v kv %v", e.Terminal, e.KVEvents)
	}
	if e.VirtualStartMs != 0 || !(e.VirtualEndMs > 600) || e.PressureBand != [2]int{1, 3} || e.RequestsWithReuse != 42 {
		t.Fatalf("span %v..%v band %v reuse %d", e.VirtualStartMs, e.VirtualEndMs, e.PressureBand, e.RequestsWithReuse)
	}
	wantRule(t, e, ruleOverlapRouting, true, "42 of 50 agg routing decisions")
	wantRule(t, e, rulePressureBand, true, "2 preemptions, band 1–3")
	wantRule(t, e, ruleQueueAccounting, true, "threshold unset")
	wantRule(t, e, ruleTerminal, true, "50 of 50 requests completed")
}

func TestEvidenceDisaggregatedSGLangHandoffs(t *testing.T) {
	e := evidenceOf(t, synthRecord(synthOpts{Requests: 300, Disagg: true, Engine: "sglang", Pressure: 14}), EvidenceOptions{})
	if !e.passed() {
		t.Fatalf("failed rules: %+v", e.failed())
	}
	if e.Topology != "disaggregated" || e.Engine != "sglang" || len(e.Pools) != 2 || e.Pools[0].Pool != poolPrefill || e.Pools[1].Pool != poolDecode {
		t.Fatalf("%+v", e.Pools)
	}
	h := e.Handoffs
	if h == nil || h.Requests != 300 || h.Complete != 300 || h.InOrder != 300 || h.Order != "destination-first" || h.Expected != "destination-first" {
		t.Fatalf("handoffs %+v", h)
	}
	if e.RetractionsTotal != 14 || e.Pools[1].PressureEvents != 14 || e.PressureBand != [2]int{10, 20} {
		t.Fatalf("pressure %d band %v", e.RetractionsTotal, e.PressureBand)
	}
	wantRule(t, e, rulePressureBand, true, "14 retractions, band 10–20")
	wantRule(t, e, ruleHandoffs, true, "300 of 300 handoffs complete, 300 in destination-first order")

	// The same record read as vLLM (source-first) has every handoff out of order.
	rec := synthRecord(synthOpts{Requests: 30, Disagg: true, Engine: "vllm", Pressure: 10})
	for _, r := range requests(rec) {
		r["source_held_ms"], r["destination_reserved_ms"] = r["destination_reserved_ms"], r["source_held_ms"]
	}
	requests(rec)[3]["source_released_ms"] = nil
	e = evidenceOf(t, rec, EvidenceOptions{})
	wantRule(t, e, ruleHandoffs, false, "29 of 30 handoffs complete, 0 in source-first order (observed destination-first)")
}

func TestEvidenceZeroPressureIsNotExercised(t *testing.T) {
	e := evidenceOf(t, synthRecord(synthOpts{Requests: 20}), EvidenceOptions{})
	wantRule(t, e, rulePressureExercise, false, "0 preemptions: the block-capacity edge was not exercised")
	wantRule(t, e, rulePressureBand, false, "0 preemptions, band 1–3")
	wantRule(t, e, ruleReadmitted, true, "no pressure events")
	if e.passed() {
		t.Fatal("zero pressure passed")
	}
}

func TestEvidencePressureBandFromOptions(t *testing.T) {
	rec := synthRecord(synthOpts{Requests: 400, Disagg: true, Pressure: 25})
	wantRule(t, evidenceOf(t, rec, EvidenceOptions{}), rulePressureBand, false, "25 preemptions, band 10–20")
	wantRule(t, evidenceOf(t, rec, EvidenceOptions{PressureBand: [2]int{20, 30}}), rulePressureBand, true, "band 20–30")
	// Totals that disagree with the records are a band failure in their own right.
	rec["coverage"].(map[string]any)["pressure"].(map[string]any)["vllm_preemptions_total"] = 24
	wantRule(t, evidenceOf(t, rec, EvidenceOptions{PressureBand: [2]int{20, 30}}), rulePressureBand, false, "totals say 24")
}

func TestEvidenceQueueing(t *testing.T) {
	// The synthetic record sets router_queue_threshold when it queues.
	rec := synthRecord(synthOpts{Requests: 40, QueueAfter: 30, Pressure: 1})
	e := evidenceOf(t, rec, EvidenceOptions{})
	if !e.QueueThresholdSet || e.Pools[0].Queued != 10 || e.Pools[0].QueueReleased != 10 || e.Pools[0].Immediate != 30 {
		t.Fatalf("%+v", e.Pools[0])
	}
	wantRule(t, e, ruleQueueAccounting, true, "10 of 10 queued placements released")

	// Queued placements without any threshold: scheduler waiting relabelled, a rule failure.
	rec["metadata"].(map[string]any)["router"].(map[string]any)["config"].(map[string]any)["router_queue_threshold"] = nil
	wantRule(t, evidenceOf(t, rec, EvidenceOptions{}), ruleQueueAccounting, false, "10 queued placements but no router queue threshold")
	// The row's threshold (options) counts as set.
	wantRule(t, evidenceOf(t, rec, EvidenceOptions{QueueThresholdSet: true}), ruleQueueAccounting, true, "threshold set")

	// A queued decision never released.
	requests(rec)[35]["routing_history"].([]any)[0].(map[string]any)["released_at_ms"] = nil
	wantRule(t, evidenceOf(t, rec, EvidenceOptions{QueueThresholdSet: true}), ruleQueueAccounting, false, "9 of 10 queued placements released")
	// An outcome that is neither.
	requests(rec)[1]["routing_history"].([]any)[0].(map[string]any)["outcome"] = "waiting"
	wantRule(t, evidenceOf(t, rec, EvidenceOptions{QueueThresholdSet: true}), ruleQueueAccounting, false, "1 of 40 routing decisions are neither")
}

func TestEvidenceCyclingAndRunaway(t *testing.T) {
	rec := synthRecord(synthOpts{Requests: 100, Pressure: 2})
	recs := pressureRecords(rec)
	for i := 0; i < 3; i++ {
		c := map[string]any{}
		for k, v := range recs[0].(map[string]any) {
			c[k] = v
		}
		c["pressure_ordinal"] = len(recs)
		recs = append(recs, c)
	}
	setPressure(rec, recs)
	e := evidenceOf(t, rec, EvidenceOptions{PressureBand: [2]int{1, 10}})
	wantRule(t, e, ruleNoCycling, false, "request "+uuidOf(0)+" was hit by 4 pressure events (limit 3)")

	// Volume: 30 events on 100 requests (limit max(5, 2*10) = 20).
	rec = synthRecord(synthOpts{Requests: 100, Pressure: 30})
	wantRule(t, evidenceOf(t, rec, EvidenceOptions{PressureBand: [2]int{1, 10}}), ruleNoRunaway, false, "30 pressure events exceed max(5% of 100 requests, twice the band maximum) = 20")

	// Acceleration: 10 events, all in the last quarter of virtual time.
	rec = synthRecord(synthOpts{Requests: 100, Pressure: 10})
	for _, p := range pressureRecords(rec) {
		p.(map[string]any)["at_ms"] = ms(1240 + float64(p.(map[string]any)["pressure_ordinal"].(int)))
	}
	e = evidenceOf(t, rec, EvidenceOptions{PressureBand: [2]int{1, 10}})
	wantRule(t, e, ruleNoRunaway, false, "10 of 10 pressure events fall in the last quarter")
	wantRule(t, e, ruleNoCycling, true, "at most 1")
}

func TestEvidenceVirtualTime(t *testing.T) {
	rec := synthRecord(synthOpts{Requests: 5, Pressure: 1})
	for _, r := range requests(rec) {
		r["arrival_time_ms"], r["terminal_time_ms"] = ms(0), ms(0)
		for _, a := range r["admission_history"].([]any) {
			a.(map[string]any)["at_ms"] = ms(0)
		}
	}
	wantRule(t, evidenceOf(t, rec, EvidenceOptions{}), ruleVirtualTime, false, "virtual time does not advance: span 0 ms")

	rec = synthRecord(synthOpts{Requests: 20, Pressure: 3})
	pressureRecords(rec)[2].(map[string]any)["at_ms"] = ms(0.5)
	wantRule(t, evidenceOf(t, rec, EvidenceOptions{}), ruleVirtualTime, false, "pressure event 2 at 0.5 ms precedes the previous one at 13.5 ms")

	rec = synthRecord(synthOpts{Requests: 20, Pressure: 3})
	requests(rec)[1]["admission_history"].([]any)[1].(map[string]any)["at_ms"] = ms(1)
	wantRule(t, evidenceOf(t, rec, EvidenceOptions{}), ruleVirtualTime, false, "admission 1 at 1 ms precedes admission 0")
}

func TestEvidenceTerminalStatuses(t *testing.T) {
	rec := synthRecord(synthOpts{Requests: 10, Pressure: 1})
	rs := requests(rec)
	rs[1]["terminal_status"] = "rejected"
	rs[2]["terminal_status"] = "failed"
	rs[3]["terminal_status"] = nil
	rs[4]["terminal_status"] = "canceled"
	rs[4]["terminal_time_ms"] = nil // canceled but never timed: stranded
	rs[5]["terminal_status"] = "exploded"
	rec["summary"].(map[string]any)["num_requests"] = 12 // two requests never reached a terminal record
	e := evidenceOf(t, rec, EvidenceOptions{})
	want := map[string]int{"completed": 5, "rejected": 1, "canceled": 0, "failed": 1, "stranded": 5}
	for k, v := range want {
		if e.Terminal[k] != v {
			t.Errorf("terminal[%s] = %d, want %d (%v)", k, e.Terminal[k], v, e.Terminal)
		}
	}
	wantRule(t, e, ruleTerminal, false, "5 of 12 requests completed; 1 rejected, 0 canceled, 1 failed, 5 stranded")
}

func TestEvidenceErrors(t *testing.T) {
	for _, in := range []string{`{"per_request":[{"routing_history":[{"reported_overlap_tokens":"x"}]}]}`, `{"per_request":7}`, `nope`} {
		if _, err := ExtractEvidence([]byte(in), EvidenceOptions{}); err == nil || !strings.Contains(err.Error(), "lifecycle evidence") {
			t.Errorf("%s: got %v", in, err)
		}
	}
	// An empty record still yields rules, all explaining what is missing.
	e, err := ExtractEvidence([]byte(`{}`), EvidenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantRule(t, e, ruleOverlapRouting, false, "no agg routing decisions")
	wantRule(t, e, ruleTerminal, false, "0 of 0 requests completed")
}

// Dynamo 1.6 moved a role's backend from engine_config.<role>.engine_type to
// engine_config.<role>.engine.backend; the evidence reads both.
func TestEvidenceReadsTheBackendOfEitherMetadataSchema(t *testing.T) {
	rec := synthRecord(synthOpts{Requests: 50, Engine: "sglang"})
	ec := rec["metadata"].(map[string]any)["engine_config"].(map[string]any)
	for role, c := range ec {
		cfg := c.(map[string]any)
		delete(cfg, "engine_type")
		ec[role] = map[string]any{"engine": map[string]any{"backend": "sglang"}, "dynamo": map[string]any{}}
	}
	if e := evidenceOf(t, rec, EvidenceOptions{}); e.Engine != "sglang" {
		t.Errorf("engine %q from engine_config.<role>.engine.backend", e.Engine)
	}
}
