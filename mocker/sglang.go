package mocker

// startSGLang plans one SGLang pass (Dynamo's lib/mocker SGLang scheduler): retract while the
// decode step cannot grow every running request by one token, continue the chunked request, admit
// waiting requests under the new-token-ratio budget, then decode every running request. It returns
// whether any state changed.
func (w *worker) startSGLang() bool {
	a := w.args
	bs := a.blockSize
	w.plan = w.plan[:0]
	changed := false

	// check_decode_mem_for_burst: retract the decoding request with the fewest output tokens.
	for {
		need, decoding := 0, 0
		for _, q := range w.running {
			if q.prefilling {
				continue
			}
			decoding++
			if (q.tokens+bs-1)/bs > len(q.blocks) {
				need++
			}
		}
		if need == 0 || w.kv.free() >= need || decoding <= 1 {
			break
		}
		var victim *seq
		for _, q := range w.running {
			if !q.prefilling && (victim == nil || q.generated < victim.generated) {
				victim = q
			}
		}
		before := pressureState{running: len(w.running), activeBlocks: w.kv.active()}
		held := len(victim.blocks)
		free := w.kv.free()
		w.evict(victim)
		after := pressureState{running: len(w.running), activeBlocks: w.kv.active()}
		w.sim.ev.pressure(w, victim, "sglang_retraction", before, after, held, free, need)
		w.ratio = a.initRatio
		changed = true
	}

	// get_new_batch_prefill
	// rem_total counts tokens: free pages × page size, minus the output reserve of running requests
	remTotal := float64(w.kv.free() * bs)
	for _, q := range w.running {
		if !q.prefilling {
			remTotal -= float64(min(q.maxOut-q.generated, a.clipMaxNew)) * w.ratio
		}
	}
	chunkBudget, prefillBudget := a.chunkedPrefill, a.maxPrefillTokens
	if q := w.chunked; q != nil {
		ext := q.tokens - q.computed
		chunk := min(ext, chunkBudget, prefillBudget)
		if w.ensureBlocks(q, q.computed+chunk) {
			w.plan = append(w.plan, planItem{q: q, n: chunk, prefill: true})
			chunkBudget -= chunk
			prefillBudget -= chunk
			if chunk == ext {
				w.chunked = nil
			}
		} else {
			w.ratio = a.initRatio
		}
	}
	for w.chunked == nil && len(w.waiting) > 0 && len(w.running)+w.reserved < a.maxNumSeqs && chunkBudget > 0 && prefillBudget > 0 {
		q := w.waiting[0]
		if q.pool == poolDecode && !q.everAdmit && !q.reserved {
			if !w.reserveHandoff(q) {
				break
			}
			changed = true
			continue
		}
		known := (q.tokens + bs - 1) / bs
		if !q.everAdmit && known > a.numGPUBlocks {
			w.reject(q)
			changed = true
			continue
		}
		ids := q.seqIDs(bs, w.sim.tab)
		m := w.kv.match(ids, (q.tokens-1)/bs)
		prefix := m * bs
		ext := q.tokens - prefix
		chunk := min(ext, chunkBudget, prefillBudget)
		cost := (chunk + bs - 1) / bs * bs
		if chunk == ext {
			cost += min(q.maxOut-q.generated, a.clipMaxNew)
		}
		// locking a cached prefix takes its pages out of the evictable pool that rem_total
		// counted, so a just-retracted request cannot buy its way back with its own pages
		cost += (m - w.kv.countActive(ids[:m])) * bs
		// an empty worker still admits what physically fits, so one large request cannot starve
		if float64(cost) > remTotal && len(w.running) > 0 {
			break
		}
		_, needed := w.admissionNeed(q)
		if needed > w.kv.free() {
			w.ratio = a.initRatio // OOM while allocating through the radix cache
			break
		}
		w.admit(q)
		changed = true
		if !w.ensureBlocks(q, q.computed+chunk) {
			w.ratio = a.initRatio
			break
		}
		remTotal -= float64(cost)
		chunkBudget -= chunk
		prefillBudget -= chunk
		w.plan = append(w.plan, planItem{q: q, n: chunk, prefill: true})
		if chunk < ext {
			w.chunked = q
		}
	}

	// decode: every running request that finished prefill grows by one token
	for _, q := range w.running {
		if q.prefilling || q.tokens-q.computed != 1 {
			continue
		}
		if !w.ensureBlocks(q, q.tokens) {
			continue // retraction above guarantees room unless admission took it; wait a pass
		}
		w.plan = append(w.plan, planItem{q: q, n: 1})
	}
	return w.launch() || changed
}
