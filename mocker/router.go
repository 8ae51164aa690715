package mocker

import (
	"math"
	"sort"
)

// routerConfig is the effective KvRouterConfig of one pool (Dynamo's lib/kv-router scheduling
// selector).
type routerConfig struct {
	overlapCredit     float64
	prefillLoadScale  float64
	temperature       float64
	trackActiveBlocks bool
	trackPrefill      bool
	assumeReuse       bool
	queueThreshold    *float64
}

// routerWorker is the router's view of one worker: the blocks its KV events made visible
// (parent-checked, like the radix indexer) and its active sequences.
type routerWorker struct {
	w             *worker
	indexed       []bool  // by block id
	activeBlocks  []int32 // by block id: active sequences referencing the block
	activeDecode  int     // distinct active blocks (shared prefixes counted once, private tails each)
	activePrefill int     // prefill tokens of requests whose first token has not come out
	dropped       int     // Stored events dropped because their parent was not indexed
}

// A router places a pool's requests: the KV-overlap cost with seeded tie-breaking over
// candidates sorted by (worker_id, dp_rank), or round-robin; with --router-queue-threshold it
// queues while every worker is busy.
type router struct {
	sim        *sim
	pool       string
	kvAware    bool
	cfg        routerConfig
	workers    []*routerWorker // candidate order: worker_id, dp_rank 0
	byID       map[int]*routerWorker
	rng        wyrand
	rr         int
	queue      []*seq
	maxBatched int
	costs      []float64
}

func newRouter(s *sim, pool string, ws []*worker, kvAware bool, cfg routerConfig) *router {
	r := &router{sim: s, pool: pool, kvAware: kvAware, cfg: cfg, rng: wyrand{s: selectorSeed}, byID: map[int]*routerWorker{}}
	if s.v.unseededTimed && s.cfg.CanonicalJSONL == "" {
		r.rng.s = entropySeed()
	}
	for _, w := range ws {
		n := cap(s.tab.hash)
		rw := &routerWorker{w: w, indexed: make([]bool, n), activeBlocks: make([]int32, len(s.tab.hash))}
		r.workers = append(r.workers, rw)
		r.byID[w.id] = rw
		w.router, w.rw = r, rw
		r.maxBatched = w.args.maxBatched
	}
	sort.Slice(r.workers, func(i, j int) bool { return r.workers[i].w.id < r.workers[j].w.id })
	return r
}

func (r *router) busy(rw *routerWorker) bool {
	t := r.cfg.queueThreshold
	return t != nil && float64(rw.activePrefill) > *t*float64(r.maxBatched)
}

// blocked reports whether a new request must wait: no live worker, or (queueing enabled)
// every live worker busy.
func (r *router) blocked() bool {
	for _, rw := range r.workers {
		if rw.w.live && !r.busy(rw) {
			return false
		}
	}
	return true
}

// route places q now, or queues it (the selector and its queue).
func (r *router) route(q *seq, now float64) {
	if len(r.queue) > 0 || r.blocked() {
		r.queue = append(r.queue, q)
		r.sim.col.queued(q, now)
		return
	}
	r.dispatch(q, now, false)
}

// drainQueue releases queued requests, oldest first (fcfs), while some worker can take work.
func (r *router) drainQueue(now float64) {
	for len(r.queue) > 0 && !r.blocked() {
		q := r.queue[0]
		r.queue[0] = nil
		r.queue = r.queue[1:]
		r.dispatch(q, now, true)
	}
}

func (r *router) dispatch(q *seq, now float64, released bool) {
	rw, overlap := r.selectWorker(q)
	w := rw.w
	q.w, q.rw = w, rw
	bs := w.args.blockSize
	r.sim.col.routed(q, now, w.id, overlap*bs, released)
	// bookkeeping (ActiveSequences): prefill tokens until the first token, blocks until terminal
	if r.cfg.trackPrefill {
		q.rPrefill = q.req.promptLen
		if r.cfg.assumeReuse {
			q.rPrefill -= overlap * bs
		}
		rw.activePrefill += q.rPrefill
		q.rPrefillOn = true
	}
	if r.cfg.trackActiveBlocks {
		for _, id := range q.req.ids {
			if rw.activeBlocks[id]++; rw.activeBlocks[id] == 1 {
				rw.activeDecode++
			}
		}
		if q.req.promptLen%bs != 0 {
			rw.activeDecode++ // the private partial tail block
		}
		q.rBlocksOn = true
	}
	w.waiting = append(w.waiting, q)
}

// selectWorker returns the chosen worker and q's overlap (in blocks) there.
func (r *router) selectWorker(q *seq) (*routerWorker, int) {
	cands := r.workers
	if r.sim.v.unsortedCandidates {
		// the leak: candidates in map iteration order, so seeded tie-breaks see a
		// different order in every process
		cands = make([]*routerWorker, 0, len(r.byID))
		for _, rw := range r.byID {
			cands = append(cands, rw)
		}
	}
	if !r.kvAware {
		for {
			rw := r.workers[r.rr%len(r.workers)]
			r.rr++
			if rw.w.live {
				return rw, 0
			}
		}
	}
	bs := float64(r.workers[0].w.args.blockSize)
	isl := float64(q.req.promptLen)
	best, bestOverlap := (*routerWorker)(nil), 0
	bestCost, ties := math.Inf(1), 0
	costs := r.costs[:0]
	overlaps := make([]int, 0, len(cands))
	live := make([]*routerWorker, 0, len(cands))
	for _, rw := range cands {
		if !rw.w.live {
			continue
		}
		overlap := 0
		if r.cfg.overlapCredit > 0 {
			for _, id := range q.req.ids {
				if !rw.indexed[id] {
					break
				}
				overlap++
			}
		}
		prefill := 0.0
		if r.cfg.trackPrefill {
			prefill = float64(rw.activePrefill)
		}
		raw := (prefill + isl) / bs
		cost := r.cfg.prefillLoadScale * math.Max(0, raw-r.cfg.overlapCredit*float64(overlap))
		if r.cfg.trackActiveBlocks {
			add := 0
			for _, id := range q.req.ids {
				if rw.activeBlocks[id] == 0 {
					add++
				}
			}
			if q.req.promptLen%int(bs) != 0 {
				add++
			}
			cost += float64(rw.activeDecode + add)
		}
		costs = append(costs, cost)
		overlaps = append(overlaps, overlap)
		live = append(live, rw)
	}
	r.costs = costs
	if r.cfg.temperature > 0 {
		i := softmaxSample(costs, r.cfg.temperature, &r.rng)
		return live[i], overlaps[i]
	}
	for i, c := range costs {
		switch {
		case c < bestCost:
			best, bestOverlap, bestCost, ties = live[i], overlaps[i], c, 1
		case c == bestCost:
			// reservoir sampling over equal costs with the router's own seeded RNG
			ties++
			if r.rng.below(uint64(ties)) == 0 {
				best, bestOverlap = live[i], overlaps[i]
			}
		}
	}
	return best, bestOverlap
}

// softmaxSample picks i with p_i ∝ exp(−(c_i − c_min)/((c_max − c_min)·T)), uniform when all
// costs are equal, taking the first i whose cumulative probability reaches rng.f64().
func softmaxSample(costs []float64, temperature float64, rng *wyrand) int {
	lo, hi := costs[0], costs[0]
	for _, c := range costs {
		lo, hi = math.Min(lo, c), math.Max(hi, c)
	}
	ps := make([]float64, len(costs))
	sum := 0.0
	for i, c := range costs {
		p := 1.0
		if hi > lo {
			p = math.Exp(-(c - lo) / ((hi - lo) * temperature))
		}
		ps[i] = p
		sum += p
	}
	x := rng.f64()
	acc := 0.0
	for i, p := range ps {
		acc += p / sum
		if acc >= x {
			return i
		}
	}
	return len(costs) - 1
}

// prefillComplete stops counting q's prefill tokens (its first token came out); a worker that
// stops being busy may release queued requests.
func (r *router) prefillComplete(q *seq, now float64) {
	if !q.rPrefillOn {
		return
	}
	q.rPrefillOn = false
	q.rw.activePrefill -= q.rPrefill
	if len(r.queue) > 0 {
		r.drainQueue(now)
	}
}

// free ends q's bookkeeping at its terminal state.
func (r *router) free(q *seq, now float64) {
	rw := q.rw
	if rw == nil {
		return
	}
	if q.rPrefillOn {
		q.rPrefillOn = false
		rw.activePrefill -= q.rPrefill
	}
	if q.rBlocksOn {
		q.rBlocksOn = false
		bs := rw.w.args.blockSize
		for _, id := range q.req.ids {
			if rw.activeBlocks[id]--; rw.activeBlocks[id] == 0 {
				rw.activeDecode--
			}
		}
		if q.req.promptLen%bs != 0 {
			rw.activeDecode--
		}
	}
	q.rw = nil
	if len(r.queue) > 0 {
		r.drainQueue(now)
	}
}

// apply ingests one worker's router KV event into the indexer. A Stored group whose parent is
// not indexed is dropped, as the radix indexer drops children of unknown parents.
func (r *router) apply(rw *routerWorker, e *kvEvent) {
	switch e.kind {
	case kvStored:
		if e.hasParent && !rw.isIndexed(e.parent) {
			rw.dropped++
			return
		}
		for _, id := range e.blocks {
			for int(id) >= len(rw.indexed) {
				rw.indexed = append(rw.indexed, false)
			}
			rw.indexed[id] = true
		}
	case kvRemoved:
		for _, id := range e.removed {
			rw.indexed[id] = false
		}
	case kvCleared:
		clear(rw.indexed)
	}
}

func (rw *routerWorker) isIndexed(id int32) bool { return int(id) < len(rw.indexed) && rw.indexed[id] }
