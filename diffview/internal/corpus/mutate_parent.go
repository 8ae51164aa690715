package corpus

import "strconv"

// Child before parent: the KV event stream stored a block before its parent. Canonical
// reports carry only the stream's digest, so the leak shows as a different digest with equal
// counts and a parent-order counter; when the router's index lost the orphaned chain, the
// first routing decision that looks at it sees less overlap on the same worker.

func parentVariants() []variant {
	cbp := func(name string, apply func(*mutation) error) variant {
		return variant{family: "child-before-parent", name: name, primary: "child-before-parent",
			needs: func(b *base) bool { return b.KVIngest }, apply: apply}
	}
	return []variant{
		cbp("digest-violations", func(m *mutation) error {
			n := 1 + m.rng.IntN(40)
			m.both(func(r *reportTree) { r.obj("/coverage/kv_ingest")["parent_order_violations"] = intNum(0) })
			kvLeak(m, "parent_order_violations", n)
			return nil
		}),
		cbp("digest-violations-both", func(m *mutation) error {
			n := 1 + m.rng.IntN(40)
			m.both(func(r *reportTree) { r.obj("/coverage/kv_ingest")["parent_order_violations"] = intNum(n) })
			m.b.obj("/coverage/kv_ingest")["blake3_256"] = randomHex(m, 32)
			m.cause = []string{"/coverage/kv_ingest/blake3_256"}
			m.note("both runs count %d parent-order violations; B's KV digest differs, counts equal", n)
			return nil
		}),
		cbp("digest-orphans", func(m *mutation) error {
			n := 1 + m.rng.IntN(12)
			m.both(func(r *reportTree) {
				kv := r.obj("/coverage/kv_ingest")
				kv["parent_order_violations"], kv["orphan_stored_events"] = intNum(0), intNum(0)
			})
			kvLeak(m, "orphan_stored_events", n)
			return nil
		}),
		cbp("index-loss", indexLoss),
	}
}

// kvLeak gives B a different KV digest and a nonzero parent-order counter, counts unchanged.
func kvLeak(m *mutation, counter string, n int) {
	kv := m.b.obj("/coverage/kv_ingest")
	kv["blake3_256"] = randomHex(m, 32)
	kv[counter] = intNum(n)
	m.cause = []string{"/coverage/kv_ingest/blake3_256"}
	m.note("B's KV digest differs with equal event, block and kind counts; %s %d", counter, n)
}

// indexLoss: the index dropped a child stored before its parent, so a later request routed to
// the same worker sees fewer overlap tokens there, reuses less and finishes later.
func indexLoss(m *mutation) error {
	reqs := m.b.Requests()
	lo, hi := span(reqs)
	type cand struct{ r, k, overlap int }
	var cands []cand
	for i, r := range reqs {
		if a := arrival(r); a < lo+(hi-lo)*0.05 || a > lo+(hi-lo)*0.8 {
			continue
		}
		for k, e := range routing(r) {
			_, queued := numOf(e["queue_entered_at_ms"])
			ov, _ := intOf(e["reported_overlap_tokens"])
			if !queued && e["pool"] != "decode" && ov > 0 {
				cands = append(cands, cand{i, k, ov})
			}
		}
	}
	if len(cands) == 0 {
		return errNotHere
	}
	c := cands[m.rng.IntN(len(cands))]
	r := reqs[c.r]
	e := routing(r)[c.k]
	block := blockSize(m.b)
	lost := block * (1 + m.rng.IntN(max(1, c.overlap/block)))
	lost = min(lost, c.overlap)
	now := c.overlap - lost
	e["reported_overlap_tokens"] = intNum(now)
	for _, key := range []string{"selected_overlap_blocks", "best_available_overlap_blocks"} {
		if b, ok := intOf(e[key]); ok && b > 0 {
			e[key] = intNum(max(0, b-lost/block))
		}
	}
	if e["pool"] == "prefill" {
		r["prefill_route_overlap_tokens"] = intNum(now)
	}
	reduceReuse(r, lost)
	t := arrival(r)
	shiftAfter(r, t, m.between(0.5, 30)) // more prefill to do
	w, _ := intOf(e["logical_worker_id"])
	pool := e["pool"]
	for i, o := range reqs { // the worker's later requests queue behind it
		if i != c.r && routedTo(o, pool, w) && m.rng.IntN(3) == 0 {
			shiftAfter(o, t, m.between(0.05, 10))
		}
	}
	m.both(func(r *reportTree) { r.obj("/coverage/kv_ingest")["parent_order_violations"] = intNum(0) })
	kvLeak(m, "parent_order_violations", 1+m.rng.IntN(6))
	m.cause = []string{"/per_request/" + strconv.Itoa(c.r) + "/routing_history/" + strconv.Itoa(c.k)}
	m.note("request %d routed to the same %v worker %d at %s ms saw %d instead of %d overlap tokens", c.r, pool, w, num(t), now, c.overlap)
	return nil
}

// reduceReuse lowers the prefix-cache reuse a request's first admission got.
func reduceReuse(r map[string]any, lost int) {
	if v, ok := intOf(r["reused_input_tokens"]); ok {
		r["reused_input_tokens"] = intNum(max(0, v-lost))
	}
	if adm := admissions(r); len(adm) > 0 {
		if v, ok := intOf(adm[0]["reused_input_tokens"]); ok {
			adm[0]["reused_input_tokens"] = intNum(max(0, v-lost))
		}
	}
}

// routedTo says a request's decision in pool went to worker w.
func routedTo(r map[string]any, pool any, w int) bool {
	for _, e := range routing(r) {
		if x, ok := intOf(e["logical_worker_id"]); ok && e["pool"] == pool && x == w {
			return true
		}
	}
	return false
}

// blockSize is the KV block size of the run's engine (64 when not recorded).
func blockSize(r *reportTree) int {
	for _, ec := range engineConfigs(r) {
		if b, ok := intOf(ec["block_size"]); ok && b > 0 {
			return b
		}
	}
	return 64
}
