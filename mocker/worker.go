package mocker

// engineArgs is one pool's MockEngineArgs after normalisation (Dynamo's
// lib/mocker/src/common/protocols.rs).
type engineArgs struct {
	engineType    string
	numGPUBlocks  int
	blockSize     int
	maxNumSeqs    int
	maxBatched    int
	speedup       float64
	decodeSpeedup float64
	workerType    string // aggregated | prefill | decode
	fifo          bool   // preemption_mode fifo

	// SGLang scheduler constants (Dynamo's lib/mocker SGLang backend)
	maxPrefillTokens int
	chunkedPrefill   int
	clipMaxNew       int
	initRatio        float64
	minRatio         float64
	decayStep        float64
}

// prefillMs is the polynomial prefill model: batch × (isl − prefix) new tokens.
func (a *engineArgs) prefillMs(batch, meanISL, meanPrefix int) float64 {
	if batch == 0 || meanISL <= meanPrefix {
		return 0
	}
	t := float64(batch * (meanISL - meanPrefix))
	ms := 4.209989e-07*t*t + 1.518344e-02*t + 1.650142e+01
	if ms < 0 {
		ms = 0
	}
	if a.speedup > 0 {
		ms /= a.speedup
	}
	return ms
}

// decodeMs is the polynomial decode model over KV occupancy, floored at 1 ms before scaling.
func (a *engineArgs) decodeMs(activeKVTokens int) float64 {
	total := a.numGPUBlocks * a.blockSize
	p := 1.0
	if total > 0 {
		p = float64(activeKVTokens) / float64(total)
		if p > 1 {
			p = 1
		}
	}
	ms := -25.74*p*p + 54.01*p + 5.74
	if ms < 1 {
		ms = 1
	}
	if r := a.speedup * a.decodeSpeedup; r > 0 {
		ms /= r
	}
	return ms
}

type planItem struct {
	q       *seq
	n       int
	prefill bool
}

// A worker is one mock engine (dp_rank 0) of a pool.
type worker struct {
	sim      *sim
	id       int
	pool     string
	poolTag  uint8
	args     *engineArgs
	kv       *kvPool
	running  []*seq
	waiting  []*seq
	reserved int // decode: handoff reservations waiting for their transfer
	busy     bool
	live     bool
	retired  bool // scaled down and drained: cache cleared
	plan     []planItem
	events   []kvEvent // router KV events of the pass in flight, delivered at pass end
	eventID  uint64
	lag      float64 // leak-executor-order: this pass's reservation wait (ms)
	ratio    float64 // SGLang new_token_ratio
	chunked  *seq    // SGLang: the request whose prefill continues next pass
	router   *router
	rw       *routerWorker // this worker in its router
}

func (w *worker) hasWork() bool {
	return len(w.running) > 0 || len(w.waiting) > 0
}

func (w *worker) startPass() bool {
	if w.args.engineType == "sglang" {
		return w.startSGLang()
	}
	return w.startVLLM()
}

// ensureBlocks allocates blocks so q holds KV for upTo tokens; false when the pool is out of
// blocks (the blocks allocated so far stay with q).
func (w *worker) ensureBlocks(q *seq, upTo int) bool {
	bs := w.args.blockSize
	need := (upTo + bs - 1) / bs
	if cap(q.blocks) < need {
		// size for the whole request once, instead of growing block by block
		nb := make([]*block, len(q.blocks), max(need, (q.req.promptLen+q.req.maxOut)/bs+2))
		copy(nb, q.blocks)
		q.blocks = nb
	}
	for len(q.blocks) < need {
		b := w.kv.allocate()
		if b == nil {
			return false
		}
		q.blocks = append(q.blocks, b)
	}
	return true
}

// admitPrefix references q's longest cached prefix (the last token is always recomputed) and
// returns the reused token count.
func (w *worker) admitPrefix(q *seq) int {
	bs := w.args.blockSize
	ids := q.seqIDs(bs, w.sim.tab)
	m := w.kv.match(ids, (q.tokens-1)/bs)
	for _, h := range ids[:m] {
		q.blocks = append(q.blocks, w.kv.acquire(h))
	}
	return m * bs
}

// admissionNeed is the vLLM admission test: blocks the request still needs beyond prefix
// blocks already active on this worker.
func (w *worker) admissionNeed(q *seq) (known, needed int) {
	bs := w.args.blockSize
	known = (q.tokens + bs - 1) / bs
	ids := q.seqIDs(bs, w.sim.tab)
	m := w.kv.match(ids, (q.tokens-1)/bs)
	return known, known - w.kv.countActive(ids[:m])
}

// reject ends a request that can never fit this worker.
func (w *worker) reject(q *seq) {
	w.waiting = w.waiting[1:]
	q.done = true
	w.sim.col.terminal(q.rec, w.sim.now, "rejected")
	w.router.free(q, w.sim.now)
	if d := q.partner; d != nil && q.pool == poolPrefill && d.reserved {
		// destination-first: the reservation made for this request is given back
		d.reserved, d.done = false, true
		d.w.reserved--
		d.w.kv.release(d.blocks)
		d.blocks = nil
		d.w.router.free(d, w.sim.now)
	}
}

func (w *worker) admit(q *seq) {
	now := w.sim.now
	w.waiting = w.waiting[1:]
	reused := w.admitPrefix(q)
	q.computed = reused
	q.prefilling = true
	q.everAdmit = true
	w.running = append(w.running, q)
	w.sim.col.admission(q, now, reused)
	for _, o := range q.pressureOpen {
		w.sim.ev.readmitted(o, now)
	}
	q.pressureOpen = q.pressureOpen[:0]
}

func (w *worker) removeRunning(q *seq) int {
	for i, r := range w.running {
		if r == q {
			copy(w.running[i:], w.running[i+1:])
			w.running = w.running[:len(w.running)-1]
			return i
		}
	}
	return -1
}

// evict resets q after a preemption or retraction: KV released (full blocks stay cached),
// computed reset, back at the front of the waiting queue.
func (w *worker) evict(q *seq) {
	w.kv.release(q.blocks)
	q.blocks = q.blocks[:0]
	q.computed = 0
	q.prefilling = false
	w.removeRunning(q)
	w.waiting = append(w.waiting, nil)
	copy(w.waiting[1:], w.waiting)
	w.waiting[0] = q
	if w.chunked == q {
		w.chunked = nil
	}
}

// launch turns the pass plan into a completion event, timed the same way for every engine:
// prefill cost from the prefilling items' mean ISL and prefix, decode cost from the total
// length of the items that will emit a token. It returns false, launching nothing, for an
// empty plan.
func (w *worker) launch() bool {
	if len(w.plan) == 0 {
		return false
	}
	a := w.args
	var nPre, sumISL, sumPrefix, nReady, sumLen int
	for _, it := range w.plan {
		q := it.q
		if it.prefill {
			nPre++
			sumISL += q.computed + it.n
			sumPrefix += q.computed
		}
		if q.computed+it.n == q.tokens {
			nReady++
			sumLen += q.tokens
		}
	}
	var prefillMs, decodeMs float64
	if nPre > 0 {
		prefillMs = a.prefillMs(nPre, sumISL/nPre, sumPrefix/nPre)
	}
	if nReady > 0 {
		decodeMs = a.decodeMs(sumLen)
	}
	if w.pool == poolDecode {
		prefillMs = 0
	}
	if w.pool == poolPrefill {
		decodeMs = 0
	}
	w.busy = true
	w.sim.push(w.sim.now+prefillMs+decodeMs+w.lag, evPassEnd, w, nil)
	w.lag = 0
	return true
}

// finishPass applies a pass completion (agg.rs): computed KV advances and full blocks get
// their identity (Stored events), the pass's router KV events are ingested (boundary
// pass_end), then output signals are processed in plan order and tokens stamped at now.
func (s *sim) finishPass(w *worker) {
	now := s.now
	bs := w.args.blockSize
	w.busy = false
	for _, it := range w.plan {
		q := it.q
		before := q.computed / bs
		q.computed += it.n
		w.commitBlocks(q, before)
	}
	s.ingest(w, now)
	anyDone := false
	for _, it := range w.plan {
		q := it.q
		if q.computed != q.tokens || q.done || q.w != w {
			continue
		}
		if q.prefilling {
			q.prefilling = false
			if w.chunked == q {
				w.chunked = nil
			}
		}
		q.generated++
		q.tokens++
		if q.pool != poolPrefill {
			s.col.token(q.rec, now)
		}
		if q.rPrefillOn {
			// the first output token marks prefill completed in the router, once
			w.router.prefillComplete(q, now)
		}
		if q.generated >= q.maxOut {
			q.done = true
			anyDone = true
			if q.pool == poolPrefill {
				s.handoff(q)
				continue
			}
			w.kv.release(q.blocks)
			q.blocks = nil
			s.col.terminal(q.rec, now, "completed")
			w.router.free(q, now)
		}
	}
	if anyDone {
		kept := w.running[:0]
		for _, q := range w.running {
			if !q.done {
				kept = append(kept, q)
			}
		}
		for i := len(kept); i < len(w.running); i++ {
			w.running[i] = nil
		}
		w.running = kept
	}
	w.plan = w.plan[:0]
	if !w.live {
		s.retireIfDrained(w)
	}
	if w.args.engineType == "sglang" {
		w.ratio -= w.args.decayStep
		if w.ratio < w.args.minRatio {
			w.ratio = w.args.minRatio
		}
	}
}

// commitBlocks gives q's newly full blocks their identity and queues Stored events, grouping
// consecutive new blocks under their parent's hash (the router's KvCacheEvent Stored).
func (w *worker) commitBlocks(q *seq, from int) {
	bs := w.args.blockSize
	full := q.computed / bs
	if full <= from {
		return
	}
	ids := q.seqIDs(bs, w.sim.tab)
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w.stored(q, start, end)
		start = -1
	}
	for j := from; j < full && j < len(q.blocks); j++ {
		if w.kv.commit(q.blocks[j], ids[j]) {
			if start < 0 {
				start = j
			}
		} else {
			flush(j)
		}
	}
	flush(min(full, len(q.blocks)))
}
