package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
)

// Synthetic canonical records shaped like the harness's (spec dynamo-replay.md §3.1), for
// tests and benchmarks that must not depend on another package's replay engine.

type synthOpts struct {
	Requests   int
	Disagg     bool
	Engine     string // vllm | sglang
	Pressure   int    // pressure events, spread over distinct requests
	QueueAfter int    // requests with index >= QueueAfter (when > 0) get a queued decision
	Seed       uint64
}

func num(s string) json.Number { return json.Number(s) }

func ms(v float64) json.Number {
	s := fmt.Sprintf("%.3f", v)
	return json.Number(s)
}

func uuidOf(i int) string { return fmt.Sprintf("00000000-0000-0000-0000-%012x", i+1) }

func synthRecord(o synthOpts) map[string]any {
	rng := rand.New(rand.NewPCG(o.Seed, 7))
	if o.Engine == "" {
		o.Engine = "vllm"
	}
	topology := "aggregated"
	pools := []string{poolAgg}
	if o.Disagg {
		topology = "disaggregated"
		pools = []string{poolPrefill, poolDecode}
	}
	var perReq []any
	var pressure []any
	stored, removed := 0, 0
	for i := 0; i < o.Requests; i++ {
		arrival := float64(i) * 12.5
		t := arrival
		var routing, admissions []any
		var ordinals []any
		preempted := i < o.Pressure
		for pi, pool := range pools {
			overlap := 0
			if i%7 != 0 {
				overlap = 512 * (1 + rng.IntN(10))
			}
			r := map[string]any{
				"dp_rank": 0, "logical_worker_id": rng.IntN(2), "outcome": "immediate", "pool": pool,
				"queue_entered_at_ms": nil, "queue_wait_ms": num("0.0"), "released_at_ms": nil,
				"reported_overlap_tokens": overlap, "scheduler_id": 0,
			}
			if o.QueueAfter > 0 && i >= o.QueueAfter && pi == 0 {
				r["outcome"] = "queued"
				r["queue_entered_at_ms"] = ms(t)
				r["released_at_ms"] = ms(t + 3)
				r["queue_wait_ms"] = ms(3)
			}
			routing = append(routing, r)
			admissions = append(admissions, map[string]any{
				"admission_ordinal": len(admissions), "at_ms": ms(t), "is_readmission": false, "pool": pool,
				"pool_admission_ordinal": 0, "reused_input_tokens": overlap,
			})
			if preempted && pi == len(pools)-1 {
				kind := "vllm_preemption"
				if o.Engine == "sglang" {
					kind = "sglang_retraction"
				}
				pressure = append(pressure, map[string]any{
					"at_ms": ms(arrival + 1), "dp_rank": 0, "kind": kind, "logical_available_blocks_before": nil,
					"pool": pool, "pressure_ordinal": len(pressure), "readmitted_at_ms": ms(t + 2),
					"request_active_blocks_before": 12, "request_uuid": uuidOf(i), "required_blocks_before": nil,
					"state_after":  map[string]any{"active_blocks": 100, "running_requests": 3, "waiting_requests": 1},
					"state_before": map[string]any{"active_blocks": 112, "running_requests": 4, "waiting_requests": 0},
					"worker_id":    0,
				})
				ordinals = append(ordinals, len(pressure)-1)
				admissions = append(admissions, map[string]any{
					"admission_ordinal": len(admissions), "at_ms": ms(t + 2), "is_readmission": true, "pool": pool,
					"pool_admission_ordinal": 1, "reused_input_tokens": 0,
				})
			}
			t += 40 + float64(rng.IntN(400))
			stored += 3
			removed++
		}
		rec := map[string]any{
			"admission_count": len(admissions), "admission_history": admissions, "arrival_time_ms": ms(arrival),
			"decode_reused_input_tokens": 0, "decode_route_overlap_tokens": 0, "decode_worker_idx": rng.IntN(2),
			"e2e_latency_ms": ms(t - arrival), "first_admit_ms": ms(arrival), "first_token_ms": ms(arrival + 30),
			"input_length": 1000 + rng.IntN(9000), "itl_ms": ms(5.25), "last_token_ms": ms(t),
			"output_length": 100, "per_request_extra": "ünïcode ✓", "pressure_record_ordinals": ordinals,
			"readmission_count": len(ordinals), "requested_output_length": 100,
			"reused_input_tokens": routing[0].(map[string]any)["reported_overlap_tokens"], "routing_history": routing,
			"session_id": fmt.Sprintf("request_%d", i+1), "terminal_status": "completed", "terminal_time_ms": ms(t),
			"ttft_ms": ms(30), "ttst_ms": ms(5.5), "turn_index": 0, "uuid": uuidOf(i),
			"prefill_worker_idx": nil, "prefill_admit_ms": nil, "source_held_ms": nil, "destination_reserved_ms": nil,
			"destination_activated_ms": nil, "decode_admit_ms": nil, "source_released_ms": nil,
			"prefill_route_overlap_tokens": 0,
		}
		if o.Disagg {
			held, reserved := arrival+20, arrival+21
			if o.Engine == "sglang" {
				held, reserved = reserved, held
			}
			rec["prefill_worker_idx"] = rng.IntN(2)
			rec["prefill_admit_ms"] = ms(arrival)
			rec["source_held_ms"] = ms(held)
			rec["destination_reserved_ms"] = ms(reserved)
			rec["destination_activated_ms"] = ms(arrival + 25)
			rec["decode_admit_ms"] = ms(arrival + 25)
			rec["source_released_ms"] = ms(arrival + 26)
		}
		perReq = append(perReq, rec)
	}
	engineCfg := map[string]any{"block_size": 64, "engine_type": o.Engine, "num_gpu_blocks": 5500,
		"performance_model": map[string]any{"ais": nil, "kind": "builtin_polynomial"}, "speedup_ratio": num("1.0")}
	var engineConfig map[string]any
	if o.Disagg {
		engineConfig = map[string]any{"prefill": engineCfg, "decode": engineCfg}
	} else {
		engineConfig = map[string]any{"aggregated": engineCfg}
	}
	var threshold any
	if o.QueueAfter > 0 {
		threshold = num("0.5")
	}
	preempt, retract := 0, 0
	if o.Engine == "sglang" {
		retract = len(pressure)
	} else {
		preempt = len(pressure)
	}
	return map[string]any{
		"coverage": map[string]any{
			"capture_canonical_evidence": true, "capture_per_request": true, "capture_planner_details": false,
			"kv_ingest": map[string]any{"batches": 10, "blake3_256": "ab", "blocks": stored * 8,
				"encoding": "dynamo.offline-kv-ingest.v1", "events": stored + removed,
				"kind_counts": map[string]any{"stored": stored, "removed": removed}},
			"per_request_records": o.Requests,
			"pressure":            map[string]any{"records": pressure, "sglang_retractions_total": retract, "vllm_preemptions_total": preempt},
		},
		"metadata": map[string]any{
			"byte_identity_scope": "same_target_toolchain_semantic_features",
			"engine_config":       engineConfig,
			"execution": map[string]any{"arrival_speedup_ratio": num("4.0"), "num_decode_workers": 2,
				"num_prefill_workers": 2, "num_workers": 4, "topology": topology},
			"replay_bench":      true,
			"result_exclusions": []any{"/summary/wall_time_ms", "/summary/processed_tokens_per_s", "/summary/processed_output_tokens_per_s", "/planner/html_report_path"},
			"router":            map[string]any{"config": map[string]any{"overlap_score_credit": num("1.0"), "router_queue_threshold": threshold}, "mode": "kv_router"},
			"schema_version":    "dynamo.offline-replay.v1",
		},
		"per_request": perReq,
		"planner":     nil,
		"summary": map[string]any{"completed_requests": o.Requests, "duration_ms": ms(float64(o.Requests) * 12.5),
			"num_requests": o.Requests, "mean_ttft_ms": num("30.0"), "total_input_tokens": 5000 * o.Requests},
	}
}

// marshal encodes v compactly with sorted keys and no HTML escaping, as serde_json would for a
// BTreeMap (Go sorts map keys bytewise too).
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// synthLine is a harness-style canonical line: already canonical, ending in "\n".
func synthLine(o synthOpts) []byte { return marshal(synthRecord(o)) }
