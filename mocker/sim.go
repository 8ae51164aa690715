package mocker

import (
	"math"
	"runtime"
	"time"
)

// Pool names as they appear in reports.
const (
	poolAgg     = "agg"
	poolPrefill = "prefill"
	poolDecode  = "decode"
)

// A seq is one request's life on one pool: in disaggregated serving a request has a prefill
// seq and a decode seq sharing the request and its record.
type seq struct {
	req  *request
	rec  *record
	pool string
	w    *worker

	tokens     int // known tokens: prompt plus generated
	computed   int // tokens whose KV is computed
	generated  int // output tokens emitted (disagg decode starts at 1, the prefill token)
	maxOut     int // tokens this pool generates before the seq ends
	blocks     []*block
	ids        []int32 // block ids of known full blocks, extended as output grows
	ownIDs     bool    // ids was copied from the request and may be extended
	prefilling bool
	everAdmit  bool
	done       bool

	// handoff (disaggregated)
	partner       *seq    // prefill seq ↔ decode seq
	reserved      bool    // decode: destination blocks reserved, waiting for the transfer
	reused        int     // decode: prefix tokens reused at the destination
	transferDelay float64 // decode: KV transfer time in ms

	// router bookkeeping
	rw         *routerWorker
	rPrefill   int
	rPrefillOn bool
	rBlocksOn  bool

	pressureOpen []int // pressure ordinals awaiting readmission
}

// An event on the virtual-time heap, ordered by (at, no).
type simEvent struct {
	at   float64
	no   uint64
	kind uint8
	w    *worker
	s    *seq
}

const (
	evPassEnd uint8 = iota
	evTransferDone
)

type eventHeap []simEvent

func (h eventHeap) less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].no < h[j].no
}

func (h *eventHeap) push(e simEvent) {
	*h = append(*h, e)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *eventHeap) pop() simEvent {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && a.less(r, l) {
			m = r
		}
		if !a.less(m, i) {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// sim is one replay: the clock, the event heap, the pools' workers and routers, the collector
// and the evidence capture.
type sim struct {
	cfg       *config
	v         variant
	wl        *workload
	now       float64
	nextNo    uint64
	heap      eventHeap
	nextArr   int
	disagg    bool
	destFirst bool // SGLang handoff order

	agg, prefill, decode    []*worker
	aggR, prefillR, decodeR *router

	scale     []scaleEvent
	nextScale int

	tab      *blockTable // the workload's prompt blocks plus this replay's output blocks
	col      *collector
	ev       *evidence
	progress func(vt float64, completed int)
	burn     uint64 // slowdown sink

	slowStart time.Time     // slowdown-PCT: when the replay loop started
	slowEnd   time.Time     // slowdown-PCT: when its final payment was reckoned (the budget's window end)
	slowBurnt time.Duration // this thread's CPU time spent on slowdown work so far
	readyBuf  []*worker
	loops     int
}

func (s *sim) push(at float64, kind uint8, w *worker, q *seq) {
	s.nextNo++
	s.heap.push(simEvent{at: at, no: s.nextNo, kind: kind, w: w, s: q})
}

// run is the replay loop (Dynamo's lib/mocker/src/replay/offline/agg.rs): take the next timestamp
// (arrival or heap top), advance the clock, and drain that timestamp until nothing changes.
func (s *sim) run() {
	reqs := s.wl.requests
	lastProgress := time.Now()
	s.slowdown(false)
	defer s.slowdown(true)
	for {
		next := math.Inf(1)
		if s.nextArr < len(reqs) {
			next = reqs[s.nextArr].arrival
		}
		if len(s.heap) > 0 && s.heap[0].at < next {
			next = s.heap[0].at
		}
		if s.nextScale < len(s.scale) && s.scale[s.nextScale].AtMs < next {
			next = s.scale[s.nextScale].AtMs
		}
		if math.IsInf(next, 1) {
			break
		}
		if next > s.now {
			s.now = next
		}
		s.drain()
		s.loops++
		if s.loops&255 == 0 {
			s.slowdown(false)
		}
		if s.progress != nil && s.loops&255 == 0 {
			if t := time.Now(); t.Sub(lastProgress) >= 100*time.Millisecond {
				lastProgress = t
				s.progress(s.now, s.col.completed)
			}
		}
	}
}

func (s *sim) drain() {
	for {
		changed := false
		// (1) completions and transfers at now, in heap order
		for len(s.heap) > 0 && s.heap[0].at <= s.now {
			e := s.heap.pop()
			switch e.kind {
			case evPassEnd:
				s.finishPass(e.w)
			case evTransferDone:
				s.activate(e.s)
			}
			changed = true
		}
		// (2) scaling ticks
		for s.nextScale < len(s.scale) && s.scale[s.nextScale].AtMs <= s.now {
			s.applyScale(s.scale[s.nextScale])
			s.nextScale++
			changed = true
		}
		// (3) arrivals at now, routed immediately
		reqs := s.wl.requests
		for s.nextArr < len(reqs) && reqs[s.nextArr].arrival <= s.now {
			s.arrive(reqs[s.nextArr])
			s.nextArr++
			changed = true
		}
		// (4) idle workers with work start a pass
		if s.driveReadyWorkers() {
			changed = true
		}
		if !changed {
			return
		}
	}
}

// driveReadyWorkers starts a pass on every idle worker with work, in worker order (pools in
// order agg, prefill, decode). Under leak-executor-order the start order is whatever order
// goroutines get scheduled in, which is what made Dynamo's same-timestamp work intermittent.
func (s *sim) driveReadyWorkers() bool {
	ready := s.readyBuf[:0]
	for _, pool := range [][]*worker{s.agg, s.prefill, s.decode} {
		for _, w := range pool {
			if !w.busy && w.hasWork() {
				ready = append(ready, w)
			}
		}
	}
	s.readyBuf = ready
	if len(ready) == 0 {
		return false
	}
	if s.v.executorOrder {
		ready = s.executorStarts(ready)
	}
	changed := false
	for _, w := range ready {
		if w.startPass() {
			changed = true
		}
	}
	return changed
}

// reservationQuantumMs is the wait of a pass whose reservation was overtaken: seed 000's
// exact 0.123076 ms increments.
const reservationQuantumMs = 0.123076

// executorStarts is leak-executor-order's pass starts at one timestamp, as an executor
// reserving their transfers in task order would make them (seed 000): the workers' tasks run
// as goroutines, and a worker whose task a later-spawned one overtook (relative to the order
// a serialized executor gives, newest first then spawn order) starts its pass one reservation
// quantum later per overtaking task. Serialized (one CPU, one P) the order never changes and
// the output is the baseline's; when tasks run in parallel, reservations reorder from batch to
// batch and the timestamps shift by exact quanta.
func (s *sim) executorStarts(ready []*worker) []*worker {
	n := len(ready)
	if n < 2 {
		return ready
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	got := executorOrder(idx)
	serial := func(i int) int { return (i + 1) % n } // position under one P: newest first
	for p, i := range got {
		overtaken := 0
		for _, j := range got[:p] {
			if serial(j) > serial(i) {
				overtaken++
			}
		}
		ready[i].lag = float64(overtaken) * reservationQuantumMs
	}
	out := make([]*worker, n)
	for p, i := range got {
		out[p] = ready[i]
	}
	return out
}

// executorOrder returns items in the order an executor's tasks report back. With one worker
// thread (GOMAXPROCS=1: one CPU, as the protocol pins repetitions) the executor runs its
// tasks in a fixed order, like a current-thread runtime: the newest first, then the rest in
// spawn order (what Go's scheduler does with one P, minus its rare preemption-induced
// exceptions). With more, each item is a task run as a goroutine; idle Ps steal tasks and
// run them in parallel, and the completion order changes from batch to batch, which is what
// made Dynamo's same-timestamp work intermittent.
func executorOrder[T any](items []T) []T {
	n := len(items)
	if n < 2 {
		return items
	}
	if runtime.GOMAXPROCS(0) == 1 {
		out := make([]T, 0, n)
		out = append(out, items[n-1])
		return append(out, items[:n-1]...)
	}
	ch := make(chan T, n)
	for _, it := range items {
		go func(it T) { ch <- it }(it)
	}
	out := make([]T, 0, n)
	for range items {
		out = append(out, <-ch)
	}
	return out
}

func (s *sim) applyScale(ev scaleEvent) {
	for i, w := range s.agg {
		w.live = i < ev.Workers
		if w.live {
			w.retired = false
		} else {
			s.retireIfDrained(w)
		}
	}
	s.col.scaleTo(s.now, ev.Workers)
	s.aggR.drainQueue(s.now)
}

// arrive routes a new request (agg.rs's arrival step).
func (s *sim) arrive(r *request) {
	rec := s.col.newRecord(r)
	if !s.disagg {
		q := s.newSeq(r, rec, poolAgg, r.maxOut)
		s.aggR.route(q, s.now)
		return
	}
	if s.destFirst {
		// SGLang: the destination is chosen and reserved before the source prefills.
		d := s.newSeq(r, rec, poolDecode, r.maxOut)
		d.tokens, d.generated = r.promptLen+1, 1
		p := s.newSeq(r, rec, poolPrefill, 1)
		d.partner, p.partner = p, d
		s.decodeR.route(d, s.now)
		return
	}
	p := s.newSeq(r, rec, poolPrefill, 1)
	s.prefillR.route(p, s.now)
}

func (s *sim) newSeq(r *request, rec *record, pool string, maxOut int) *seq {
	return &seq{req: r, rec: rec, pool: pool, tokens: r.promptLen, maxOut: maxOut, ids: r.ids}
}

// seqIDs extends q's full-block ids to cover its known tokens. Generated tokens are
// synthesized per request, so blocks past the prompt get request-unique local hashes.
func (q *seq) seqIDs(bs int, tab *blockTable) []int32 {
	full := q.tokens / bs
	for len(q.ids) < full {
		n := len(q.ids)
		if !q.ownIDs {
			// copy-on-extend so the request's prompt ids stay shared and untouched
			ids := make([]int32, n, n+16)
			copy(ids, q.ids)
			q.ids, q.ownIDs = ids, true
		}
		local := outputLocalHash(q.req.ord, n)
		hash := local
		if n > 0 {
			hash = chainHash(tab.hash[q.ids[n-1]], local)
		}
		q.ids = append(q.ids, tab.add(hash, local))
	}
	return q.ids[:full]
}

// retireIfDrained stops a scaled-down worker once it holds no work: its G1 cache is dropped
// and a Cleared event goes to the router (boundary worker_lifecycle), so a later scale-up
// starts from an empty worker.
func (s *sim) retireIfDrained(w *worker) {
	if w.live || w.retired || w.busy || w.hasWork() || w.reserved > 0 {
		return
	}
	w.retired = true
	w.kv.clearInactive()
	w.events = append(w.events, kvEvent{kind: kvCleared})
	s.ingestAt(w, s.now, boundaryWorkerLifecycle)
}
