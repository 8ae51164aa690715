package mocker

import (
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"strconv"

	"lukechampine.com/blake3"

	"kvparity/report"
)

// Router KV event kinds (the KvCacheEvent data of Dynamo's lib/kv-router).
const (
	kvStored uint8 = iota
	kvRemoved
	kvCleared
)

// A kvEvent is one router KV event of a worker, queued during a pass and delivered at its end.
type kvEvent struct {
	kind      uint8
	id        uint64
	hasParent bool
	parent    int32   // block id of the parent
	blocks    []int32 // Stored: block ids, parent first
	removed   []int32 // Removed: block ids
}

// stored queues a Stored event for q's blocks [start, end), parented on block start−1. Under
// leak-child-before-parent the blocks are first collected in a set (a Go map) and published
// one event per block in the set's iteration order, so a child can precede its parent.
func (w *worker) stored(q *seq, start, end int) {
	if w.sim.v.childBeforeParent && end-start > 1 {
		set := make(map[int]struct{}, end-start)
		for j := start; j < end; j++ {
			set[j] = struct{}{}
		}
		for j := range set {
			w.stored(q, j, j+1)
		}
		return
	}
	e := kvEvent{kind: kvStored, blocks: make([]int32, 0, end-start)}
	if start > 0 {
		e.hasParent, e.parent = true, q.ids[start-1]
	}
	e.blocks = append(e.blocks, q.ids[start:end]...)
	w.events = append(w.events, e)
}

// removedEvent queues an eviction; consecutive evictions of one pass share one event.
func (w *worker) removedEvent(id int32) {
	if n := len(w.events); n > 0 && w.events[n-1].kind == kvRemoved {
		w.events[n-1].removed = append(w.events[n-1].removed, id)
		return
	}
	w.events = append(w.events, kvEvent{kind: kvRemoved, removed: []int32{id}})
}

// pressureState is coverage.pressure.records[].state_before/after.
type pressureState struct {
	running      int
	waiting      int
	waitingKnown bool // null for SGLang
	activeBlocks int
}

type pressureRecord struct {
	ordinal          int
	atMs             float64
	pool             string
	workerID         int
	kind             string
	uuid             string
	before, after    pressureState
	requestBlocks    int
	logicalAvailable int // −1: null
	requiredBlocks   int // −1: null
	readmittedAt     float64
	readmitted       bool
}

type boundaryCount struct {
	batches, events int
	first, last     float64
}

// evidence is runtime_evidence: pressure records and the kv_ingest capture (the canonical record's
// runtime_evidence; aisimulate-core capture.rs).
type evidence struct {
	pressures   []pressureRecord
	preemptions int
	retractions int

	h          hash.Hash
	buf        []byte
	batches    int
	events     int
	blocks     int
	kinds      [3]int
	poolEvents [3]int           // by pool tag
	bounds     [5]boundaryCount // by boundary tag

	// live, when set, collects one progress-file line per pressure record and readmission as
	// they happen (the kvparity side channel); the progress writer flushes it.
	live    bool
	liveOut []byte
}

func newEvidence() *evidence {
	ev := &evidence{h: blake3.New(32, nil)}
	b := ev.buf[:0]
	b = binary.BigEndian.AppendUint64(b, uint64(len("dynamo.offline-kv-ingest")))
	b = append(b, "dynamo.offline-kv-ingest"...)
	b = binary.BigEndian.AppendUint32(b, 1)
	ev.h.Write(b)
	ev.buf = b[:0]
	return ev
}

func (ev *evidence) pressure(w *worker, q *seq, kind string, before, after pressureState, held, logical, required int) {
	o := len(ev.pressures)
	ev.pressures = append(ev.pressures, pressureRecord{
		ordinal: o, atMs: w.sim.now, pool: w.pool, workerID: w.id, kind: kind, uuid: q.rec.uuid,
		before: before, after: after, requestBlocks: held, logicalAvailable: logical, requiredBlocks: required,
	})
	if kind == "vllm_preemption" {
		ev.preemptions++
	} else {
		ev.retractions++
	}
	q.pressureOpen = append(q.pressureOpen, o)
	q.rec.pressure = append(q.rec.pressure, o)
	if ev.live {
		ev.liveOut = appendLivePressure(ev.liveOut, &ev.pressures[o])
	}
}

// appendLivePressure is the progress-file line of a pressure record when it happens:
// {"pressure":{"ordinal":…,"at_ms":…,"pool":…,"worker_id":…,"dp_rank":0,"kind":…,
// "request_uuid":…,"running_before":…,"active_blocks":…}}. Its readmission follows as
// {"readmitted":{"ordinal":…,"at_ms":…}}.
func appendLivePressure(b []byte, p *pressureRecord) []byte {
	b = append(b, `{"pressure":{"ordinal":`...)
	b = strconv.AppendInt(b, int64(p.ordinal), 10)
	b = append(b, `,"at_ms":`...)
	b = appendRustFloat(b, p.atMs)
	b = append(b, `,"pool":`...)
	b = report.AppendJSONString(b, p.pool)
	b = append(b, `,"worker_id":`...)
	b = strconv.AppendInt(b, int64(p.workerID), 10)
	b = append(b, `,"dp_rank":0,"kind":`...)
	b = report.AppendJSONString(b, p.kind)
	b = append(b, `,"request_uuid":`...)
	b = report.AppendJSONString(b, p.uuid)
	b = append(b, `,"running_before":`...)
	b = strconv.AppendInt(b, int64(p.before.running), 10)
	b = append(b, `,"active_blocks":`...)
	b = strconv.AppendInt(b, int64(p.before.activeBlocks), 10)
	return append(b, "}}\n"...)
}

func (ev *evidence) readmitted(ordinal int, at float64) {
	p := &ev.pressures[ordinal]
	if !p.readmitted {
		p.readmitted, p.readmittedAt = true, at
		if ev.live {
			b := append(ev.liveOut, `{"readmitted":{"ordinal":`...)
			b = strconv.AppendInt(b, int64(ordinal), 10)
			b = append(b, `,"at_ms":`...)
			b = appendRustFloat(b, at)
			ev.liveOut = append(b, "}}\n"...)
		}
	}
}

// ingest delivers w's queued router KV events at pass end: the router indexes them (prefill
// and aggregated pools; the decode router is overlap-blind) and the kv_ingest digest absorbs
// the batch.
func (s *sim) ingest(w *worker, now float64) { s.ingestAt(w, now, boundaryPassEnd) }

// ingestAt delivers w's queued events as one batch with the given boundary.
func (s *sim) ingestAt(w *worker, now float64, boundary uint8) {
	ev := s.ev
	if s.cfg.RouterMode == "kv-router" {
		if w.pool != poolDecode {
			for i := range w.events {
				w.router.apply(w.rw, &w.events[i])
			}
		}
		ev.batch(w, now, boundary)
	}
	for i := range w.events {
		w.events[i].blocks, w.events[i].removed = nil, nil
	}
	w.events = w.events[:0]
}

var poolTags = map[string]uint8{poolAgg: 0, poolPrefill: 1, poolDecode: 2}

// Boundary tags of kv_ingest batches (aisimulate-core capture.rs).
const (
	boundaryPassEnd         = 1
	boundaryWorkerLifecycle = 4
)

var boundaryNames = [5]string{"pass_start", "pass_end", "scheduler_command", "offload_tick", "worker_lifecycle"}

func (ev *evidence) batch(w *worker, now float64, boundary uint8) {
	tab := w.sim.tab
	at := now
	if at == 0 {
		at = 0 // −0 normalised to +0
	}
	b := ev.buf
	b = append(b, w.poolTag, boundary)
	b = binary.BigEndian.AppendUint64(b, uint64(ev.batches))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(at))
	b = binary.BigEndian.AppendUint64(b, uint64(len(w.events)))
	for i := range w.events {
		e := &w.events[i]
		w.eventID++
		e.id = w.eventID
		b = binary.BigEndian.AppendUint64(b, uint64(w.id))
		b = binary.BigEndian.AppendUint32(b, 0) // dp_rank
		b = append(b, 0)                        // tier device
		b = binary.BigEndian.AppendUint64(b, e.id)
		switch e.kind {
		case kvStored:
			b = append(b, 0)
			if e.hasParent {
				b = append(b, 1)
				b = binary.BigEndian.AppendUint64(b, tab.hash[e.parent])
			} else {
				b = append(b, 0)
			}
			b = append(b, 0) // no start_position
			b = binary.BigEndian.AppendUint64(b, uint64(len(e.blocks)))
			for _, id := range e.blocks {
				b = binary.BigEndian.AppendUint64(b, tab.hash[id])
				b = binary.BigEndian.AppendUint64(b, tab.local[id])
				b = append(b, 0) // no mm info
			}
			ev.blocks += len(e.blocks)
		case kvRemoved:
			b = append(b, 1)
			b = binary.BigEndian.AppendUint64(b, uint64(len(e.removed)))
			for _, id := range e.removed {
				b = binary.BigEndian.AppendUint64(b, tab.hash[id])
			}
			ev.blocks += len(e.removed)
		case kvCleared:
			b = append(b, 2)
		}
		ev.kinds[e.kind]++
	}
	// batches are buffered so the hasher sees large writes
	if len(b) >= 1<<15 {
		ev.h.Write(b)
		b = b[:0]
	}
	ev.buf = b
	bc := &ev.bounds[boundary]
	if bc.batches == 0 {
		bc.first = now
	}
	bc.last = now
	bc.batches++
	bc.events += len(w.events)
	ev.batches++
	ev.events += len(w.events)
	ev.poolEvents[w.poolTag] += len(w.events)
}

func (ev *evidence) digest() string {
	ev.h.Write(ev.buf)
	ev.buf = ev.buf[:0]
	return hex.EncodeToString(ev.h.Sum(nil))
}
