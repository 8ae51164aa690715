package mocker

// Disaggregated handoff (Dynamo's lib/mocker/src/replay/offline/disagg.rs). vLLM is source-first:
// the prefill worker holds the KV, then the decode router picks a destination, which reserves
// blocks; the transfer runs; the destination activates and the source releases. SGLang is
// destination-first: the destination is routed and reserved when the request arrives, and only then
// is the prefill routed.

// handoff is called when the prefill seq p has produced its one token: the source holds its
// KV from now until the destination activates.
func (s *sim) handoff(p *seq) {
	now := s.now
	s.col.sourceHeld(p.rec, now)
	s.prefillR.free(p, now)
	if s.destFirst {
		d := p.partner
		s.push(now+d.transferDelay, evTransferDone, d.w, d)
		return
	}
	d := s.newSeq(p.req, p.rec, poolDecode, p.req.maxOut)
	d.tokens, d.generated = p.req.promptLen+1, 1
	d.partner, p.partner = p, d
	s.decodeR.route(d, now)
}

// reserveHandoff reserves blocks for the materialized prompt of d on its decode worker, with
// prefix reuse at the destination. False when the blocks are not free (FCFS: the queue waits).
func (w *worker) reserveHandoff(d *seq) bool {
	s := w.sim
	bs := w.args.blockSize
	prompt := d.req.promptLen
	ids := d.seqIDs(bs, s.tab)
	if len(ids) > prompt/bs {
		ids = ids[:prompt/bs]
	}
	m := w.kv.match(ids, len(ids))
	need := (prompt + bs - 1) / bs
	if need > w.args.numGPUBlocks {
		w.reject(d)
		if d.partner != nil && !s.destFirst {
			// the source still holds the prompt; release it with the rejected request
			p := d.partner
			p.w.kv.release(p.blocks)
			p.blocks = nil
		}
		return true
	}
	if need-w.kv.countActive(ids[:m]) > w.kv.free() {
		return false
	}
	w.waiting = w.waiting[1:]
	for _, h := range ids[:m] {
		d.blocks = append(d.blocks, w.kv.acquire(h))
	}
	w.ensureBlocks(d, prompt)
	d.reserved = true
	d.reused = m * bs
	w.reserved++
	s.col.destinationReserved(d.rec, s.now, d.reused)
	tokens := prompt
	if s.cfg.KVTransferTimingMode == "destination-missing" {
		tokens = prompt - d.reused
	}
	d.transferDelay = transferDelayMs(tokens, s.cfg.KVBytesPerToken, s.cfg.KVTransferBandwidth)
	if s.destFirst {
		p := d.partner
		s.prefillR.route(p, s.now)
		return true
	}
	s.push(s.now+d.transferDelay, evTransferDone, w, d)
	return true
}

// transferDelayMs = tokens × bytes/token / (GB/s × 1e9) × 1000; none without both inputs.
func transferDelayMs(tokens int, bytesPerToken *int, bandwidth *float64) float64 {
	if bytesPerToken == nil || bandwidth == nil || *bandwidth <= 0 {
		return 0
	}
	return float64(tokens) * float64(*bytesPerToken) / (*bandwidth * 1e9) * 1000
}

// activate completes the transfer: the destination admits d as already materialized (no
// prefill compute), the prefill token is delivered, and the source releases its KV.
func (s *sim) activate(d *seq) {
	now := s.now
	w := d.w
	w.reserved--
	d.reserved = false
	s.col.destinationActivated(d.rec, now)
	if p := d.partner; p != nil {
		p.w.kv.release(p.blocks)
		p.blocks = nil
		s.col.sourceReleased(d.rec, now)
	}
	before := d.computed / w.args.blockSize
	d.computed = d.req.promptLen
	d.everAdmit = true
	w.commitBlocks(d, before)
	s.col.admission(d, now, d.reused)
	s.col.token(d.rec, now)
	if d.generated >= d.maxOut {
		d.done = true
		w.kv.release(d.blocks)
		d.blocks = nil
		s.col.terminal(d.rec, now, "completed")
		w.router.free(d, now)
		return
	}
	w.running = append(w.running, d)
}
