package diffview

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Pairing the records of /per_request (which the canonical profile sorts by uuid) across the
// two reports, in passes, each over what the one before left unpaired:
//
//  1. by uuid (identical uuid lists pair by position);
//  2. when uuids were shifted (a counter offset: each uuid now names another request's
//     record) and content pairs far more records than the uuids do, by content instead;
//  3. records renamed by an unseeded uuid, by their content without identity fields;
//  4. records renamed that also carry a second cause (float noise in a derived value), by
//     what the trace fixes (arrival time, lengths) when that names one record on each side,
//     so the renaming and the second cause are both seen field by field; records the trace
//     cannot tell apart, as many on each side, by equal outcome (every value but identity and
//     placement), then by placement, then in the order each side wrote them (pairAlike).
//
// Content and trace keys are read on the members both sides' records have (schema: a field
// added, removed or renamed between versions would otherwise unpair every record). What is
// left is removed (only in A) or added (only in B). Pairs are in B's order.
func pairRecords(a, b *Doc, ea, eb []int32, ua, ub []string, schema *RecordSchema) (pairs []pair, onlyA, onlyB []int) {
	fingerprint := func(d *Doc, e int32) string {
		return WithoutKeys(d.Scanner, e, func(k string) bool { return IDKeys[k] || schema.oneSided(k) })
	}
	same := len(ea) == len(eb)
	for k := 0; same && k < len(ea); k++ {
		same = ua[k] == ub[k]
	}
	if same {
		pairs = make([]pair, len(ea))
		for k := range ea {
			pairs[k] = pair{k, k}
		}
		return pairs, nil, nil
	}
	byUUID := make(map[string]int, len(eb))
	for k, u := range ub {
		byUUID[u] = k
	}
	for k, u := range ua {
		if j, ok := byUUID[u]; ok && u != "" {
			pairs = append(pairs, pair{k, j})
		}
	}
	onlyA, onlyB = unpaired(len(ea), len(eb), pairs)
	if len(onlyA) > 0 && len(onlyB) > 0 {
		if cp, ok := contentPairs(ea, eb, pairs, func(side int, e int32) string { return fingerprint([]*Doc{a, b}[side], e) }); ok {
			pairs = cp
			onlyA, onlyB = unpaired(len(ea), len(eb), pairs)
		}
	}
	if len(onlyA) > 0 && len(onlyB) > 0 {
		fp := map[string][]int{}
		for _, j := range onlyB {
			k := fingerprint(b, eb[j])
			fp[k] = append(fp[k], j)
		}
		for _, k := range onlyA {
			f := fingerprint(a, ea[k])
			if js := fp[f]; len(js) > 0 {
				pairs = append(pairs, pair{k, js[0]})
				fp[f] = js[1:]
			}
		}
		onlyA, onlyB = unpaired(len(ea), len(eb), pairs)
	}
	if len(onlyA) > 0 && len(onlyB) > 0 {
		pairs = append(pairs, pairByTrace(a, b, ea, eb, onlyA, onlyB, schema)...)
		onlyA, onlyB = unpaired(len(ea), len(eb), pairs)
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].b < pairs[j].b })
	return pairs, onlyA, onlyB
}

// unpaired lists the records of A (of nA) and of B (of nB) no pair names, in order.
func unpaired(nA, nB int, pairs []pair) (onlyA, onlyB []int) {
	inA, inB := make([]bool, nA), make([]bool, nB)
	for _, p := range pairs {
		inA[p.a], inB[p.b] = true, true
	}
	for k, in := range inA {
		if !in {
			onlyA = append(onlyA, k)
		}
	}
	for j, in := range inB {
		if !in {
			onlyB = append(onlyB, j)
		}
	}
	return onlyA, onlyB
}

// contentPairs pairs every record of A with a record of B of equal content without identity
// fields, and reports whether that pairs more than half the records and more than twice as
// many records with equal content as the uuid pairing (byUUID) does.
func contentPairs(ea, eb []int32, byUUID []pair, fingerprint func(int, int32) string) ([]pair, bool) {
	fa := make([]string, len(ea))
	for k := range ea {
		fa[k] = fingerprint(0, ea[k])
	}
	fb := map[string][]int{}
	fbOf := make([]string, len(eb))
	for j := range eb {
		fbOf[j] = fingerprint(1, eb[j])
		fb[fbOf[j]] = append(fb[fbOf[j]], j)
	}
	same := 0
	for _, p := range byUUID {
		if fa[p.a] == fbOf[p.b] {
			same++
		}
	}
	var out []pair
	for k, f := range fa {
		if js := fb[f]; len(js) > 0 {
			out = append(out, pair{k, js[0]})
			fb[f] = js[1:]
		}
	}
	return out, 2*len(out) > len(ea) && len(out) > 2*same
}

// TraceKeys are the members of a request record the trace itself fixes.
var TraceKeys = []string{"arrival_time_ms", "input_length", "requested_output_length", "turn_index"}

// pairByTrace pairs leftover records whose trace-fixed members (those both sides' records
// have) are equal and unique on both sides, or equal in as many records on each side.
func pairByTrace(a, b *Doc, ea, eb []int32, onlyA, onlyB []int, schema *RecordSchema) (pairs []pair) {
	var keys []string
	for _, k := range TraceKeys {
		if !schema.oneSided(k) {
			keys = append(keys, k)
		}
	}
	key := func(d *Doc, e int32) string {
		var sb strings.Builder
		for _, k := range keys {
			if v, ok := d.Scanner.Member(e, k); ok {
				sb.WriteString(d.Raw(v))
			}
			sb.WriteByte(0)
		}
		return sb.String()
	}
	count := func(d *Doc, es []int32, idx []int) map[string][]int {
		m := map[string][]int{}
		for _, k := range idx {
			f := key(d, es[k])
			m[f] = append(m[f], k)
		}
		return m
	}
	ka, kb := count(a, ea, onlyA), count(b, eb, onlyB)
	done := map[string]bool{}
	for _, k := range onlyA {
		f := key(a, ea[k])
		switch {
		case len(ka[f]) == 1 && len(kb[f]) == 1:
			pairs = append(pairs, pair{k, kb[f][0]})
		case len(ka[f]) == len(kb[f]) && f != strings.Repeat("\x00", len(keys)) && !done[f]:
			// Requests the trace cannot tell apart (same arrival, same lengths), as many on
			// each side: interchangeable.
			done[f] = true
			pairs = append(pairs, pairAlike(a, b, ea, eb, ka[f], kb[f], schema)...)
		}
	}
	return pairs
}

// placementKeys are the members of a record that say where it was placed.
var placementKeys = []string{"prefill_worker_idx", "decode_worker_idx", "worker_id", "dp_rank"}

// pairAlike pairs records of A (ga) and B (gb) the trace cannot tell apart: first those whose
// every value but identity and placement is equal (one request placed on another worker, the
// workers renamed or the tie broken otherwise: pairing by placement would cross them), then,
// among the rest, records placed alike (the side that wrote them in another order, as they
// finished, did not place them otherwise), then in the order each side wrote them.
func pairAlike(a, b *Doc, ea, eb []int32, ga, gb []int, schema *RecordSchema) (pairs []pair) {
	outcome := func(d *Doc, e int32) string {
		return WithoutKeys(d.Scanner, e, func(k string) bool { return IDKeys[k] || schema.oneSided(k) || slices.Contains(placementKeys, k) })
	}
	alike := map[string][]int{} // outcome → B's records of it, in the order B wrote them
	for _, j := range gb {
		f := outcome(b, eb[j])
		alike[f] = append(alike[f], j)
	}
	var restA, restB []int
	paired := map[int]bool{}
	for _, k := range ga {
		f := outcome(a, ea[k])
		if js := alike[f]; len(js) > 0 {
			pairs = append(pairs, pair{k, js[0]})
			paired[js[0]] = true
			alike[f] = js[1:]
			continue
		}
		restA = append(restA, k)
	}
	for _, j := range gb {
		if !paired[j] {
			restB = append(restB, j)
		}
	}
	placed := func(d *Doc, es []int32, idx []int) {
		key := func(k int) string {
			var sb strings.Builder
			for _, w := range placementKeys {
				if v, ok := d.Scanner.Member(es[k], w); ok {
					sb.WriteString(d.Raw(v))
				}
				sb.WriteByte(0)
			}
			return sb.String()
		}
		sort.SliceStable(idx, func(i, j int) bool { return key(idx[i]) < key(idx[j]) })
	}
	placed(a, ea, restA)
	placed(b, eb, restB)
	for n := range restA {
		pairs = append(pairs, pair{restA[n], restB[n]})
	}
	return pairs
}

// emissionOrder says when the paired records stand in another order in B than in A and
// neither side is sorted by uuid (as the canonical profile sorts them): a run that writes its
// records as requests finish. The pairing is by identity, so the order is no difference, but
// it is said, not left to the pairing. pairs are in B's order.
func emissionOrder(pairs []pair, ua, ub []string) string {
	if slices.IsSorted(ua) || slices.IsSorted(ub) || len(pairs) < 2 {
		return ""
	}
	moved, last := 0, -1
	for _, p := range pairs {
		if p.a < last {
			moved++
		}
		last = max(last, p.a)
	}
	if moved == 0 {
		return ""
	}
	return fmt.Sprintf("records emitted in another order: %d of %d paired records stand earlier in B than in A's order (records written as requests finish, not sorted by uuid); paired by identity, so the order itself is no difference", moved, len(pairs))
}
