package corpus

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Id drift: the same requests under other names. Request uuids renamed by a bijection (an
// unseeded UUIDv4, or an ordinal counter that started elsewhere), references following; or
// the workers (dp ranks) of a pool relabelled consistently, whose truth is a placement tie.

func idVariants() []variant {
	id := func(name string, needs func(*base) bool, apply func(*mutation) error) variant {
		return variant{family: "id-drift", name: name, primary: "id-drift", needs: needs, apply: apply}
	}
	return []variant{
		id("uuid-v4", nil, func(m *mutation) error { return renameRequests(m, 1, v4Namer(m)) }),
		id("uuid-v4-subset", nil, func(m *mutation) error { return renameRequests(m, m.between(0.2, 0.6), v4Namer(m)) }),
		id("uuid-counter-offset", func(b *base) bool { return ordinalUUIDs(b.rep) }, func(m *mutation) error {
			off := 1 + m.rng.IntN(3)
			return renameRequests(m, 1, func(u string) string { return shiftOrdinal(u, off) })
		}),
		// Workers (ranks) under other names are ties among interchangeable placements broken
		// another way, a cause of their own beside request ids (issue 41): a placement tie.
		placementTie(id("worker-relabel", func(b *base) bool { return widestPool(b) != "" }, relabelWorkers)),
		placementTie(id("dp-rank-relabel", nil, relabelDPRanks)),
	}
}

// placementTie is v with the diagnosis the truth wants of a relabelling: a placement tie.
func placementTie(v variant) variant {
	v.primary = "tie-order"
	return v
}

// renameRequests renames a fraction of the requests (all when frac is 1) through name, a
// bijection; pressure records' request_uuid follow, and /per_request is sorted by the new uuids.
func renameRequests(m *mutation, frac float64, name func(string) string) error {
	reqs := m.b.Requests()
	to := map[string]string{}
	m.rename = map[string]string{}
	var example string
	for _, r := range reqs {
		if frac < 1 && m.rng.Float64() >= frac {
			continue
		}
		old := uuidOf(r)
		nu := name(old)
		to[old], m.rename[nu] = nu, old
		r["uuid"] = nu
		if example == "" {
			example = old + " → " + nu
		}
	}
	if len(to) == 0 {
		return errNotHere
	}
	for _, p := range m.b.Pressure() {
		if u, ok := to[fmt.Sprint(p["request_uuid"])]; ok {
			p["request_uuid"] = u
		}
	}
	m.b.sortRequests()
	m.note("%d of %d request uuids renamed by a bijection (e.g. %s); pressure records follow", len(to), len(reqs), example)
	return nil
}

// v4Namer draws fresh random UUIDv4s, never the same twice.
func v4Namer(m *mutation) func(string) string {
	used := map[string]bool{}
	return func(string) string {
		for {
			var b [16]byte
			for i := range b {
				b[i] = byte(m.rng.UintN(256))
			}
			b[6] = b[6]&0x0f | 0x40 // version 4
			b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
			h := hex.EncodeToString(b[:])
			u := h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
			if !used[u] {
				used[u] = true
				return u
			}
		}
	}
}

// ordinalUUIDs says the report's request ids are the canonical ordinal uuids.
func ordinalUUIDs(r *reportTree) bool {
	for _, q := range r.Requests() {
		if _, ok := ordinal(uuidOf(q)); !ok {
			return false
		}
	}
	return true
}

func ordinal(u string) (uint64, bool) {
	if len(u) != 36 || !strings.HasPrefix(u, "00000000-0000-0000-0000-") {
		return 0, false
	}
	n, err := strconv.ParseUint(u[24:], 16, 64)
	return n, err == nil
}

// shiftOrdinal is the ordinal uuid off places later: a counter that started elsewhere.
func shiftOrdinal(u string, off int) string {
	n, _ := ordinal(u)
	return fmt.Sprintf("00000000-0000-0000-0000-%012x", n+uint64(off))
}

// widestPool is the pool with the most workers (two at least), or "".
func widestPool(b *base) string {
	best := ""
	for _, p := range []string{"agg", "decode", "prefill"} {
		if len(b.Pools[p]) >= 2 && (best == "" || len(b.Pools[p]) > len(b.Pools[best])) {
			best = p
		}
	}
	return best
}

// relabelWorkers renames a pool's workers by a permutation with no fixed point among the
// ones it moves: every decision of that pool, the per-request worker index and the pressure
// records' worker_id follow.
func relabelWorkers(m *mutation) error {
	pool := widestPool(m.base)
	ws := m.base.Pools[pool]
	moved := slices.Clone(ws)
	m.rng.Shuffle(len(moved), func(i, j int) { moved[i], moved[j] = moved[j], moved[i] })
	moved = moved[:2+m.rng.IntN(len(moved)-1)]
	perm := map[int]int{}
	for i, w := range moved { // a cycle through the moved workers
		perm[w] = moved[(i+1)%len(moved)]
	}
	relabel := func(v any) any {
		if w, ok := intOf(v); ok {
			if x, ok := perm[w]; ok {
				return intNum(x)
			}
		}
		return v
	}
	for _, r := range m.b.Requests() {
		for _, e := range routing(r) {
			if e["pool"] == pool {
				e["logical_worker_id"], e["scheduler_id"] = relabel(e["logical_worker_id"]), relabel(e["scheduler_id"])
			}
		}
		f := workerField(pool)
		r[f] = relabel(r[f])
	}
	for _, p := range m.b.Pressure() {
		if p["pool"] == pool {
			p["worker_id"] = relabel(p["worker_id"])
		}
	}
	m.note("%s workers relabelled by the cycle %v (of %v)", pool, moved, ws)
	return nil
}

// relabelDPRanks moves every data-parallel rank up by one: a bijection of rank names.
func relabelDPRanks(m *mutation) error {
	up := func(v any) any {
		if d, ok := intOf(v); ok {
			return intNum(d + 1)
		}
		return v
	}
	n := 0
	for _, r := range m.b.Requests() {
		for _, e := range routing(r) {
			e["dp_rank"] = up(e["dp_rank"])
			n++
		}
	}
	for _, p := range m.b.Pressure() {
		p["dp_rank"] = up(p["dp_rank"])
	}
	m.note("dp_rank relabelled d → d+1 in %d routing decisions and every pressure record", n)
	return nil
}

// randomHex is n random bytes in lowercase hex (a digest).
func randomHex(m *mutation, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(m.rng.UintN(256))
	}
	return hex.EncodeToString(b)
}
