package diagnose

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"kvparity/diffview"
)

// ---- a consistent renaming of workers ----

// workerKeys name the worker a request or event was placed on; dp_rank is renamed the same
// way when ranks are interchangeable.
var workerKeys = map[string]bool{"logical_worker_id": true, "scheduler_id": true, "worker_id": true,
	"prefill_worker_idx": true, "decode_worker_idx": true, "dp_rank": true}

// A namespace is one kind of interchangeable placement (workers, dp ranks) and the renaming
// the run's decisions hold for it.
type namespace struct {
	name  string
	get   func(*decision) (string, string)
	keys  func(string) bool
	pairs map[string]bool // "A→B" values the renaming holds, over every pool
	desc  string
	n     int
}

// renamedPlacement says the placement member key changed from a to b as one of the
// renamings holds.
func renamedPlacement(renamed []*namespace, key, a, b string) bool {
	for _, ns := range renamed {
		if ns.keys(key) && ns.pairs[a+"→"+b] {
			return true
		}
	}
	return false
}

// renamings is wholeRunRenamings of the diff's decisions, computed once (three lenses ask).
func (d *Diff) renamings() []*namespace {
	if !d.renamedSet {
		d.renamed, d.renamedSet = wholeRunRenamings(d.renamingDecisions()), true
	}
	return d.renamed
}

// renamingDecisions are the routing decisions, or, when the records hold none (a release
// replay's), the records' own placements.
func (d *Diff) renamingDecisions() []decision {
	if decs := d.decisions(); len(decs) > 0 {
		return decs
	}
	return d.recordPlacements()
}

// wholeRunRenamings are the placements (workers, dp ranks) that every routing decision of the
// run maps from A to B by one consistent renaming per pool, with at least one renamed.
func wholeRunRenamings(decs []decision) []*namespace {
	spaces := []*namespace{
		{name: "workers", get: func(x *decision) (string, string) { return x.wa, x.wb }, keys: func(k string) bool { return workerKeys[k] && k != "dp_rank" }},
		{name: "dp ranks", get: func(x *decision) (string, string) { return x.da, x.db }, keys: func(k string) bool { return k == "dp_rank" }},
	}
	var renamed []*namespace
	for _, ns := range spaces {
		n, until, desc := relabelingOf(decs, ns.get)
		if n == 0 || !math.IsInf(until, 1) || desc == "" {
			continue
		}
		ns.n, ns.desc, ns.pairs = n, desc, map[string]bool{}
		for i := range decs {
			a, b := ns.get(&decs[i])
			ns.pairs[a+"→"+b] = true
		}
		renamed = append(renamed, ns)
	}
	return renamed
}

// detectWorkerRelabel applies the renaming lens to workers and dp ranks: every routing
// decision of the run, changed or not, maps A's placement to B's by one bijection per pool
// (identical idle workers visited in another order). Every differing placement must be one the
// renaming accounts for, and it explains those (and the KV digest, whose events name the
// worker); other differences are a second cause's, left to their lenses. A renaming that
// breaks during the run is no renaming: the cascade lens speaks from the flip that breaks it.
// It is a placement tie (issue 41), not id drift: workers tied on cost are another entropy
// source than random request ids, with another fix, so it is a cause of its own beside them.
func detectWorkerRelabel(d *Diff) *Signature {
	decs := d.renamingDecisions()
	renamed := d.renamings()
	if len(renamed) == 0 {
		return nil
	}
	// Every differing placement must be one the renaming accounts for; other differences (a
	// second cause: a step taken late) are left to their own lenses.
	var explained []int
	others := 0
	digest := false
	for i, c := range d.Changes {
		k := diffview.LastSegment(c.Pointer)
		if c.Pointer == "/coverage/kv_ingest/blake3_256" {
			// KV events name the worker that stored them: the event stream's digest follows
			// the renaming (its counts, when they differ, are another cause's).
			digest = true
			explained = append(explained, i)
			continue
		}
		if c.Kind != diffview.Changed || !workerKeys[k] {
			others++
			continue
		}
		if _, err := strconv.Atoi(c.A); err != nil {
			return nil
		}
		if !renamedPlacement(renamed, k, c.A, c.B) {
			return nil
		}
		explained = append(explained, i)
	}
	var what, descs []string
	var ev []string
	for _, ns := range renamed {
		what = append(what, ns.name)
		descs = append(descs, ns.desc)
		what, unit := "routing decisions", "decision(s)"
		if len(d.decisions()) == 0 {
			what, unit = "records' placements", "placement(s)" // no routing history: each record's own workers
		}
		ev = append(ev, fmt.Sprintf("every one of %d %s maps A's %s to B's by one consistent renaming (%s); %d %s changed", len(decs), what, ns.name, ns.desc, ns.n, unit))
	}
	if digest {
		ev = append(ev, "the KV event stream's digest (/coverage/kv_ingest/blake3_256) follows: its events name the worker that stored them")
	}
	// The count said is the count claimed: the rest (ids drawn anew, a time that moved) is
	// named by the causes beside this one, not here.
	if others == 0 {
		ev = append(ev, fmt.Sprintf("all %d differences follow the renaming: no time, length or overlap moved", len(explained)))
	} else {
		parts := "placements it renames"
		if digest {
			parts += ", the KV digest"
		}
		ev = append(ev, fmt.Sprintf("%d differing pointer(s) follow the renaming (%s); the other %d difference(s) are other causes'", len(explained), parts, others))
	}
	ev = append(ev,
		"identical candidates tied on cost and were visited in another order (map iteration or unsorted candidates): the runs are alpha-equivalent",
		"a placement tie among interchangeable workers, not an identity: its fix is the router's tie-break (candidates in a fixed order, a seeded choice), not the request ids")
	return &Signature{Code: SigTieOrder, Label: "consistent renaming of " + strings.Join(what, " and ") + " (" + strings.Join(descs, "; ") + ")", Evidence: ev, Explains: len(explained), Changes: explained, placement: true}
}
