package mocker

import "math"

// replayReport is one iteration's result: the summary values and what the canonical record
// needs beyond them.
type replayReport struct {
	sim     *sim
	records []*record // terminal records, sorted by uuid
	num     int
	wallMs  float64

	completed           int
	inTok, outTok       int
	durationMs          float64
	prefillWS, decodeWS float64
	prefillGPU          int
	decodeGPU           int
	reused, firstReused int
	ttft, ttst, tpot    dist
	e2e, itl, otpu      dist
}

// finalize is collector finalisation and report aggregation (Dynamo's TraceCollector::finish).
func (s *sim) finalize() *replayReport {
	c := s.col
	rep := &replayReport{sim: s, num: len(c.records)}
	var ttft, ttst, tpot, e2e []float64
	for _, rec := range c.records {
		if rec.status == "" {
			continue // never reached a terminal state: stranded, not emitted
		}
		rep.records = append(rep.records, rec)
		if rec.status != "completed" || !isSet(rec.firstAdmit) {
			continue
		}
		rep.completed++
		rep.inTok += rec.req.promptLen
		rep.outTok += rec.nTokens
		rep.durationMs = math.Max(rep.durationMs, rec.terminalAt)
		rep.reused += rec.reused
		rep.firstReused += rec.firstReused
		if rec.nTokens > 0 {
			ttft = append(ttft, math.Max(0, rec.firstTok-rec.arrival))
			e2e = append(e2e, math.Max(0, rec.lastTok-rec.arrival))
		}
		if rec.nTokens > 1 {
			ttst = append(ttst, math.Max(0, rec.secondTok-rec.firstTok))
			tpot = append(tpot, math.Max(0, (rec.lastTok-rec.firstTok)/float64(rec.nTokens-1)))
		}
	}
	if s.v.randomUUID {
		sortRecordsByUUID(rep.records)
	}
	if s.disagg {
		rep.prefillWS = float64(s.cfg.NumPrefillWorkers) * rep.durationMs / 1000
		rep.decodeWS = float64(s.cfg.NumDecodeWorkers) * rep.durationMs / 1000
		rep.prefillGPU, rep.decodeGPU = 1, 1
	} else {
		end := math.Max(rep.durationMs, c.lastScaleAt)
		rep.decodeWS = (c.workerMs + float64(c.workers)*(end-c.lastScaleAt)) / 1000
		rep.decodeGPU = 1
	}
	rep.ttft, rep.ttst, rep.tpot, rep.e2e = exactDist(ttft), exactDist(ttst), exactDist(tpot), exactDist(e2e)
	rep.itl, rep.otpu = c.itl.dist(), c.otpu.dist()
	if s.v.wallclock {
		// the leak: a wall-clock reading (sub-millisecond noise) reaches a canonical field
		rep.durationMs += float64(wallclockNanos()%1000) * 1e-6
	}
	return rep
}

// summary returns the flat report map in serializer order (the --report-json order); the
// canonical summary is the same map without the excluded keys.
func (rep *replayReport) summary(withWall bool) jv {
	o := jobj()
	durS := math.Max(rep.durationMs/1000, 1e-9)
	wallS := rep.wallMs / 1000
	per := func(n int) float64 {
		if wallS <= 0 {
			return 0
		}
		return float64(n) / wallS
	}
	o.set("num_requests", jint(rep.num))
	o.set("completed_requests", jint(rep.completed))
	o.set("total_input_tokens", jint(rep.inTok))
	o.set("total_output_tokens", jint(rep.outTok))
	o.set("duration_ms", jfloat(rep.durationMs))
	if withWall {
		o.set("wall_time_ms", jfloat(rep.wallMs))
	}
	o.set("request_throughput_rps", jfloat(float64(rep.completed)/durS))
	o.set("input_throughput_tok_s", jfloat(float64(rep.inTok)/durS))
	o.set("output_throughput_tok_s", jfloat(float64(rep.outTok)/durS))
	o.set("total_throughput_tok_s", jfloat(float64(rep.inTok+rep.outTok)/durS))
	o.set("prefill_worker_seconds", jfloat(rep.prefillWS))
	o.set("decode_worker_seconds", jfloat(rep.decodeWS))
	o.set("prefill_gpus_per_worker", jint(rep.prefillGPU))
	o.set("decode_gpus_per_worker", jint(rep.decodeGPU))
	o.set("gpu_hours", jfloat((rep.prefillWS*float64(rep.prefillGPU)+rep.decodeWS*float64(rep.decodeGPU))/3600))
	o.set("processed_tokens", jint(rep.inTok+rep.outTok))
	if withWall {
		o.set("processed_tokens_per_s", jfloat(per(rep.inTok+rep.outTok)))
		o.set("processed_output_tokens_per_s", jfloat(per(rep.outTok)))
	}
	o.set("prefix_cache_reused_ratio", jfloat(rep.reuseRatio(rep.reused)))
	o.set("first_admission_prefix_cache_reused_ratio", jfloat(rep.reuseRatio(rep.firstReused)))
	addDist := func(name, unit string, d dist) {
		o.set("mean_"+name+unit, jfloat(d.mean))
		o.set("min_"+name+unit, jfloat(d.min))
		o.set("max_"+name+unit, jfloat(d.max))
		o.set("median_"+name+unit, jfloat(d.median))
		o.set("p75_"+name+unit, jfloat(d.p75))
		o.set("p90_"+name+unit, jfloat(d.p90))
		o.set("p95_"+name+unit, jfloat(d.p95))
		o.set("p99_"+name+unit, jfloat(d.p99))
		o.set("std_"+name+unit, jfloat(d.std))
	}
	addDist("ttft", "_ms", rep.ttft)
	addDist("ttst", "_ms", rep.ttst)
	addDist("tpot", "_ms", rep.tpot)
	addDist("itl", "_ms", rep.itl) // includes max_itl_ms
	addDist("e2e_latency", "_ms", rep.e2e)
	addDist("output_token_throughput_per_user", "", rep.otpu)
	return o.val()
}

// reuseRatio is n reused tokens over the completed requests' input tokens.
func (rep *replayReport) reuseRatio(n int) float64 {
	if rep.inTok == 0 {
		return 0
	}
	return float64(n) / float64(rep.inTok)
}

func optInt(n int) jv {
	if n < 0 {
		return jnull()
	}
	return jint(n)
}

func perRequestJSON(rec *record) jv {
	o := jobj()
	o.set("session_id", jstr(rec.req.sessionID))
	o.set("turn_index", jint(rec.req.turn))
	o.set("uuid", jstr(rec.uuid))
	o.set("arrival_time_ms", jfloat(rec.arrival))
	o.set("first_admit_ms", jopt(rec.firstAdmit, isSet(rec.firstAdmit)))
	o.set("terminal_time_ms", jopt(rec.terminalAt, isSet(rec.terminalAt)))
	o.set("first_token_ms", jopt(rec.firstTok, isSet(rec.firstTok)))
	o.set("last_token_ms", jopt(rec.lastTok, isSet(rec.lastTok)))
	hasTok := rec.nTokens > 0
	o.set("ttft_ms", jopt(math.Max(0, rec.firstTok-rec.arrival), hasTok))
	o.set("ttst_ms", jopt(math.Max(0, rec.secondTok-rec.firstTok), rec.nTokens > 1))
	o.set("e2e_latency_ms", jopt(math.Max(0, rec.lastTok-rec.arrival), hasTok))
	o.set("itl_ms", jopt(rec.gapSum/float64(rec.nTokens-1), rec.nTokens > 1))
	o.set("input_length", jint(rec.req.promptLen))
	o.set("requested_output_length", jint(rec.req.maxOut))
	o.set("output_length", jint(rec.nTokens))
	o.set("reused_input_tokens", jint(rec.reused))
	o.set("prefill_worker_idx", optInt(rec.prefillWorker))
	o.set("decode_worker_idx", optInt(rec.decodeWorker))
	o.set("prefill_admit_ms", jopt(rec.prefillAdmit, isSet(rec.prefillAdmit)))
	o.set("source_held_ms", jopt(rec.sourceHeld, isSet(rec.sourceHeld)))
	o.set("destination_reserved_ms", jopt(rec.destReserved, isSet(rec.destReserved)))
	o.set("destination_activated_ms", jopt(rec.destActivated, isSet(rec.destActivated)))
	o.set("decode_admit_ms", jopt(rec.decodeAdmit, isSet(rec.decodeAdmit)))
	o.set("source_released_ms", jopt(rec.sourceReleased, isSet(rec.sourceReleased)))
	o.set("decode_reused_input_tokens", optInt(rec.decodeReused))
	o.set("prefill_route_overlap_tokens", optInt(rec.prefillOverlap))
	o.set("decode_route_overlap_tokens", optInt(rec.decodeOverlap))
	routing := make([]jv, len(rec.routing))
	for i, e := range rec.routing {
		r := jobj()
		r.set("pool", jstr(e.pool))
		if e.queued {
			r.set("outcome", jstr("queued"))
			r.set("queue_entered_at_ms", jfloat(e.enteredAt))
			r.set("released_at_ms", jopt(e.releasedAt, isSet(e.releasedAt)))
		} else {
			r.set("outcome", jstr("immediate"))
			r.set("queue_entered_at_ms", jnull())
			r.set("released_at_ms", jnull())
		}
		r.set("queue_wait_ms", jfloat(e.waitMs))
		r.set("logical_worker_id", optInt(e.workerID))
		r.set("scheduler_id", optInt(e.workerID))
		r.set("dp_rank", jint(0))
		r.set("reported_overlap_tokens", jint(e.overlapToken))
		routing[i] = r.val()
	}
	o.set("routing_history", jarrOf(routing))
	adm := make([]jv, len(rec.admissions))
	for i, a := range rec.admissions {
		r := jobj()
		r.set("admission_ordinal", jint(a.ordinal))
		r.set("pool_admission_ordinal", jint(a.poolOrdinal))
		r.set("pool", jstr(a.pool))
		r.set("at_ms", jfloat(a.at))
		r.set("reused_input_tokens", jint(a.reused))
		r.set("is_readmission", jbool(a.poolOrdinal > 0))
		adm[i] = r.val()
	}
	o.set("admission_history", jarrOf(adm))
	o.set("admission_count", jint(len(rec.admissions)))
	readmit := 0
	for _, n := range rec.poolAdmits {
		if n > 1 {
			readmit += n - 1
		}
	}
	o.set("readmission_count", jint(readmit))
	pr := make([]jv, len(rec.pressure))
	for i, p := range rec.pressure {
		pr[i] = jint(p)
	}
	o.set("pressure_record_ordinals", jarrOf(pr))
	o.set("terminal_status", jstr(rec.status))
	return o.val()
}
