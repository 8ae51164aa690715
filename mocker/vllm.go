package mocker

// startVLLM plans one vLLM (or TRT-LLM) pass (Dynamo's lib/mocker vLLM scheduler): running requests
// first, in order, each taking min(remaining known tokens, budget); allocation failure preempts
// (LIFO by default, FIFO under fifo-preemption); then, if nothing was preempted, FCFS admission
// from waiting with head-of-line blocking. It returns whether any state changed.
func (w *worker) startVLLM() bool {
	a := w.args
	trt := a.engineType == "trtllm"
	budget := a.maxBatched
	w.plan = w.plan[:0]
	changed := false
	preempted := false
	for i := 0; i < len(w.running) && budget > 0; i++ {
		q := w.running[i]
		n := min(q.tokens-q.computed, budget)
		if n <= 0 {
			continue
		}
		skip := false
		for !w.ensureBlocks(q, q.computed+n) {
			if trt {
				// guaranteed-no-evict reserved this request's blocks at admission; running
				// out here would be an invariant violation, so the request just waits a pass.
				skip = true
				break
			}
			vi := len(w.running) - 1
			if a.fifo || w.sim.v.fifoPreemption {
				vi = 0
			}
			victim := w.running[vi]
			budget += w.preempt(victim)
			preempted, changed = true, true
			if victim == q {
				i--
				skip = true
				break
			}
			if vi < i {
				i--
			}
		}
		if skip {
			continue
		}
		w.plan = append(w.plan, planItem{q: q, n: n, prefill: q.prefilling})
		budget -= n
	}
	if !preempted {
		for len(w.waiting) > 0 && len(w.running)+w.reserved < a.maxNumSeqs && budget > 0 {
			q := w.waiting[0]
			if q.pool == poolDecode && !q.everAdmit && !q.reserved {
				if !w.reserveHandoff(q) {
					break
				}
				changed = true
				continue
			}
			known, needed := w.admissionNeed(q)
			if trt {
				known, needed = w.trtllmNeed(q)
			}
			if !q.everAdmit && known > a.numGPUBlocks {
				w.reject(q)
				changed = true
				continue
			}
			if needed > w.kv.free() {
				break // FCFS: the head waits and so does everyone behind it
			}
			w.admit(q)
			changed = true
			n := min(q.tokens-q.computed, budget)
			if !w.ensureBlocks(q, q.computed+n) {
				break // cannot happen after the admission test; keep the request running
			}
			w.plan = append(w.plan, planItem{q: q, n: n, prefill: true})
			budget -= n
		}
	}
	return w.launch() || changed
}

// trtllmNeed is TRT-LLM's guaranteed-no-evict test: blocks to completion of every running
// request plus this one must fit.
func (w *worker) trtllmNeed(q *seq) (toCompletion, needed int) {
	bs := w.args.blockSize
	committed := 0
	for _, r := range w.running {
		committed += (r.tokens+r.maxOut-r.generated+bs-1)/bs - len(r.blocks)
	}
	toCompletion = (q.tokens + q.maxOut - q.generated + bs - 1) / bs
	_, vneed := w.admissionNeed(q)
	known := (q.tokens + bs - 1) / bs
	return toCompletion, vneed + (toCompletion - known) + committed
}

// preempt evicts victim (vLLM preemption), refunds its work in the pass being planned, and
// records a pressure event. It returns the refunded token budget.
func (w *worker) preempt(victim *seq) int {
	before := pressureState{running: len(w.running), waiting: len(w.waiting), waitingKnown: true, activeBlocks: w.kv.active()}
	held := len(victim.blocks)
	refund := 0
	for i, it := range w.plan {
		if it.q == victim {
			refund = it.n
			w.plan = append(w.plan[:i], w.plan[i+1:]...)
			break
		}
	}
	w.evict(victim)
	after := pressureState{running: len(w.running), waiting: len(w.waiting), waitingKnown: true, activeBlocks: w.kv.active()}
	w.sim.ev.pressure(w, victim, "vllm_preemption", before, after, held, -1, -1)
	return refund
}
