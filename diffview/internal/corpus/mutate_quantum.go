package corpus

import (
	"fmt"
	"sort"
)

// Constant-quantum shifts: a discrete step (a scheduler tick, one decode pass) taken a
// different number of times, so a set of virtual timestamps and the durations derived from
// them move by whole multiples of one quantum.

// tickMs is the scheduler quantum seen in the executor-order leak (0.123076 ms).
const tickMs = 0.123076

func quantumVariants() []variant {
	q := func(name string, apply func(*mutation) error) variant {
		return variant{family: "constant-quantum", name: name, primary: "constant-quantum", apply: apply}
	}
	return []variant{
		q("tick", func(m *mutation) error { return quantumShift(m, tickMs, 3, 1) }),
		q("decode-pass", func(m *mutation) error {
			pass, ok := numOf(lookup(m.b, "/summary/median_itl_ms"))
			if !ok || pass <= 0 {
				pass = 12.5
			}
			return quantumShift(m, pass, 4, 1)
		}),
		q("many-multiples", func(m *mutation) error { return quantumShift(m, tickMs, 40, 2) }),
	}
}

// quantumShift picks a time t0 and workers of one pool; every request routed there moves
// its timestamps after t0 by a multiple of q (1..maxMult, at least one by exactly q), with
// its pressure records. The summary's means follow.
func quantumShift(m *mutation, q float64, maxMult, workers int) error {
	reqs := m.b.Requests()
	lo, hi := span(reqs)
	t0 := lo + (hi-lo)*m.between(0.15, 0.7)
	pool := widestPool(m.base)
	if pool == "" {
		return errNotHere
	}
	ws := append([]int(nil), m.base.Pools[pool]...)
	m.rng.Shuffle(len(ws), func(i, j int) { ws[i], ws[j] = ws[j], ws[i] })
	ws = ws[:min(workers, len(ws))]
	sort.Ints(ws)
	moved, first := 0, true
	mults := map[int]int{}
	var sum float64
	for _, r := range reqs {
		on := false
		for _, w := range ws {
			on = on || routedTo(r, pool, w)
		}
		if !on {
			continue
		}
		k := 1 + m.rng.IntN(maxMult)
		if first {
			k = 1
		}
		n := shiftAfter(r, t0, float64(k)*q)
		if n == 0 {
			continue
		}
		first = false
		for _, p := range pressureOf(m.b, uuidOf(r)) {
			shiftPressureAfter(p, t0, float64(k)*q)
		}
		moved++
		mults[k]++
		sum += float64(k) * q
	}
	if moved < 2 {
		return errNotHere
	}
	s := m.b.obj("/summary")
	for _, k := range []string{"mean_ttft_ms", "mean_e2e_latency_ms"} {
		if x, ok := numOf(s[k]); ok {
			s[k] = num(x + sum/float64(len(reqs)))
		}
	}
	m.note("%d requests on %s workers %v shifted after t=%s ms by multiples of %s ms (%v)", moved, pool, ws, num(t0), num(q), fmt.Sprint(mults))
	return nil
}
