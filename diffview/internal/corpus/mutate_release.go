package corpus

import (
	"fmt"
	"slices"
	"strconv"
)

// Release: mutations over a real run of Dynamo's release replay (python -m dynamo.replay of
// ai-dynamo, its --report-jsonl records laid out as /per_request; base.Release). Its records
// carry no routing history, pressure or metadata, so the other families' mutators do not
// apply; these make what the release itself does between runs and versions, with a known
// cause: a placement tie of equal outcome, a field added to every record or renamed, records
// written in another order (nothing differs), uuids drawn anew.

func releaseVariants() []variant {
	rel := func(name, primary string, equal bool, apply func(*mutation) error) variant {
		return variant{family: "release", name: name, primary: primary, equal: equal, release: true, apply: apply}
	}
	return []variant{
		rel("placement-tie", "tie-order", false, releasePlacementTie),
		rel("field-added", "schema-change", false, func(m *mutation) error { return releaseField(m, "last_token_ms", "finished_ms", false) }),
		rel("field-renamed", "schema-change", false, func(m *mutation) error { return releaseField(m, "output_length", "generated_tokens", true) }),
		rel("emission-order", "", true, releaseShuffle),
		rel("uuid-v4", "id-drift", false, func(m *mutation) error { return renameRequests(m, 1, v4Namer(m)) }),
	}
}

// releasePlacementTie puts a few requests on another of the run's workers and changes nothing
// else of them: the outcome is equal, the tie broken another way.
func releasePlacementTie(m *mutation) error {
	reqs := m.b.Requests()
	var workers []any // the run's workers, as it spells them
	for _, r := range reqs {
		if w, ok := r["decode_worker_idx"]; ok && w != nil && !slices.Contains(workers, w) {
			workers = append(workers, w)
		}
	}
	if len(workers) < 2 {
		return errNotHere
	}
	n := 2 + m.rng.IntN(3)
	first := -1
	var firstAt float64
	for _, i := range m.rng.Perm(len(reqs))[:min(n, len(reqs))] {
		k := slices.Index(workers, reqs[i]["decode_worker_idx"])
		if k < 0 {
			continue // (a record with no decode worker)
		}
		reqs[i]["decode_worker_idx"] = workers[(k+1+m.rng.IntN(len(workers)-1))%len(workers)]
		if at, ok := numOf(reqs[i]["arrival_time_ms"]); ok && (first < 0 || at < firstAt) {
			first, firstAt = i, at
		}
	}
	m.cause = []string{"/per_request/" + strconv.Itoa(first) + "/decode_worker_idx"}
	m.note("%d requests placed on another worker, nothing else of theirs changed", n)
	return nil
}

// releaseField adds to every record of B a field holding the value of from (or, renamed,
// moves it there): a record schema that changed between versions.
func releaseField(m *mutation, from, to string, rename bool) error {
	n := 0
	for _, r := range m.b.Requests() {
		v, ok := r[from]
		if !ok {
			continue
		}
		r[to] = v
		if rename {
			delete(r, from)
		}
		n++
	}
	if n == 0 {
		return errNotHere
	}
	if rename {
		m.note("%s renamed %s in all %d records", from, to, n)
	} else {
		m.note("%s added to all %d records (a copy of %s)", to, n, from)
	}
	return nil
}

// releaseShuffle writes B's records in another order: paired by identity, nothing differs.
func releaseShuffle(m *mutation) error {
	a := m.b.arr("/per_request")
	if len(a) < 2 {
		return errNotHere
	}
	m.rng.Shuffle(len(a), func(i, j int) { a[i], a[j] = a[j], a[i] })
	m.note("the %d records written in another order", len(a))
	return nil
}

// releaseBase lays out the records of a release run's --report-jsonl as a report
// ({"per_request": [...]}, in the order the run wrote them) and makes it a base.
func releaseBase(name string, records []byte) (base, error) {
	var lines []any
	for no, line := range splitLines(records) {
		r, err := decode(line)
		if err != nil {
			return base{}, fmt.Errorf("%s:%d: %w", name, no+1, err)
		}
		lines = append(lines, r.root)
	}
	rep := &reportTree{root: map[string]any{"per_request": lines}}
	b, err := newBase(name, rep.Encode())
	if err != nil {
		return base{}, err
	}
	b.Release, b.Engine, b.Topology = true, "release", "replay"
	return b, nil
}

// splitLines lists the non-blank lines of b.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		k := slices.Index(b, '\n')
		line := b
		if k >= 0 {
			line, b = b[:k], b[k+1:]
		} else {
			b = nil
		}
		if len(line) > 0 {
			out = append(out, line)
		}
	}
	return out
}
