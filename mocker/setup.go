package mocker

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// poolArgs normalises MockEngineArgs for one pool (the defaults of Dynamo's
// lib/mocker/src/common/protocols.rs).
func poolArgs(c *config, workerType string) *engineArgs {
	a := &engineArgs{
		engineType:    c.EngineType,
		numGPUBlocks:  16384,
		blockSize:     c.BlockSize,
		maxNumSeqs:    256,
		maxBatched:    8192,
		speedup:       1.0,
		decodeSpeedup: 1.0,
		workerType:    workerType,
	}
	if c.NumGPUBlocks != nil {
		a.numGPUBlocks = *c.NumGPUBlocks
	}
	if c.MaxNumSeqs != nil {
		a.maxNumSeqs = *c.MaxNumSeqs
	}
	if c.MaxNumBatchedTokens != nil {
		a.maxBatched = *c.MaxNumBatchedTokens
	}
	if c.SpeedupRatio != nil {
		a.speedup = *c.SpeedupRatio
	}
	if c.DecodeSpeedupRatio != nil {
		a.decodeSpeedup = *c.DecodeSpeedupRatio
	}
	if c.EngineType == "sglang" {
		a.maxPrefillTokens = 16384
		a.chunkedPrefill = 8192
		a.clipMaxNew = 4096
		a.initRatio = 0.7 * 1.0 // schedule_conservativeness 1.0
		a.minRatio = a.initRatio * 0.14
		a.decayStep = (a.initRatio - a.minRatio) / 600
	}
	return a
}

// newSim prepares a replay of wl: workers, routers, collector and evidence capture. It is the
// "engine/runtime preparation" that precedes the timed loop.
func newSim(c *config, v variant, wl *workload) *sim {
	s := &sim{cfg: c, v: v, wl: wl, disagg: c.ServingMode == "disagg", destFirst: c.EngineType == "sglang"}
	n := len(wl.blocks.hash)
	// full slice expressions: this replay's output blocks are appended to a copy, never to
	// the shared workload
	// sized for every output block up front, so the hot path never regrows per-block state
	capIDs := n + wl.outBlocks
	s.tab = &blockTable{hash: make([]uint64, n, capIDs), local: make([]uint64, n, capIDs)}
	copy(s.tab.hash, wl.blocks.hash)
	copy(s.tab.local, wl.blocks.local)
	s.ev = newEvidence()
	kvAware := c.RouterMode == "kv-router"
	mk := func(pool, workerType string, n int) []*worker {
		a := poolArgs(c, workerType)
		ws := make([]*worker, n)
		for i := range ws {
			w := &worker{sim: s, id: i, pool: pool, args: a, live: true, ratio: a.initRatio}
			w.poolTag = poolTags[pool]
			if kvAware {
				w.kv = newKVPool(a.numGPUBlocks, capIDs, w.removedEvent)
			} else {
				w.kv = newKVPool(a.numGPUBlocks, capIDs, nil)
			}
			ws[i] = w
		}
		return ws
	}
	base := routerConfig{overlapCredit: 1, prefillLoadScale: 1, trackActiveBlocks: true, trackPrefill: true, assumeReuse: true, queueThreshold: c.RouterQueueThreshold}
	workers := c.NumWorkers
	if s.disagg {
		s.prefill = mk(poolPrefill, "prefill", c.NumPrefillWorkers)
		s.decode = mk(poolDecode, "decode", c.NumDecodeWorkers)
		pc := base
		pc.trackActiveBlocks = false
		dc := base
		dc.overlapCredit, dc.assumeReuse, dc.trackPrefill = 0, false, false
		s.prefillR = newRouter(s, poolPrefill, s.prefill, kvAware, pc)
		s.decodeR = newRouter(s, poolDecode, s.decode, kvAware, dc)
	} else {
		s.agg = mk(poolAgg, "aggregated", c.NumWorkers)
		s.aggR = newRouter(s, poolAgg, s.agg, kvAware, base)
		s.scale = c.ScaleEvents
	}
	s.col = newCollector(len(wl.requests), s.disagg, workers)
	if v.randomUUID {
		s.col.uuid = randomUUID
	}
	return s
}

// randomUUID is the leak-random-uuid variant's v4 uuid from the OS entropy source.
func randomUUID(int) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func wallclockNanos() int64 { return time.Now().UnixNano() }

// entropySeed is the unseeded-timed variant's selector seed from the OS entropy source.
func entropySeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// slowdownChunk is the mixing rounds of one slice of slowdown work (tens of microseconds).
const slowdownChunk = 1 << 13

// slowdown is the slowdown-PCT variant's extra work, paid as the replay goes: mixing rounds
// folded into a sink that never reaches any output, until the work is PCT percent of the rest
// of the replay loop's time. The budget is the loop's monotonic wall time, the clock
// replay_execution_ms is measured in (a budget in the sim thread's CPU time gave 1.22 for
// slowdown-30, because the loop's wall time also holds the runtime's GC workers on the pinned
// CPU); each slice is counted in this thread's CPU time (a wall-timed slice also counted the GC
// work that preempted it, which the loop pays anyway: 1.27 for slowdown-30). A fixed work
// count gave about 1.02 for slowdown-5. The outputs stay byte-identical.
func (s *sim) slowdown(final bool) {
	pct := s.v.slowdownPct
	if pct <= 0 {
		return
	}
	now := time.Now()
	if s.slowStart.IsZero() {
		s.slowStart = now
		return
	}
	if final {
		s.slowEnd = now
	}
	owed := time.Duration(float64(now.Sub(s.slowStart)-s.slowBurnt)*float64(pct)/100) - s.slowBurnt
	if !final && owed < time.Millisecond { // pay in slices of at least a millisecond between checks
		return
	}
	for first := final; owed > 0 || first; first = false { // the end pays at least one slice
		c0 := threadCPU()
		s.burn = slowdownWork(s.burn, slowdownChunk)
		spent := threadCPU() - c0
		if spent <= 0 { // no per-thread clock: count the slice in wall time
			spent = time.Since(now)
		}
		s.slowBurnt += spent
		owed -= spent
		now = time.Now()
	}
}

// threadCPU is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID, nanosecond resolution), 0
// when unavailable. The replay loop runs locked to its OS thread, so it is the loop's own.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// slowdownWork is rounds of mixing folded into sink.
func slowdownWork(sink uint64, rounds int) uint64 {
	for i := 0; i < rounds; i++ {
		sink = mix64(sink + uint64(i))
	}
	return sink
}
