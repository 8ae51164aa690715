package corpus

import (
	"strconv"
	"strings"
)

// Wall-clock leakage: a reading of the machine's clock reached a canonical field. Epoch
// timestamps in a field both runs write; a small offset growing with the run's wall time on
// completion times; wall-measured microseconds in queue waits; throughput divided by a wall
// duration while the virtual durations agree; a wall value in the run's duration.

// epochMs is 2026-12-01T00:00:00Z in epoch milliseconds: "now" for the leaked readings.
const epochMs = 1796083200000.0

func wallVariants() []variant {
	wall := func(name string, needs func(*base) bool, apply func(*mutation) error) variant {
		return variant{family: "wall-clock", name: name, primary: "wall-clock", needs: needs, apply: apply}
	}
	return []variant{
		wall("epoch-kv-boundaries", hasBoundaries, epochBoundaries),
		wall("epoch-dispatch", nil, epochDispatch),
		wall("completion-offset", nil, completionOffset),
		wall("queue-wait-us", nil, queueWaitMicros),
		wall("throughput-wall", nil, func(m *mutation) error { throughputWall(m); return nil }),
		wall("duration-jitter", nil, durationJitter),
	}
}

func hasBoundaries(b *base) bool {
	_, ok := b.rep.Get("/coverage/kv_ingest/boundaries/pass_end/first_at_ms")
	return ok
}

// epochBoundaries: both runs stamp the KV ingest pass boundaries with the wall clock (epoch
// ms plus the virtual offset); their start times differ.
func epochBoundaries(m *mutation) error {
	startA := epochMs + m.between(0, 86400e3)
	startB := startA + m.between(1e3, 3600e3)
	stamp := func(r *reportTree, start float64) {
		for _, bd := range r.obj("/coverage/kv_ingest/boundaries") {
			pass, _ := bd.(map[string]any)
			for _, k := range []string{"first_at_ms", "last_at_ms"} {
				if x, ok := numOf(pass[k]); ok {
					pass[k] = num(start + x)
				}
			}
		}
	}
	m.both(func(r *reportTree) { stamp(r, startA) })
	stamp(m.b, startB)
	m.note("KV ingest pass boundaries hold epoch ms (A from %s, B %.0f s later)", num(startA), (startB-startA)/1e3)
	return nil
}

// epochDispatch: both runs write each request's wall-clock dispatch time (epoch ms, or µs)
// into dispatched_at_ms, increasing with the arrival; B's clock started later.
func epochDispatch(m *mutation) error {
	reqs := m.b.Requests()
	order := byArrival(reqs)
	scale := 1.0
	unit := "ms"
	if m.rng.IntN(2) == 0 {
		scale, unit = 1e3, "µs"
	}
	startA := epochMs + m.between(0, 86400e3)
	gap := m.between(1e3, 3600e3)
	wall := make([]float64, len(reqs)) // wall ms after the start, strictly increasing by arrival
	jitter := make([]float64, len(reqs))
	last := 0.0
	for _, i := range order {
		last = max(last+0.001, arrival(reqs[i])/50+m.between(0, 0.05))
		wall[i] = last
		jitter[i] = m.between(0, 0.4)
	}
	m.both(func(r *reportTree) {
		for i, q := range r.Requests() {
			q["dispatched_at_ms"] = num((startA + wall[i]) * scale)
		}
	})
	for i, q := range m.b.Requests() {
		q["dispatched_at_ms"] = num((startA + gap + wall[i] + jitter[i]) * scale)
	}
	m.cause = []string{"/per_request/" + strconv.Itoa(order[0]) + "/dispatched_at_ms"}
	m.note("dispatched_at_ms of every request is an epoch reading in %s; B's clock %.0f s later", unit, gap/1e3)
	return nil
}

// completionOffset: B's completion times carry an offset that grows slowly with the run (a
// wall-clock rate folded into virtual time): sub-millisecond, neither noise nor a quantum.
func completionOffset(m *mutation) error {
	rate := m.between(1e-7, 1e-6) // ms of offset per virtual ms
	sum, n := 0.0, 0
	for _, r := range m.b.Requests() {
		lt, ok := reqTime(r, "last_token_ms")
		if !ok || r["terminal_status"] != "completed" {
			continue
		}
		eps := rate*lt + 1e-6
		for _, k := range []string{"last_token_ms", "terminal_time_ms"} {
			if x, ok := reqTime(r, k); ok {
				r[k] = num(x + eps)
			}
		}
		if itl, ok := numOf(r["itl_ms"]); ok {
			if out, ok := intOf(r["output_length"]); ok && out > 1 {
				r["itl_ms"] = num(itl + eps/float64(out-1))
			}
		}
		rederive(r, map[string]bool{"last_token_ms": true})
		sum += eps
		n++
	}
	if n == 0 {
		return errNotHere
	}
	s := m.b.obj("/summary")
	for k, v := range s {
		if x, ok := numOf(v); ok && floatNumber(v) && (strings.Contains(k, "e2e_latency") || k == "duration_ms") && !strings.HasPrefix(k, "std_") {
			s[k] = num(x + sum/float64(n))
		}
	}
	m.note("completion times of %d requests offset by %.3g ms per virtual second (up to %.3g ms)", n, rate*1e3, sum/float64(n))
	return nil
}

// queueWaitMicros: decisions routed at once (a virtual wait of 0) report a wall-measured
// wait of some microseconds in B.
func queueWaitMicros(m *mutation) error {
	frac := m.between(0.3, 1)
	n := 0
	for _, r := range m.b.Requests() {
		for _, e := range routing(r) {
			if x, ok := numOf(e["queue_wait_ms"]); ok && x == 0 && m.rng.Float64() < frac {
				e["queue_wait_ms"] = num(float64(1+m.rng.IntN(900)) / 1e3 * (1 + m.between(0, 0.001)))
				n++
			}
		}
	}
	if n == 0 {
		return errNotHere
	}
	m.note("%d immediate routing decisions carry a wall-measured queue_wait_ms of 1-900 µs", n)
	return nil
}

// throughputWall: both runs divide their token counts by their own wall duration; the
// virtual duration_ms agrees.
func throughputWall(m *mutation) {
	wa := m.between(200, 60000)
	wb := wa * m.between(0.7, 1.4)
	set := func(r *reportTree, wall float64) {
		s := r.obj("/summary")
		in, _ := numOf(s["total_input_tokens"])
		out, _ := numOf(s["total_output_tokens"])
		done, _ := numOf(s["completed_requests"])
		sec := wall / 1e3
		s["input_throughput_tok_s"] = num(in / sec)
		s["output_throughput_tok_s"] = num(out / sec)
		s["total_throughput_tok_s"] = num((in + out) / sec)
		s["request_throughput_rps"] = num(done / sec)
	}
	m.both(func(r *reportTree) { set(r, wa) })
	set(m.b, wb)
	m.note("throughputs divided by wall durations %.1f and %.1f ms; duration_ms agrees", wa, wb)
}

// durationJitter: a wall-clock value reaches summary.duration_ms (sub-millisecond), and the
// rates derived from it follow.
func durationJitter(m *mutation) error {
	s := m.b.obj("/summary")
	d, ok := numOf(s["duration_ms"])
	if !ok || d <= 0 {
		return errNotHere
	}
	j := m.between(0.001, 0.9)
	s["duration_ms"] = num(d + j)
	for _, k := range []string{"input_throughput_tok_s", "output_throughput_tok_s", "total_throughput_tok_s", "request_throughput_rps"} {
		if x, ok := numOf(s[k]); ok {
			s[k] = num(x * d / (d + j))
		}
	}
	m.note("summary duration_ms %.6g ms later than the last terminal time; rates follow", j)
	return nil
}
