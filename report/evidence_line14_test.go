package report

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// A 1.4.x report (replay_bench at the root, no metadata, no coverage, no routing or admission
// history) records no lifecycle: its evidence says so instead of counting zeros, takes the
// topology from its per-request placements and the backend from its root, and keeps the rules
// its per-request fields can check. Before, the seed-000 row's disaggregated KVBM reports read
// "aggregated · 0 pressure events · no agg routing decisions recorded".
func TestLine14ReportSaysItRecordsNoLifecycle(t *testing.T) {
	disagg := `{"engine_type":"vllm","native_router_event_visibility":"pass-start","replay_bench":true,` +
		`"per_request":[` +
		`{"uuid":"a","arrival_time_ms":0,"prefill_worker_idx":0,"decode_worker_idx":1,"source_held_ms":5,"destination_reserved_ms":6,"destination_activated_ms":7,"source_released_ms":8,"terminal_status":"completed","terminal_time_ms":20,"reused_input_tokens":0},` +
		`{"uuid":"b","arrival_time_ms":1,"prefill_worker_idx":0,"decode_worker_idx":1,"source_held_ms":9,"destination_reserved_ms":10,"destination_activated_ms":11,"source_released_ms":12,"terminal_status":"completed","terminal_time_ms":30,"reused_input_tokens":64}],` +
		`"summary":{"completed_requests":2,"duration_ms":30}}`
	agg, err := os.ReadFile("../diffview/testdata/dynamo-1.4.2/report.jsonl") // a real 1.4.2 aggregated report, reduced
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, record, topology string
	}{{"disaggregated", disagg, "disaggregated"}, {"aggregated (real 1.4.2)", string(agg), "aggregated"}} {
		e, err := ExtractEvidence([]byte(c.record), EvidenceOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if e.Topology != c.topology || e.Engine != "vllm" {
			t.Errorf("%s: topology %q engine %q", c.name, e.Topology, e.Engine)
		}
		if !strings.Contains(e.Unrecorded, "1.4.x shape") || e.Pools != nil || e.Pressure != nil || e.KVEvents != nil {
			t.Errorf("%s: unrecorded %q, pools %v, pressure %v, kv events %v", c.name, e.Unrecorded, e.Pools, e.Pressure, e.KVEvents)
		}
		var names []string
		for _, r := range e.Rules {
			names = append(names, r.Name)
		}
		if len(e.Rules) == 0 || e.Rules[0].Name != ruleRecorded || e.Rules[0].Passed || !strings.Contains(e.Rules[0].Why, "cannot be checked") {
			t.Fatalf("%s: rules %v", c.name, e.Rules)
		}
		for _, gone := range []string{ruleOverlapRouting, ruleImmediate, ruleQueueAccounting, rulePressureExercise, rulePressureBand, ruleReadmitted} {
			if slices.Contains(names, gone) {
				t.Errorf("%s: rule %q checked on a report that records nothing for it: %v", c.name, gone, names)
			}
		}
		if !slices.Contains(names, ruleTerminal) || !slices.Contains(names, ruleVirtualTime) {
			t.Errorf("%s: the per-request rules are gone: %v", c.name, names)
		}
		if (c.topology == "disaggregated") != slices.Contains(names, ruleHandoffs) {
			t.Errorf("%s: handoff rule %v", c.name, names)
		}
	}
	// A record with metadata (1.5 and later, the embedded engine) is not the 1.4.x shape.
	e, err := ExtractEvidence([]byte(`{"metadata":{"replay_bench":true},"per_request":[],"summary":{}}`), EvidenceOptions{})
	if err != nil || e.Unrecorded != "" || len(e.Pools) == 0 {
		t.Errorf("a record with metadata: unrecorded %q pools %v (%v)", e.Unrecorded, e.Pools, err)
	}
}
