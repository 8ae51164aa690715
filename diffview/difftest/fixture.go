// Package difftest builds hand-made canonical reports (schema dynamo.offline-replay.v1) for
// diffview's tests and benchmarks, and edits them by JSON pointer (internal/pointer).
package difftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"kvparity/internal/pointer"
)

// Num formats a float the way serde_json prints an f64: shortest round-trip, with ".0" for
// integral values, so fixtures look like real canonical records.
func Num(x float64) json.Number {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return json.Number(s)
}

// Int formats an integer field.
func Int(n int) json.Number { return json.Number(strconv.Itoa(n)) }

// UUID is the canonical ordinal uuid of request ordinal i (0-based).
func UUID(i int) string { return fmt.Sprintf("00000000-0000-0000-0000-%012x", i+1) }

// Report builds a disaggregated vLLM-like canonical report with n requests; every
// pressureEvery-th request (0: none) has one preemption.
func Report(n, pressureEvery int) map[string]any {
	var reqs []any
	var records []any
	for i := 0; i < n; i++ {
		arrival := float64(i) * 10.5
		held := arrival + 20.25 + float64(i%3)*0.5
		act := held + 1.5
		out := 3 + i%5
		last := act + 12.0*float64(out)
		var ords []any
		adm := []any{
			map[string]any{"admission_ordinal": Int(0), "at_ms": Num(arrival), "is_readmission": false, "pool": "prefill", "pool_admission_ordinal": Int(0), "reused_input_tokens": Int(64 * (i % 4))},
			map[string]any{"admission_ordinal": Int(1), "at_ms": Num(act), "is_readmission": false, "pool": "decode", "pool_admission_ordinal": Int(0), "reused_input_tokens": Int(0)},
		}
		if pressureEvery > 0 && i%pressureEvery == pressureEvery-1 {
			k := len(records)
			at := act + 12.0
			records = append(records, map[string]any{
				"at_ms": Num(at), "dp_rank": Int(0), "kind": "vllm_preemption", "logical_available_blocks_before": nil,
				"pool": "decode", "pressure_ordinal": Int(k), "readmitted_at_ms": Num(at + 12.0), "request_active_blocks_before": Int(3),
				"request_uuid": UUID(i), "required_blocks_before": nil,
				"state_after":  map[string]any{"active_blocks": Int(90), "running_requests": Int(15), "waiting_requests": Int(1)},
				"state_before": map[string]any{"active_blocks": Int(93), "running_requests": Int(16), "waiting_requests": Int(0)},
				"worker_id":    Int(i % 2),
			})
			ords = append(ords, Int(k))
			adm = append(adm, map[string]any{"admission_ordinal": Int(2), "at_ms": Num(at + 12.0), "is_readmission": true, "pool": "decode", "pool_admission_ordinal": Int(1), "reused_input_tokens": Int(64)})
		}
		if ords == nil {
			ords = []any{}
		}
		reqs = append(reqs, map[string]any{
			"admission_count": Int(len(adm)), "admission_history": adm, "arrival_time_ms": Num(arrival),
			"decode_admit_ms": Num(act), "decode_reused_input_tokens": Int(0), "decode_route_overlap_tokens": Int(0),
			"decode_worker_idx": Int((i + 1) % 2), "destination_activated_ms": Num(act), "destination_reserved_ms": Num(held),
			"e2e_latency_ms": Num(last - arrival), "first_admit_ms": Num(arrival), "first_token_ms": Num(held),
			"input_length": Int(512 + 7*i), "itl_ms": Num(12.0), "last_token_ms": Num(last), "output_length": Int(out),
			"prefill_admit_ms": Num(arrival), "prefill_route_overlap_tokens": Int(64 * (i % 4)), "prefill_worker_idx": Int(i % 2),
			"pressure_record_ordinals": ords, "readmission_count": Int(len(adm) - 2), "requested_output_length": Int(out),
			"reused_input_tokens": Int(64 * (i % 4)),
			"routing_history": []any{
				map[string]any{"dp_rank": Int(0), "logical_worker_id": Int(i % 2), "outcome": "immediate", "pool": "prefill", "queue_entered_at_ms": nil, "queue_wait_ms": Num(0), "released_at_ms": nil, "reported_overlap_tokens": Int(64 * (i % 4)), "scheduler_id": Int(i % 2)},
				map[string]any{"dp_rank": Int(0), "logical_worker_id": Int((i + 1) % 2), "outcome": "immediate", "pool": "decode", "queue_entered_at_ms": nil, "queue_wait_ms": Num(0), "released_at_ms": nil, "reported_overlap_tokens": Int(0), "scheduler_id": Int((i + 1) % 2)},
			},
			"session_id": fmt.Sprintf("request_%d", i+1), "source_held_ms": Num(held), "source_released_ms": Num(act),
			"terminal_status": "completed", "terminal_time_ms": Num(last), "ttft_ms": Num(held - arrival), "ttst_ms": Num(12.0),
			"turn_index": Int(0), "uuid": UUID(i),
		})
	}
	if records == nil {
		records = []any{}
	}
	return map[string]any{
		"coverage": map[string]any{
			"capture_canonical_evidence": true, "capture_per_request": true, "capture_planner_details": false,
			"kv_ingest": map[string]any{"batches": Int(4 * n), "blake3_256": strings.Repeat("ab", 32), "blocks": Int(9 * n), "encoding": "dynamo.offline-kv-ingest.v1",
				"events": Int(3 * n), "kind_counts": map[string]any{"removed": Int(n), "stored": Int(2 * n)}, "pool_counts": map[string]any{"decode": Int(n), "prefill": Int(2 * n)}, "tier_counts": map[string]any{"device": Int(3 * n)}},
			"per_request_records": Int(n),
			"pressure":            map[string]any{"records": records, "sglang_retractions_total": Int(0), "vllm_preemptions_total": Int(len(records))},
		},
		"metadata": map[string]any{
			"byte_identity_scope": "same_target_toolchain_semantic_features",
			"determinism":         map[string]any{"candidate_order": []any{"worker_id", "dp_rank"}, "request_ids": "ordinal_u128_v1", "seed": Int(3516948205), "selection": "default_worker_selector_seeded_v1"},
			"engine_config":       map[string]any{"decode": map[string]any{"block_size": Int(64), "engine_type": "vllm", "num_gpu_blocks": Int(5500), "preemption_mode": "lifo"}, "prefill": map[string]any{"block_size": Int(64), "engine_type": "vllm", "num_gpu_blocks": Int(5500), "preemption_mode": "lifo"}},
			"execution":           map[string]any{"arrival_speedup_ratio": Num(4), "num_decode_workers": Int(2), "num_prefill_workers": Int(2), "num_workers": Int(4), "topology": "disaggregated"},
			"replay_bench":        true,
			"result_exclusions":   []any{"/summary/wall_time_ms", "/summary/processed_tokens_per_s", "/summary/processed_output_tokens_per_s", "/planner/html_report_path"},
			"schema_version":      "dynamo.offline-replay.v1",
			"workload":            map[string]any{"block_size": Int(512), "digest": strings.Repeat("cd", 32), "format": "mooncake", "kind": "trace"},
		},
		"per_request": reqs,
		"planner":     nil,
		"summary": map[string]any{
			"completed_requests": Int(n), "duration_ms": Num(float64(n) * 10.5), "mean_ttft_ms": Num(20.75), "mean_e2e_latency_ms": Num(81.123456789),
			"num_requests": Int(n), "prefix_cache_reused_ratio": Num(0.4375), "total_input_tokens": Int(512 * n), "total_output_tokens": Int(5 * n),
		},
	}
}

// Encode writes the canonical line: keys sorted (encoding/json sorts map keys bytewise),
// compact, numbers verbatim, plus "\n".
func Encode(m map[string]any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Clone deep-copies a report by encoding and decoding it (numbers stay verbatim).
func Clone(m map[string]any) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(Encode(m)))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		panic(err)
	}
	return out
}

// Get reads the value at a JSON pointer (array indexes only as numbers).
func Get(m map[string]any, ptr string) any {
	return get(m, tokens(ptr))
}

func tokens(ptr string) []string {
	toks, err := pointer.Parse(ptr)
	if err != nil {
		panic("difftest: " + err.Error())
	}
	return toks
}

func get(m map[string]any, toks []string) any {
	var cur any = m
	for _, seg := range toks {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[seg]
		case []any:
			k, _ := strconv.Atoi(seg)
			cur = c[k]
		default:
			panic("difftest.Get: no container at " + pointer.Join(toks))
		}
	}
	return cur
}

// Set writes v at a JSON pointer whose parent exists.
func Set(m map[string]any, ptr string, v any) {
	toks := tokens(ptr)
	parent, last := toks[:len(toks)-1], toks[len(toks)-1]
	p := get(m, parent)
	switch c := p.(type) {
	case map[string]any:
		c[last] = v
	case []any:
		i, _ := strconv.Atoi(last)
		c[i] = v
	default:
		panic("difftest.Set: no container at " + pointer.Join(parent))
	}
}

// Float reads a number at ptr.
func Float(m map[string]any, ptr string) float64 {
	f, err := Get(m, ptr).(json.Number).Float64()
	if err != nil {
		panic(err)
	}
	return f
}

// Shift adds delta to the number at ptr.
func Shift(m map[string]any, ptr string, delta float64) {
	Set(m, ptr, Num(Float(m, ptr)+delta))
}

// NextULP moves the number at ptr by one unit in the last place.
func NextULP(m map[string]any, ptr string) {
	x := Float(m, ptr)
	Set(m, ptr, Num(math.Nextafter(x, math.Inf(1))))
}

// Flood returns report r and a copy of it whose member key is, in both, an array of n
// elements that all differ: elem(i, false) in r and elem(i, true) in the copy (a nil elem:
// the numbers 0 and 1). It is the shape of a flood of differences (issue 13's 5,000,000).
func Flood(r map[string]any, key string, n int, elem func(i int, inB bool) any) (a, b map[string]any) {
	if elem == nil {
		elem = func(_ int, inB bool) any {
			if inB {
				return Int(1)
			}
			return Int(0)
		}
	}
	ea, eb := make([]any, n), make([]any, n)
	for i := range n {
		ea[i], eb[i] = elem(i, false), elem(i, true)
	}
	b = Clone(r) // before the arrays: cloning them would encode them
	r[key], b[key] = ea, eb
	return r, b
}

// ExcludedOnly returns a 10-request report and a copy that differs from it only in two
// members the canonical profile excludes (the summary's wall time and throughput: 1234.5 →
// 1301.75 ms and 99.25 → 91.5 tokens/s).
func ExcludedOnly() (a, b map[string]any) {
	a = Report(10, 0)
	Set(a, "/summary/wall_time_ms", Num(1234.5))
	Set(a, "/summary/processed_tokens_per_s", Num(99.25))
	b = Clone(a)
	Set(b, "/summary/wall_time_ms", Num(1301.75))
	Set(b, "/summary/processed_tokens_per_s", Num(91.5))
	return a, b
}

// WriteFile writes text to dir/name and returns its path: the files a release replay writes,
// for the tests that read them (diffview's and its diagnosis's).
func WriteFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Diff diffs two fixture reports, named A.jsonl and B.jsonl, with diff (diffview.DiffBytes,
// or the diagnosis's), failing t on an error.
func Diff[D any](t testing.TB, diff func(nameA string, a []byte, nameB string, b []byte) (D, error), a, b map[string]any) D {
	t.Helper()
	d, err := diff("A.jsonl", Encode(a), "B.jsonl", Encode(b))
	if err != nil {
		t.Fatal(err)
	}
	return d
}
