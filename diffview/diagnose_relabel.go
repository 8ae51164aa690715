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
	n, until, desc := relabeling(decs)
	if n == 0 || !math.IsInf(until, 1) || desc == "" {
		return nil
	}
	maps := map[string]bool{} // "A→B" pairs the renaming holds, over every pool
	for _, x := range decs {
		maps[strings.Trim(x.wa, `"`)+"→"+strings.Trim(x.wb, `"`)] = true
	}
	explained := 0
	for _, c := range d.Changes {
		if c.Kind != Changed || !workerKeys[lastSeg(c.Pointer)] {
			return nil
		}
		if _, err := strconv.Atoi(c.A); err != nil || !maps[c.A+"→"+c.B] {
			return nil
		}
		explained++
	}
	ev := []string{
		fmt.Sprintf("every one of %d routing decisions maps A's worker to B's by one consistent renaming (%s); %d decision(s) changed", len(decs), desc, n),
		fmt.Sprintf("all %d differences are placements the renaming accounts for: no time, length or overlap moved", explained),
		"identical workers tied on cost and were visited in another order (map iteration or unsorted candidates): the runs are alpha-equivalent",
	}
	return &Signature{Code: SigIDDrift, Label: "consistent renaming of workers (" + desc + ")", Evidence: ev, Explains: explained}
}
