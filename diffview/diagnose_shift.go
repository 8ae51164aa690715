package diffview

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ---- constant-quantum shifts ----

// quantumField says a per-request or event member is a virtual timestamp or a difference of
// two (so a shifted decision moves it by whole quanta). Means (itl_ms) are excluded.
func quantumField(key string) bool {
	if _, ok := timeFields[key]; ok {
		return true
	}
	switch key {
	case "at_ms", "ttft_ms", "ttst_ms", "e2e_latency_ms", "queue_wait_ms", "queue_entered_at_ms", "released_at_ms", "readmitted_at_ms":
		return true
	}
	return false
}

func detectQuantum(d *Diff) *Signature {
	type delta struct {
		i int
		x float64
	}
	var ds []delta
	for i, c := range d.Changes {
		if c.Kind != Changed || !strings.HasPrefix(c.Pointer, "/per_request/") && !strings.HasPrefix(c.Pointer, "/coverage/pressure/records/") {
			continue
		}
		if !quantumField(lastSeg(c.Pointer)) {
			continue
		}
		a, aok := parseNum(c.A)
		b, bok := parseNum(c.B)
		if !aok || !bok || a == b {
			continue
		}
		if noise(a, b) {
			continue // float noise, not a shift
		}
		ds = append(ds, delta{i, b - a})
	}
	if len(ds) < 2 {
		return nil
	}
	minAbs := math.Inf(1)
	for _, x := range ds {
		minAbs = math.Min(minAbs, math.Abs(x.x))
	}
	// Try the smallest delta and its integer fractions; keep the largest quantum that divides
	// every delta within a relative tolerance (timestamps are sums of floats).
	for k := 1; k <= 12; k++ {
		q := minAbs / float64(k)
		if q < 1e-6 {
			break
		}
		mult := map[int]int{}
		ok := true
		sum, n := 0.0, 0.0
		for _, x := range ds {
			m := math.Round(math.Abs(x.x) / q)
			if m < 1 || math.Abs(math.Abs(x.x)-m*q) > 1e-6*m*q+1e-9 {
				ok = false
				break
			}
			mult[int(m)]++
			sum += math.Abs(x.x)
			n += m
		}
		if !ok {
			continue
		}
		q = sum / n // best estimate over all deltas
		var ms []int
		for m := range mult {
			ms = append(ms, m)
		}
		sort.Ints(ms)
		var parts []string
		for _, m := range ms {
			parts = append(parts, fmt.Sprintf("×%d: %d", m, mult[m]))
		}
		reqs := map[string]bool{}
		for _, x := range ds {
			reqs[d.Changes[x.i].Request] = true
		}
		delete(reqs, "")
		fields := map[string]int{}
		for _, x := range ds {
			fields[lastSeg(d.Changes[x.i].Pointer)]++
		}
		ev := []string{
			fmt.Sprintf("every one of %d virtual-time deltas is a whole multiple of %s ms (%s)", len(ds), strconv.FormatFloat(q, 'g', 7, 64), strings.Join(parts, ", ")),
			fmt.Sprintf("%d request(s) shifted; fields: %s", len(reqs), countList(fields)),
			"a discrete step (a pass, a transfer quantum) was taken a different number of times: look for the first divergent decision",
		}
		return &Signature{Code: SigQuantum, Label: "constant-quantum shifts of " + strconv.FormatFloat(q, 'g', 7, 64) + " ms", Evidence: ev, Explains: len(ds), Quantum: q}
	}
	return nil
}

// ---- decision-flip cascade ----

// decisionKey says a pointer is a routing or placement decision.
func decisionKey(p string) bool {
	switch lastSeg(p) {
	case "logical_worker_id", "scheduler_id", "dp_rank", "prefill_worker_idx", "decode_worker_idx", "worker_id":
		return true
	case "request_uuid":
		return strings.HasPrefix(p, "/coverage/pressure/records/") // the preemption victim
	}
	return false
}

// decisionRank orders changes at one instant: the decision itself (the worker or victim
// chosen) before the other fields of its record, and those before derived values.
func decisionRank(p string) int {
	routing := strings.Contains(p, "/routing_history/")
	pressure := strings.HasPrefix(p, "/coverage/pressure/records/")
	switch {
	case routing && decisionKey(p):
		return 0
	case pressure && decisionKey(p):
		return 1
	case routing:
		return 2
	case pressure:
		return 3
	}
	return 4
}

func detectCascade(d *Diff) *Signature {
	renames := uuidRenames(d)
	first := -1
	var ft float64
	var fev string
	for i := range d.Changes {
		c := &d.Changes[i]
		if c.Kind != Changed || !decisionKey(c.Pointer) {
			continue
		}
		if lastSeg(c.Pointer) == "request_uuid" && renames[strings.Trim(c.A, `"`)] == strings.Trim(c.B, `"`) {
			continue // a renamed request, not a different victim
		}
		t, ok, ev := d.eventAt(i)
		if !ok {
			continue
		}
		if first < 0 || t < ft || (t == ft && decisionRank(c.Pointer) < decisionRank(d.Changes[first].Pointer)) {
			first, ft, fev = i, t, ev
		}
	}
	if first < 0 {
		return nil
	}
	c := d.Changes[first]
	after, before, config := 0, 0, 0
	reqs := map[string]bool{}
	for i := range d.Changes {
		t, ok, _ := d.eventAt(i)
		if ok && math.IsInf(t, -1) {
			config++ // a differing setting is a cause, not a history event before the flip
			continue
		}
		if ok && t < ft {
			before++
			continue
		}
		after++
		if r := d.Changes[i].Request; r != "" {
			reqs[r] = true
		}
	}
	who := ""
	if c.Request != "" {
		who = " of request " + c.Request
	}
	ev := []string{
		fmt.Sprintf("first differing decision: %s%s at t=%s ms: %s %s → %s", fev, who, fmtMs(ft), lastSeg(c.Pointer), c.A, c.B),
		fmt.Sprintf("%d of %d differences are at or after it in virtual time, across %d request(s)", after, len(d.Changes), len(reqs)),
	}
	if before > 0 {
		ev = append(ev, fmt.Sprintf("%d difference(s) precede it: the flip itself has an earlier cause", before))
	}
	if config > 0 {
		ev = append(ev, fmt.Sprintf("%d configuration value(s) differ before virtual time 0 (see the configuration signature)", config))
	}
	if decs := d.decisions(); len(decs) > 0 {
		for _, x := range decs {
			if x.changed && x.req == c.Request && x.t == ft && strings.Contains(c.Pointer, "/routing_history/") {
				if x.oa == x.ob {
					ev = append(ev, fmt.Sprintf("the first flipped decision saw equal overlap (%s tokens) in both runs: the candidates tied on cost and the tie-break chose differently", x.oa))
				}
				break
			}
		}
		if n, until, desc := relabeling(decs); n >= 2 && desc != "" {
			s := fmt.Sprintf("the first %d differing routing decisions are one consistent renaming of workers (%s)", n, desc)
			if !math.IsInf(until, 1) {
				s += fmt.Sprintf(" until t=%s ms", fmtMs(until))
			}
			ev = append(ev, s+": identical candidates visited in another order (map iteration or unsorted candidates)")
		}
	}
	return &Signature{Code: SigCascade, Label: "decision-flip cascade from " + fev + who, Evidence: ev, Explains: after, consequence: before > 0}
}
