// Package mocker is the embedded reference replay engine behind `kvparity replay`: a
// virtual-time simulator of Dynamo's mocker (vLLM, SGLang, TRT-LLM schedulers, the KV-overlap
// router, aggregated and disaggregated serving) that speaks the flags and writes the files of
// Dynamo's offline_replay_bench (lib/bench/offline_replay_bench.rs). The files name the Dynamo
// and aisimulate-core sources each part follows.
//
// Layout, one job per file:
//
//	main.go       Main: harness control flow, timing boundary, output files
//	flags.go      clap-compatible flag parsing and the harness's validation messages
//	variants.go   --variant: leaks, slowdown-PCT, fifo-preemption, unseeded-timed
//	workload.go   trace rows → requests, block-id interning, workload digest
//	sim.go        the event loop ordered by (time, sequence number)
//	worker.go     per-worker state, polynomial timing, pass completion
//	vllm.go       vLLM / TRT-LLM pass planning
//	sglang.go     SGLang pass planning
//	kvpool.go     G1 block pool: prefix reuse, LRU eviction
//	router.go     KV-overlap router, round-robin, router queue
//	handoff.go    disaggregated handoff, source- or destination-first
//	evidence.go   router KV events, kv_ingest digest, pressure records
//	collector.go  per-request records and streamed statistics
//	report.go     summary and per_request JSON
//	canonical.go  the canonical record
//	jsonw.go      serde_json-compatible JSON writing
//
// kvparity extensions to the harness's flags: --variant NAME, --progress-file PATH (one JSON
// line {"virtual_time_ms","completed","total"} about every 100 ms of wall time and at the end
// of each iteration) and --scale-event AT_MS:WORKERS (aggregated only; repeatable). Timing
// lines add replay_execution_ms (the replay loop only), setup_ms and end_to_end_ms.
package mocker
