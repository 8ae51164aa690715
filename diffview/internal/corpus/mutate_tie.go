package corpus

import (
	"fmt"
	"slices"
	"strconv"
)

// Tie order: events at one virtual time processed in another order (an executor-order
// leak). Each equal-time group keeps its multiset; the sequence numbers handed out inside it
// follow the new order, and references to them follow too.

func tieVariants() []variant {
	tie := func(name string, needs func(*base) bool, apply func(*mutation) error) variant {
		return variant{family: "tie-order", name: name, primary: "tie-order", needs: needs, apply: apply}
	}
	pressure := func(n int) func(*base) bool { return func(b *base) bool { return b.Pressure >= n } }
	return []variant{
		tie("pressure-pair", pressure(2), func(m *mutation) error { return permutePressure(m, 2) }),
		tie("pressure-triple", pressure(3), func(m *mutation) error { return permutePressure(m, 3) }),
		tie("arrival-uuids", nil, func(m *mutation) error { return permuteArrivalIDs(m, 2) }),
		tie("arrival-uuids-rotate", nil, func(m *mutation) error { return permuteArrivalIDs(m, 3) }),
		tie("queued-decisions", func(b *base) bool { return b.Queued }, swapQueuedDecisions),
		tie("kv-digest-only", func(b *base) bool { return b.KVIngest }, func(m *mutation) error {
			m.b.obj("/coverage/kv_ingest")["blake3_256"] = randomHex(m, 32)
			m.cause = []string{"/coverage/kv_ingest/blake3_256"}
			m.note("only the KV ingest digest differs: the same KV events ingested in another order")
			return nil
		}),
	}
}

// permutePressure rotates n consecutive pressure records that share one at_ms. Real runs
// rarely tie there, so when the chosen records do not, both runs are given the tie first (n
// preemptions in one pass): the difference is the order alone.
func permutePressure(m *mutation, n int) error {
	recs := m.b.Pressure()
	if len(recs) < n {
		return errNotHere
	}
	k := m.rng.IntN(len(recs) - n + 1)
	at := recs[k]["at_ms"]
	synthetic := false
	for i := k + 1; i < k+n; i++ {
		if !sameValue(recs[i]["at_ms"], at) {
			synthetic = true
		}
	}
	if synthetic {
		m.both(func(r *reportTree) {
			ps := r.Pressure()
			for i := k + 1; i < k+n; i++ {
				ps[i]["at_ms"] = at
			}
		})
	}
	arr := m.b.arr("/coverage/pressure/records")
	group := slices.Clone(arr[k : k+n])
	for i := range group { // rotate by one: element i takes i+1's place
		arr[k+i] = group[(i+1)%n]
	}
	// Renumber the ordinals in the new order and map every reference through the same permutation.
	renum := map[int]int{}
	for i := k; i < k+n; i++ {
		p := arr[i].(map[string]any)
		old, _ := intOf(p["pressure_ordinal"])
		renum[old] = i
		p["pressure_ordinal"] = intNum(i)
	}
	for _, r := range m.b.Requests() {
		ords := asArray(r["pressure_record_ordinals"])
		changed := false
		for j, o := range ords {
			if x, ok := intOf(o); ok {
				if y, ok := renum[x]; ok && y != x {
					ords[j], changed = intNum(y), true
				}
			}
		}
		if changed {
			slices.SortFunc(ords, func(a, b any) int { x, _ := intOf(a); y, _ := intOf(b); return x - y })
		}
	}
	how := "a natural tie"
	if synthetic {
		how = "a tie given to both runs"
	}
	m.cause = []string{"/coverage/pressure/records/" + strconv.Itoa(k)}
	m.note("pressure records %d..%d at %s ms (%s) rotated, pressure_ordinal renumbered, pressure_record_ordinals follow", k, k+n-1, at, how)
	return nil
}

// permuteArrivalIDs hands out the ordinal uuids of n requests that arrived at one virtual
// time in another order: each request keeps its content and gets a tie partner's uuid;
// pressure records' request_uuid follow.
func permuteArrivalIDs(m *mutation, n int) error {
	reqs := m.b.Requests()
	var groups [][]int
	for _, g := range arrivalTies(reqs) {
		if len(g) >= n {
			groups = append(groups, g)
		}
	}
	if len(groups) == 0 {
		return errNotHere
	}
	g := groups[m.rng.IntN(len(groups))]
	m.rng.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
	g = g[:n]
	slices.Sort(g)
	olds := make([]string, n)
	for i, ri := range g {
		olds[i] = uuidOf(reqs[ri])
	}
	to := map[string]string{}
	m.rename = map[string]string{}
	for i, ri := range g {
		nu := olds[(i+1)%n]
		to[olds[i]] = nu
		m.rename[nu] = olds[i]
		reqs[ri]["uuid"] = nu
	}
	for _, p := range m.b.Pressure() {
		if u, ok := to[p["request_uuid"].(string)]; ok {
			p["request_uuid"] = u
		}
	}
	m.b.sortRequests()
	for _, ri := range g {
		m.cause = append(m.cause, "/per_request/"+strconv.Itoa(ri))
	}
	m.note("%d requests arriving at %s ms got their ordinal uuids in another order (%s)", n, fmt.Sprint(reqs[g[0]]["arrival_time_ms"]), shortUUIDs(olds))
	return nil
}

// swapQueuedDecisions permutes the workers two requests got when they entered the router
// queue at the same virtual time; each then finishes a little differently on its new worker.
func swapQueuedDecisions(m *mutation) error {
	reqs := m.b.Requests()
	type qd struct {
		r    int
		e    map[string]any
		k    int
		t    string
		pool string
		w    int
	}
	byTime := map[string][]qd{}
	var times []string
	for i, r := range reqs {
		for k, e := range routing(r) {
			q, ok := e["queue_entered_at_ms"]
			if _, num := numOf(q); !ok || !num {
				continue
			}
			w, _ := intOf(e["logical_worker_id"])
			key := fmt.Sprint(q) + "/" + fmt.Sprint(e["pool"])
			if byTime[key] == nil {
				times = append(times, key)
			}
			byTime[key] = append(byTime[key], qd{i, e, k, fmt.Sprint(q), fmt.Sprint(e["pool"]), w})
		}
	}
	var cands [][2]qd
	for _, key := range times {
		g := byTime[key]
		for i := 0; i < len(g); i++ {
			for j := i + 1; j < len(g); j++ {
				if g[i].w != g[j].w && g[i].r != g[j].r {
					cands = append(cands, [2]qd{g[i], g[j]})
				}
			}
		}
	}
	if len(cands) == 0 {
		return errNotHere
	}
	c := cands[m.rng.IntN(len(cands))]
	x, y := c[0], c[1]
	for _, key := range []string{"logical_worker_id", "scheduler_id", "reported_overlap_tokens", "dp_rank"} {
		x.e[key], y.e[key] = y.e[key], x.e[key]
	}
	f := workerField(x.pool)
	reqs[x.r][f], reqs[y.r][f] = intNum(y.w), intNum(x.w)
	t, _ := numOf(x.e["queue_entered_at_ms"])
	for _, d := range []qd{x, y} {
		shiftAfter(reqs[d.r], t, m.between(0.2, 25))
		m.cause = append(m.cause, "/per_request/"+strconv.Itoa(d.r)+"/routing_history/"+strconv.Itoa(d.k))
	}
	m.note("requests %d and %d entered the %s queue at %s ms; their workers %d and %d swapped", x.r, y.r, x.pool, x.t, x.w, y.w)
	return nil
}

// shortUUIDs shows ordinal uuids by their last digits.
func shortUUIDs(us []string) string {
	s := ""
	for i, u := range us {
		if i > 0 {
			s += ", "
		}
		if len(u) > 6 {
			u = "…" + u[len(u)-6:]
		}
		s += u
	}
	return s
}
