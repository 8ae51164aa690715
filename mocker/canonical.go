package mocker

import "sort"

const canonicalSchema = "dynamo.offline-replay.v1"

var resultExclusions = []string{"/summary/wall_time_ms", "/summary/processed_tokens_per_s", "/summary/processed_output_tokens_per_s", "/planner/html_report_path"}

// canonicalLine is the --canonical-reports-jsonl line: compact, keys sorted bytewise,
// per_request sorted by uuid, f64 fields printed as floats, plus the trailing newline.
func (rep *replayReport) canonicalLine(workloadDigest string) []byte {
	root := jobj()
	root.set("coverage", rep.coverage())
	root.set("metadata", rep.sim.metadata(workloadDigest))
	items := make([]jv, len(rep.records))
	for i, rec := range rep.records {
		items[i] = perRequestJSON(rec)
	}
	root.set("per_request", jarrOf(items))
	root.set("planner", jnull())
	root.set("summary", rep.summary(false))
	b := make([]byte, 0, 1<<20)
	b = appendCompact(b, root.val())
	return append(b, '\n')
}

func sortRecordsByUUID(recs []*record) {
	sort.Slice(recs, func(i, j int) bool { return recs[i].uuid < recs[j].uuid })
}

func (rep *replayReport) coverage() jv {
	s := rep.sim
	o := jobj()
	o.set("capture_per_request", jbool(true))
	o.set("capture_planner_details", jbool(false))
	o.set("capture_canonical_evidence", jbool(true))
	o.set("per_request_records", jint(len(rep.records)))
	p := jobj()
	recs := make([]jv, len(s.ev.pressures))
	for i, r := range s.ev.pressures {
		recs[i] = pressureJSON(&r)
	}
	p.set("records", jarrOf(recs))
	p.set("vllm_preemptions_total", jint(s.ev.preemptions))
	p.set("sglang_retractions_total", jint(s.ev.retractions))
	o.set("pressure", p.val())
	if s.cfg.RouterMode == "kv-router" {
		o.set("kv_ingest", s.kvIngestJSON())
	}
	return o.val()
}

func stateJSON(st pressureState) jv {
	o := jobj()
	o.set("running_requests", jint(st.running))
	if st.waitingKnown {
		o.set("waiting_requests", jint(st.waiting))
	} else {
		o.set("waiting_requests", jnull())
	}
	o.set("active_blocks", jint(st.activeBlocks))
	return o.val()
}

func pressureJSON(r *pressureRecord) jv {
	o := jobj()
	o.set("pressure_ordinal", jint(r.ordinal))
	o.set("at_ms", jfloat(r.atMs))
	o.set("pool", jstr(r.pool))
	o.set("worker_id", jint(r.workerID))
	o.set("dp_rank", jint(0))
	o.set("kind", jstr(r.kind))
	o.set("request_uuid", jstr(r.uuid))
	o.set("state_before", stateJSON(r.before))
	o.set("state_after", stateJSON(r.after))
	o.set("request_active_blocks_before", jint(r.requestBlocks))
	o.set("logical_available_blocks_before", optInt(r.logicalAvailable))
	o.set("required_blocks_before", optInt(r.requiredBlocks))
	o.set("readmitted_at_ms", jopt(r.readmittedAt, r.readmitted))
	return o.val()
}

func (s *sim) kvIngestJSON() jv {
	ev := s.ev
	o := jobj()
	o.set("encoding", jstr("dynamo.offline-kv-ingest.v1"))
	o.set("blake3_256", jstr(ev.digest()))
	o.set("batches", jint(ev.batches))
	o.set("events", jint(ev.events))
	o.set("blocks", jint(ev.blocks))
	kinds := jobj()
	for i, name := range []string{"stored", "removed", "cleared"} {
		if ev.kinds[i] > 0 {
			kinds.set(name, jint(ev.kinds[i]))
		}
	}
	o.set("kind_counts", kinds.val())
	pools := jobj()
	names := []string{poolAgg}
	if s.disagg {
		names = []string{poolPrefill, poolDecode}
	}
	for _, n := range names {
		pools.set(n, jint(ev.poolEvents[poolTags[n]]))
	}
	o.set("pool_counts", pools.val())
	tiers := jobj()
	if ev.events > 0 {
		tiers.set("device", jint(ev.events))
	}
	o.set("tier_counts", tiers.val())
	bounds := jobj()
	for tag, bc := range ev.bounds {
		if bc.batches == 0 {
			continue
		}
		b := jobj()
		b.set("batches", jint(bc.batches))
		b.set("events", jint(bc.events))
		b.set("first_at_ms", jfloat(bc.first))
		b.set("last_at_ms", jfloat(bc.last))
		bounds.set(boundaryNames[tag], b.val())
	}
	o.set("boundaries", bounds.val())
	return o.val()
}

// engineConfigJSON is serde_json::to_value(MockEngineArgs) plus performance_model.
func (s *sim) engineConfigJSON(a *engineArgs) jv {
	c := s.cfg
	o := jobj()
	o.set("engine_type", jstr(a.engineType))
	o.set("num_gpu_blocks", jint(a.numGPUBlocks))
	o.set("block_size", jint(a.blockSize))
	o.set("max_model_len", jnull())
	o.set("max_num_seqs", jint(a.maxNumSeqs))
	o.set("max_num_batched_tokens", jint(a.maxBatched))
	o.set("enable_prefix_caching", jbool(true))
	o.set("enable_chunked_prefill", jbool(true))
	o.set("speedup_ratio", jfloat(a.speedup))
	o.set("decode_speedup_ratio", jfloat(a.decodeSpeedup))
	o.set("dp_size", jint(1))
	o.set("startup_time", jnull())
	o.set("worker_type", jstr(a.workerType))
	o.set("planner_profile_data", jnull())
	o.set("ais_nextn", jnull())
	o.set("ais_nextn_accept_rates", jnull())
	o.set("ais_mtp_seed", jint(42))
	o.set("gpu_memory_utilization", jnull())
	o.set("mem_fraction_static", jnull())
	o.set("free_gpu_memory_fraction", jnull())
	o.set("enable_local_indexer", jbool(false))
	o.set("bootstrap_port", jnull())
	o.set("handoff_session_timeout_ms", jint(300000))
	if c.KVBytesPerToken != nil {
		o.set("kv_bytes_per_token", jint(*c.KVBytesPerToken))
	} else {
		o.set("kv_bytes_per_token", jnull())
	}
	if c.KVTransferBandwidth != nil {
		o.set("kv_transfer_bandwidth", jfloat(*c.KVTransferBandwidth))
	} else {
		o.set("kv_transfer_bandwidth", jnull())
	}
	if c.KVTransferTimingMode == "destination-missing" {
		o.set("kv_transfer_timing_mode", jstr("destination_missing"))
	} else {
		o.set("kv_transfer_timing_mode", jstr("full_prompt"))
	}
	o.set("reasoning", jnull())
	o.set("response_replay_trace_path", jnull())
	o.set("zmq_kv_events_port", jnull())
	o.set("zmq_replay_port", jnull())
	if a.fifo || s.v.fifoPreemption {
		o.set("preemption_mode", jstr("fifo"))
	} else {
		o.set("preemption_mode", jstr("lifo"))
	}
	o.set("router_queue_policy", jnull())
	if a.engineType == "sglang" {
		g := jobj()
		g.set("schedule_policy", jstr("fifo"))
		g.set("page_size", jint(a.blockSize))
		g.set("max_prefill_tokens", jint(a.maxPrefillTokens))
		g.set("chunked_prefill_size", jint(a.chunkedPrefill))
		g.set("clip_max_new_tokens", jint(a.clipMaxNew))
		g.set("schedule_conservativeness", jfloat(1.0))
		o.set("sglang", g.val())
	} else {
		o.set("sglang", jnull())
	}
	if a.engineType == "trtllm" {
		t := jobj()
		t.set("capacity_scheduler_policy", jstr("guaranteed_no_evict"))
		o.set("trtllm", t.val())
	} else {
		o.set("trtllm", jnull())
	}
	pm := jobj()
	pm.set("kind", jstr("builtin_polynomial"))
	pm.set("ais", jnull())
	o.set("performance_model", pm.val())
	return o.val()
}

func (s *sim) routerConfigJSON() jv {
	c := s.cfg
	o := jobj()
	o.set("overlap_score_credit", jfloat(1.0))
	o.set("overlap_score_credit_decay", jfloat(0.0))
	o.set("prefill_load_scale", jfloat(1.0))
	o.set("host_cache_hit_weight", jfloat(0.75))
	o.set("disk_cache_hit_weight", jfloat(0.25))
	o.set("router_temperature", jfloat(0.0))
	o.set("use_kv_events", jbool(true))
	o.set("router_replica_sync", jbool(false))
	o.set("router_track_active_blocks", jbool(true))
	o.set("router_track_output_blocks", jbool(false))
	o.set("router_assume_kv_reuse", jbool(true))
	o.set("router_track_prefill_tokens", jbool(true))
	o.set("router_prefill_load_model", jstr("none"))
	o.set("router_ttl_secs", jfloat(120.0))
	if c.RouterQueueThreshold != nil {
		o.set("router_queue_threshold", jfloat(*c.RouterQueueThreshold))
	} else {
		o.set("router_queue_threshold", jnull())
	}
	o.set("router_policy_config", jnull())
	o.set("router_event_threads", jint(4))
	o.set("skip_initial_worker_wait", jbool(false))
	o.set("router_queue_policy", jstr("fcfs"))
	o.set("use_remote_indexer", jbool(false))
	o.set("serve_indexer", jbool(false))
	o.set("shared_cache_multiplier", jfloat(0.0))
	o.set("shared_cache_type", jstr("none"))
	o.set("router_predicted_ttl_secs", jnull())
	return o.val()
}

func (s *sim) metadata(workloadDigest string) jv {
	c := s.cfg
	o := jobj()
	o.set("replay_bench", jbool(true))
	o.set("byte_identity_scope", jstr("same_target_toolchain_semantic_features"))
	wl := jobj()
	wl.set("kind", jstr("trace"))
	wl.set("format", jstr("mooncake"))
	wl.set("block_size", jint(c.TraceBlockSize))
	wl.set("digest", jstr(workloadDigest))
	o.set("workload", wl.val())
	ex := jobj()
	if s.disagg {
		ex.set("topology", jstr("disaggregated"))
	} else {
		ex.set("topology", jstr("aggregated"))
	}
	ex.set("num_workers", jint(c.NumWorkers))
	ex.set("num_prefill_workers", jint(c.NumPrefillWorkers))
	ex.set("num_decode_workers", jint(c.NumDecodeWorkers))
	ex.set("replay_concurrency", jnull())
	ex.set("arrival_speedup_ratio", jfloat(c.ArrivalSpeedupRatio))
	ex.set("max_sim_time_ms", jnull())
	ex.set("ais_prefill_load_estimator", jnull())
	ex.set("ais_performance_model_implementation", jnull())
	ex.set("ais_prefill_load_estimator_implementation", jnull())
	o.set("execution", ex.val())
	ec := jobj()
	if s.disagg {
		ec.set("prefill", s.engineConfigJSON(s.prefill[0].args))
		ec.set("decode", s.engineConfigJSON(s.decode[0].args))
	} else {
		ec.set("aggregated", s.engineConfigJSON(s.agg[0].args))
	}
	o.set("engine_config", ec.val())
	rt := jobj()
	if c.RouterMode == "kv-router" {
		rt.set("mode", jstr("kv_router"))
		rt.set("config", s.routerConfigJSON())
	} else {
		rt.set("mode", jstr("round_robin"))
		rt.set("config", jnull())
	}
	o.set("router", rt.val())
	sla := jobj()
	sla.set("ttft_ms", jnull())
	sla.set("itl_ms", jnull())
	sla.set("e2e_ms", jnull())
	o.set("sla", sla.val())
	det := jobj()
	det.set("request_ids", jstr("ordinal_u128_v1"))
	det.set("selection", jstr("default_worker_selector_seeded_v1"))
	det.set("seed", jint(selectorSeed))
	det.set("candidate_order", jarr(jstr("worker_id"), jstr("dp_rank")))
	o.set("determinism", det.val())
	sf := jobj()
	sf.set("canonical_replay", jbool(true))
	sf.set("mocker_kvbm_offload", jbool(false))
	sf.set("ais_forward_pass", jbool(false))
	o.set("semantic_features", sf.val())
	if len(c.ScaleEvents) > 0 {
		// kvparity extension: the scale schedule changes the replay, so it is part of the record
		evs := make([]jv, len(c.ScaleEvents))
		for i, e := range c.ScaleEvents {
			x := jobj()
			x.set("at_ms", jfloat(e.AtMs))
			x.set("workers", jint(e.Workers))
			evs[i] = x.val()
		}
		o.set("kvparity_scale_events", jarrOf(evs))
	}
	o.set("schema_version", jstr(canonicalSchema))
	rex := make([]jv, len(resultExclusions))
	for i, p := range resultExclusions {
		rex[i] = jstr(p)
	}
	o.set("result_exclusions", jarrOf(rex))
	return o.val()
}
