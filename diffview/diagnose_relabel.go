package diffview

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ---- a consistent renaming of workers ----

// workerKeys name the worker a request or event was placed on; dp_rank is renamed the same
// way when ranks are interchangeable.
var workerKeys = map[string]bool{"logical_worker_id": true, "scheduler_id": true, "worker_id": true,
	"prefill_worker_idx": true, "decode_worker_idx": true, "dp_rank": true}

// detectWorkerRelabel applies the renaming lens to workers: every routing decision of the
// run, changed or not, maps A's worker to B's by one bijection per pool (identical idle workers
// visited in another order), and the differences are exactly the placements it renames — no
// time, length or overlap moved. That is an alpha-equivalent run, not a cascade; when anything
// else differs, the cascade lens speaks instead.
func detectWorkerRelabel(d *Diff) *Signature {
	decs := d.decisions()
	type namespace struct {
		name  string
		get   func(*decision) (string, string)
		keys  func(string) bool
		pairs map[string]bool // "A→B" values the renaming holds, over every pool
		desc  string
		n     int
	}
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
	if len(renamed) == 0 {
		return nil
	}
	explained := 0
	for _, c := range d.Changes {
		k := lastSeg(c.Pointer)
		if c.Kind != Changed || !workerKeys[k] {
			return nil
		}
		if _, err := strconv.Atoi(c.A); err != nil {
			return nil
		}
		held := false
		for _, ns := range renamed {
			held = held || (ns.keys(k) && ns.pairs[c.A+"→"+c.B])
		}
		if !held {
			return nil
		}
		explained++
	}
	var what, descs []string
	var ev []string
	for _, ns := range renamed {
		what = append(what, ns.name)
		descs = append(descs, ns.desc)
		ev = append(ev, fmt.Sprintf("every one of %d routing decisions maps A's %s to B's by one consistent renaming (%s); %d decision(s) changed", len(decs), ns.name, ns.desc, ns.n))
	}
	ev = append(ev,
		fmt.Sprintf("all %d differences are placements the renaming accounts for: no time, length or overlap moved", explained),
		"identical candidates tied on cost and were visited in another order (map iteration or unsorted candidates): the runs are alpha-equivalent")
	return &Signature{Code: SigIDDrift, Label: "consistent renaming of " + strings.Join(what, " and ") + " (" + strings.Join(descs, "; ") + ")", Evidence: ev, Explains: explained}
}
