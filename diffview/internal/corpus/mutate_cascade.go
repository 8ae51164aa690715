package corpus

import (
	"slices"
	"sort"
	"strconv"
)

// Decision-flip cascade: one decision went the other way at virtual time t (another worker,
// another preemption victim) and everything after follows: the workers' later requests finish
// at other times, a few later decisions flip too, the summary and the KV stream differ. Real
// cascades carry a few last-digit float differences along; so do the noisy variants.

func cascadeVariants() []variant {
	c := func(name string, secondary []string, needs func(*base) bool, apply func(*mutation) error) variant {
		return variant{family: "decision-cascade", name: name, primary: "decision-cascade", secondary: secondary, needs: needs, apply: apply}
	}
	noise := []string{"float-noise"}
	return []variant{
		c("arrival-flip", noise, nil, func(m *mutation) error {
			return cascade(m, cascadeOpts{kind: atArrival, lo: 0.1, hi: 0.6, noise: true})
		}),
		c("arrival-flip-clean", nil, nil, func(m *mutation) error { return cascade(m, cascadeOpts{kind: atArrival, lo: 0.05, hi: 0.5}) }),
		c("decode-flip", noise, func(b *base) bool { return len(b.Pools["decode"]) >= 2 && b.disagg() }, func(m *mutation) error {
			return cascade(m, cascadeOpts{kind: atHandoff, lo: 0.1, hi: 0.7, noise: true})
		}),
		c("preemption-victim", nil, func(b *base) bool { return b.Pressure >= 1 }, victimFlip),
		c("late-flip", nil, nil, func(m *mutation) error { return cascade(m, cascadeOpts{kind: atArrival, lo: 0.85, hi: 0.97}) }),
		c("queued-flip", noise, func(b *base) bool { return b.Queued }, func(m *mutation) error {
			return cascade(m, cascadeOpts{kind: atQueue, lo: 0.1, hi: 0.8, noise: true})
		}),
	}
}

type flipAt int

const (
	atArrival flipAt = iota // an agg or prefill decision made at the arrival
	atHandoff               // a decode decision made at the prefill-to-decode hand-off
	atQueue                 // a decision made on entering the router queue
)

type cascadeOpts struct {
	kind   flipAt
	lo, hi float64 // where t may be, as fractions of the run's span
	noise  bool    // ride-along last-digit noise in the summary
}

// A decisionRef is one routing decision of one request.
type decisionRef struct {
	r, k int
	t    float64
	pool string
	w    int
}

// decisionsOf lists the routing decisions of kind inside the window, in pools of two
// workers or more.
func decisionsOf(m *mutation, kind flipAt, lo, hi float64) []decisionRef {
	reqs := m.b.Requests()
	s0, s1 := span(reqs)
	var out []decisionRef
	for i, r := range reqs {
		for k, e := range routing(r) {
			pool, _ := e["pool"].(string)
			w, ok := intOf(e["logical_worker_id"])
			if !ok || len(m.base.Pools[pool]) < 2 {
				continue
			}
			_, queued := numOf(e["queue_entered_at_ms"])
			switch kind {
			case atArrival:
				ok = !queued && pool != "decode"
			case atHandoff:
				ok = !queued && pool == "decode"
			case atQueue:
				ok = queued
			}
			t := decisionTime(r, e)
			if ok && t >= s0+(s1-s0)*lo && t <= s0+(s1-s0)*hi {
				out = append(out, decisionRef{i, k, t, pool, w})
			}
		}
	}
	return out
}

// cascade flips one decision and lets the consequences follow.
func cascade(m *mutation, o cascadeOpts) error {
	cands := decisionsOf(m, o.kind, o.lo, o.hi)
	if len(cands) == 0 {
		return errNotHere
	}
	d := cands[m.rng.IntN(len(cands))]
	ws := m.base.Pools[d.pool]
	to := ws[m.rng.IntN(len(ws))]
	for to == d.w {
		to = ws[m.rng.IntN(len(ws))]
	}
	reqs := m.b.Requests()
	flipDecision(m, reqs[d.r], d.k, to)
	m.cause = []string{"/per_request/" + strconv.Itoa(d.r) + "/routing_history/" + strconv.Itoa(d.k)}
	m.note("request %d's %s decision at t=%s ms went to worker %d instead of %d", d.r, d.pool, num(d.t), to, d.w)
	// A few later decisions of the two workers flip too.
	var later []decisionRef
	for _, x := range decisionsOf(m, o.kind, 0, 1) {
		if x.t > d.t && x.pool == d.pool && (x.w == d.w || x.w == to) && x.r != d.r {
			later = append(later, x)
		}
	}
	m.rng.Shuffle(len(later), func(i, j int) { later[i], later[j] = later[j], later[i] })
	later = later[:min(len(later), m.rng.IntN(5))]
	for _, x := range later {
		other := d.w
		if x.w == d.w {
			other = to
		}
		flipDecision(m, reqs[x.r], x.k, other)
	}
	consequences(m, d.t, d.pool, []int{d.w, to}, map[int]float64{d.r: m.between(0.5, 40)}, o.noise)
	if len(later) > 0 {
		m.note("%d later decisions of workers %d and %d flipped too", len(later), d.w, to)
	}
	return nil
}

// flipDecision sends request r's k-th routing decision to worker w (its overlap may differ).
func flipDecision(m *mutation, r map[string]any, k, w int) {
	e := routing(r)[k]
	pool, _ := e["pool"].(string)
	e["logical_worker_id"] = intNum(w)
	if _, ok := intOf(e["scheduler_id"]); ok {
		e["scheduler_id"] = intNum(w)
	}
	if _, ok := intOf(r[workerField(pool)]); ok {
		r[workerField(pool)] = intNum(w)
	}
	if m.rng.IntN(2) == 0 {
		ov, _ := intOf(e["reported_overlap_tokens"])
		nv := 0
		if ov == 0 {
			nv = blockSize(m.b) * (1 + m.rng.IntN(4))
		}
		e["reported_overlap_tokens"] = intNum(nv)
		switch pool {
		case "prefill":
			r["prefill_route_overlap_tokens"] = intNum(nv)
		case "decode":
			if _, ok := intOf(r["decode_route_overlap_tokens"]); ok {
				r["decode_route_overlap_tokens"] = intNum(nv)
			}
		}
	}
}

// consequences moves what follows a decision at t: every later timestamp of the requests of
// the involved workers (boost gives some requests their own shift), their pressure records,
// the summary, and the KV event stream.
func consequences(m *mutation, t float64, pool string, ws []int, boost map[int]float64, noise bool) {
	reqs := m.b.Requests()
	moved := 0
	for i, r := range reqs {
		delta, ok := boost[i]
		if !ok {
			on := false
			for _, w := range ws {
				on = on || routedTo(r, pool, w)
			}
			if !on || m.rng.IntN(4) == 0 {
				continue
			}
			delta = m.between(0.05, 40)
			if m.rng.IntN(3) == 0 {
				delta = -m.between(0.05, 20)
			}
		}
		if shiftAfter(r, t, delta) > 0 {
			moved++
		}
		for _, p := range pressureOf(m.b, uuidOf(r)) {
			shiftPressureAfter(p, t, delta)
		}
	}
	followSummary(m, noise)
	followKV(m, pool)
	m.note("%d requests finish at other times after t=%s ms", moved, num(t))
}

// followSummary rewrites the summary the way a different history does: most f64 values move
// a little; noise makes a few of them differ only in the last digits.
func followSummary(m *mutation, noise bool) {
	s := m.b.obj("/summary")
	keys := summaryFloats(m.b)
	var moved []string
	for _, k := range keys {
		x, _ := numOf(s[k])
		if x == 0 || m.rng.IntN(5) == 0 {
			continue
		}
		eps := m.between(1e-5, 1e-2)
		if m.rng.IntN(2) == 0 {
			eps = -eps
		}
		s[k] = num(x * (1 + eps))
		moved = append(moved, k)
	}
	if last, ok := maxTerminal(m.b); ok {
		s["duration_ms"] = num(last)
	}
	if noise && len(moved) > 0 {
		m.rng.Shuffle(len(moved), func(i, j int) { moved[i], moved[j] = moved[j], moved[i] })
		few := moved[:min(len(moved), 2+m.rng.IntN(3))]
		sort.Strings(few)
		for _, k := range few {
			x, _ := numOf(lookup(m.a, "/summary/"+k))
			s[k] = num(ulpStep(x, m.noiseULPs(1, 3)))
		}
		m.note("%d summary values only last-digit different (%v)", len(few), few)
	}
}

// followKV gives B the KV event stream of another history: another digest, a few more
// stored events, the last pass at the new end.
func followKV(m *mutation, pool string) {
	kv := m.b.obj("/coverage/kv_ingest")
	if kv == nil {
		return
	}
	kv["blake3_256"] = randomHex(m, 32)
	d := 1 + m.rng.IntN(20)
	add := func(obj map[string]any, key string, n int) {
		if obj == nil {
			return
		}
		if x, ok := intOf(obj[key]); ok {
			obj[key] = intNum(x + n)
		}
	}
	add(kv, "events", d)
	add(kv, "blocks", 8*d)
	kc, _ := kv["kind_counts"].(map[string]any)
	add(kc, "stored", d)
	pc, _ := kv["pool_counts"].(map[string]any)
	add(pc, pool, d)
	tc, _ := kv["tier_counts"].(map[string]any)
	add(tc, "device", d)
	if last, ok := maxTerminal(m.b); ok {
		if pe, _ := lookup(m.b, "/coverage/kv_ingest/boundaries/pass_end").(map[string]any); pe != nil {
			if old, ok := maxTerminal(m.a); ok && sameValue(pe["last_at_ms"], num(old)) {
				pe["last_at_ms"] = num(last)
			}
		}
	}
}

// maxTerminal is the latest terminal time of a report's requests.
func maxTerminal(r *reportTree) (float64, bool) {
	best, found := 0.0, false
	for _, q := range r.Requests() {
		if t, ok := reqTime(q, "terminal_time_ms"); ok && (!found || t > best) {
			best, found = t, true
		}
	}
	return best, found
}

// victimFlip: at one pressure event the engine chose another running request of the same
// worker as its victim; the old victim runs through, the new one is readmitted later.
func victimFlip(m *mutation) error {
	recs := m.b.Pressure()
	reqs := m.b.Requests()
	byUUID := map[string]int{}
	for i, r := range reqs {
		byUUID[uuidOf(r)] = i
	}
	type cand struct{ k, v int }
	var cands []cand
	for k, p := range recs {
		t, _ := numOf(p["at_ms"])
		ra, ok := numOf(p["readmitted_at_ms"])
		w, wok := intOf(p["worker_id"])
		if !ok || !wok {
			continue
		}
		for i, r := range reqs {
			end, _ := reqTime(r, "terminal_time_ms")
			if uuidOf(r) != p["request_uuid"] && arrival(r) < t && end > ra && routedTo(r, p["pool"], w) && len(pressureOf(m.b, uuidOf(r))) == 0 {
				cands = append(cands, cand{k, i})
			}
		}
	}
	if len(cands) == 0 {
		return errNotHere
	}
	c := cands[m.rng.IntN(len(cands))]
	p := recs[c.k]
	t, _ := numOf(p["at_ms"])
	ra := p["readmitted_at_ms"]
	oldIdx, ok := byUUID[p["request_uuid"].(string)]
	if !ok {
		return errNotHere
	}
	old, nu := reqs[oldIdx], reqs[c.v]
	p["request_uuid"] = uuidOf(nu)
	if b, ok := intOf(p["request_active_blocks_before"]); ok {
		p["request_active_blocks_before"] = intNum(1 + m.rng.IntN(2*b+1))
	}
	pool, _ := p["pool"].(string)
	// The old victim is not preempted: no readmission, no ordinal; it finishes sooner.
	setOrdinals(old, c.k, false)
	dropReadmission(old, ra)
	shiftAfter(old, t, -m.between(1, 40))
	// The new victim is: its work after t moves later, and it is readmitted.
	shiftAfter(nu, t, m.between(1, 60))
	setOrdinals(nu, c.k, true)
	addReadmission(nu, ra, pool)
	w, _ := intOf(p["worker_id"])
	consequences(m, t, pool, []int{w}, nil, false)
	m.cause = []string{"/coverage/pressure/records/" + strconv.Itoa(c.k)}
	m.note("pressure event %d at t=%s ms preempted request %d instead of %d", c.k, num(t), c.v, oldIdx)
	return nil
}

// setOrdinals adds or removes pressure ordinal k from a request's references.
func setOrdinals(r map[string]any, k int, add bool) {
	var out []any
	for _, o := range asArray(r["pressure_record_ordinals"]) {
		if x, _ := intOf(o); x != k {
			out = append(out, o)
		}
	}
	if add {
		out = append(out, intNum(k))
		slices.SortFunc(out, func(a, b any) int { x, _ := intOf(a); y, _ := intOf(b); return x - y })
	}
	if out == nil {
		out = []any{}
	}
	r["pressure_record_ordinals"] = out
}

// dropReadmission removes the readmission at time at from a request's admissions.
func dropReadmission(r map[string]any, at any) {
	var out []any
	for _, e := range asArray(r["admission_history"]) {
		if a, _ := e.(map[string]any); a["is_readmission"] == true && sameValue(a["at_ms"], at) {
			continue
		}
		out = append(out, e)
	}
	setAdmissions(r, out)
}

// addReadmission inserts a readmission at time at into a request's admissions.
func addReadmission(r map[string]any, at any, pool string) {
	out := append([]any(nil), asArray(r["admission_history"])...)
	out = append(out, map[string]any{"admission_ordinal": intNum(0), "at_ms": at, "is_readmission": true,
		"pool": pool, "pool_admission_ordinal": intNum(0), "reused_input_tokens": intNum(0)})
	sort.SliceStable(out, func(i, j int) bool {
		x, _ := numOf(out[i].(map[string]any)["at_ms"])
		y, _ := numOf(out[j].(map[string]any)["at_ms"])
		return x < y
	})
	setAdmissions(r, out)
}

// setAdmissions stores admissions renumbered in order (overall and per pool) with the counts.
func setAdmissions(r map[string]any, adm []any) {
	perPool := map[any]int{}
	re := 0
	for i, e := range adm {
		a := e.(map[string]any)
		if x, _ := intOf(a["admission_ordinal"]); x != i {
			a["admission_ordinal"] = intNum(i)
		}
		if x, _ := intOf(a["pool_admission_ordinal"]); x != perPool[a["pool"]] {
			a["pool_admission_ordinal"] = intNum(perPool[a["pool"]])
		}
		perPool[a["pool"]]++
		if a["is_readmission"] == true {
			re++
		}
	}
	if adm == nil {
		adm = []any{}
	}
	r["admission_history"] = adm
	if _, ok := intOf(r["admission_count"]); ok {
		r["admission_count"] = intNum(len(adm))
	}
	if _, ok := intOf(r["readmission_count"]); ok {
		r["readmission_count"] = intNum(re)
	}
}
