package diagnose

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"kvparity/diffview"
)

// ---- constant-quantum shifts ----

// quantumField says a per-request or event member is a virtual timestamp or a difference of
// two (so a shifted decision moves it by whole quanta). Means (itl_ms) are excluded.
func quantumField(key string) bool {
	if _, ok := diffview.TimeFields[key]; ok {
		return true
	}
	switch key {
	case "at_ms", "ttft_ms", "ttst_ms", "e2e_latency_ms", "queue_wait_ms", "queue_entered_at_ms", "released_at_ms", "readmitted_at_ms":
		return true
	}
	return false
}

// A quantumDelta is one virtual-time value's shift B − A, with its change and event time.
type quantumDelta struct {
	i  int
	x  float64
	at float64
}

func detectQuantum(d *Diff) *Signature {
	var ds []quantumDelta
	for i, c := range d.Changes {
		if c.Kind != diffview.Changed || !strings.HasPrefix(c.Pointer, "/per_request/") && !strings.HasPrefix(c.Pointer, "/coverage/pressure/records/") {
			continue
		}
		if !quantumField(diffview.LastSegment(c.Pointer)) {
			continue
		}
		a, aok := diffview.ParseNumber(c.A)
		b, bok := diffview.ParseNumber(c.B)
		if !aok || !bok || a == b {
			continue
		}
		if noise(a, b) {
			continue // float noise, not a shift
		}
		if _, ok := epochLike(a); ok {
			continue // a wall-clock reading: the gap between the runs is not a step
		}
		at, _, _ := d.EventAt(i)
		ds = append(ds, quantumDelta{i, b - a, at})
	}
	if len(ds) < 2 || swapped(d, ds) {
		return nil
	}
	if q, mult, ok := sharedQuantum(ds); ok && shiftedEvents(d, ds) >= 2 {
		ev := []string{
			fmt.Sprintf("every one of %d virtual-time deltas is a whole multiple of %s ms (%s)", len(ds), strconv.FormatFloat(q, 'g', 7, 64), multiples(mult)),
			shiftedFields(d, ds),
		}
		// The summary's aggregates of the shifted times (means, maxima, the duration) follow.
		shifted := make([]int, 0, len(ds))
		for _, x := range ds {
			shifted = append(shifted, x.i)
		}
		derived := 0
		for i := range d.Changes {
			if c := &d.Changes[i]; strings.HasPrefix(c.Pointer, "/summary/") && c.Kind == diffview.Changed && isNumber(c.A) && isNumber(c.B) {
				derived++
				shifted = append(shifted, i)
			}
		}
		if derived > 0 {
			ev = append(ev, fmt.Sprintf("%d summary value(s) aggregate the shifted times and follow them", derived))
		}
		ev = append(ev, "a discrete step (a pass, a transfer quantum) was taken a different number of times: look for the first divergent decision")
		return &Signature{Code: SigQuantum, Label: "constant-quantum shifts of " + strconv.FormatFloat(q, 'g', 7, 64) + " ms", Evidence: ev, Explains: len(ds) + derived, Changes: shifted, Quantum: q}
	}
	return earliestQuantum(d, ds)
}

// earliestQuantum: the earliest shifts in virtual time are whole multiples of one quantum and
// later ones are not: a step taken late at the first divergence moved everything after it,
// and the moved steps then met other batches (other step times), so the shifts stop being
// whole. The quantum is the cause of all that follows, as a flipped decision is a cascade's.
func earliestQuantum(d *Diff, ds []quantumDelta) *Signature {
	f := d.First
	if f == nil || !f.Timed || math.IsInf(f.AtMs, -1) {
		return nil
	}
	slices.SortStableFunc(ds, func(a, b quantumDelta) int { return cmp.Compare(a.at, b.at) })
	if ds[0].at != f.AtMs {
		return nil // the first divergence is not a shifted time
	}
	// The longest prefix that shares a quantum (a prefix of a sharing set shares it).
	lo, hi := 0, len(ds)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if _, _, ok := sharedQuantum(ds[:mid]); ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	const minShifts = 4 // two or three deltas share some quantum too easily
	if lo < minShifts || lo == len(ds) || shiftedEvents(d, ds[:lo]) < 2 {
		return nil
	}
	q, mult, _ := sharedQuantum(ds[:lo])
	if q < 1e-3 {
		return nil
	}
	until := ds[lo].at
	after := atOrAfter(d, f.AtMs)
	n := len(after)
	ev := []string{
		fmt.Sprintf("the first %d virtual-time deltas, from t=%s ms until t=%s ms, are whole multiples of %s ms (%s)", lo, diffview.FormatMs(f.AtMs), diffview.FormatMs(until), strconv.FormatFloat(q, 'g', 7, 64), multiples(mult)),
		fmt.Sprintf("later shifts are not whole multiples: the shifted steps met other batches; %d of %d differences are at or after the first shift", n, len(d.Changes)),
		shiftedFields(d, ds[:lo]),
		"a discrete step (a pass, a transfer quantum) was taken late or a different number of times at the first divergence",
	}
	return &Signature{Code: SigQuantum, Label: "constant-quantum shifts of " + strconv.FormatFloat(q, 'g', 7, 64) + " ms from t=" + diffview.FormatMs(f.AtMs) + " ms", Evidence: ev, Explains: n, Changes: after, Quantum: q}
}

// sharedQuantum tries the smallest delta and its integer fractions and keeps the largest
// quantum that divides every delta within a relative tolerance (timestamps are sums of
// floats); it returns the best estimate over all deltas and the count of each multiple.
func sharedQuantum(ds []quantumDelta) (float64, map[int]int, bool) {
	minAbs := math.Inf(1)
	for _, x := range ds {
		minAbs = math.Min(minAbs, math.Abs(x.x))
	}
	for k := 1; k <= 12; k++ {
		q := minAbs / float64(k)
		if q < 1e-6 {
			break
		}
		mult := map[int]int{}
		ok := true
		sum, n := 0.0, 0.0
		for _, x := range ds {
			// The tolerance grows with the sum's length but never past a thousandth of the
			// quantum: a looser one lets any set of large multiples "share" a small quantum.
			m := math.Round(math.Abs(x.x) / q)
			if m < 1 || math.Abs(math.Abs(x.x)-m*q) > math.Min(1e-6*m*q, 1e-3*q)+1e-9 {
				ok = false
				break
			}
			mult[int(m)]++
			sum += math.Abs(x.x)
			n += m
		}
		if ok {
			return sum / n, mult, true
		}
	}
	return 0, nil, false
}

// multiples lists the count of each multiple, smallest first: "×1: 4, ×3: 2" (at most
// eight, then how many more).
func multiples(mult map[int]int) string {
	var ms []int
	for m := range mult {
		ms = append(ms, m)
	}
	sort.Ints(ms)
	var parts []string
	for k, m := range ms {
		if k == 8 {
			parts = append(parts, fmt.Sprintf("… %d more", len(ms)-8))
			break
		}
		parts = append(parts, fmt.Sprintf("×%d: %d", m, mult[m]))
	}
	return strings.Join(parts, ", ")
}

// shiftedEvents counts the requests and pressure records the shifts are in: one request's own
// shift, carried into its derived durations, is not a step taken again across the run.
func shiftedEvents(d *Diff, ds []quantumDelta) int {
	seen := map[string]bool{}
	for _, x := range ds {
		c := &d.Changes[x.i]
		key := c.Request
		if key == "" {
			_, key, _, _ = diffview.ElementPrefix(c.Pointer) // a pressure record
		}
		seen[key] = true
	}
	return len(seen)
}

// shiftedFields says which requests and fields the shifts are in.
func shiftedFields(d *Diff, ds []quantumDelta) string {
	reqs := map[string]bool{}
	fields := map[string]int{}
	for _, x := range ds {
		reqs[d.Changes[x.i].Request] = true
		fields[diffview.LastSegment(d.Changes[x.i].Pointer)]++
	}
	delete(reqs, "")
	return fmt.Sprintf("%d request(s) shifted; fields: %s", len(reqs), countList(fields))
}

// swapped says the shifted values are one multiset in both runs, per field: the same
// instants exchanged between events (a reorder), not a step taken more often.
func swapped(d *Diff, ds []quantumDelta) bool {
	as, bs := map[string][]string{}, map[string][]string{}
	for _, x := range ds {
		c := &d.Changes[x.i]
		k := diffview.LastSegment(c.Pointer)
		as[k], bs[k] = append(as[k], c.A), append(bs[k], c.B)
	}
	for k := range as {
		if !sameMultiset(as[k], bs[k]) {
			return false
		}
	}
	return true
}

// ---- decision-flip cascade ----

// A flipTest says whether a differing decision was decided otherwise, or only reads
// otherwise: a renamed request named as the victim, same-time records stored in another order,
// interchangeable workers renamed over the whole run, a number spelled another way. It is
// built once per lens and asked per change.
type flipTest struct {
	renames   map[string]string
	relabeled []*namespace
	pressure  *arrayView      // B's pressure records
	inA       map[string]bool // A's pressure records, by time and content without ordinals
}

const pressureRecords = "/coverage/pressure/records"

func newFlipTest(d *Diff) flipTest {
	f := flipTest{renames: uuidRenames(d), relabeled: d.renamings()}
	va := viewArray(d.DocA, pressureRecords)
	if f.pressure = viewArray(d.DocB, pressureRecords); va != nil && f.pressure != nil {
		f.inA = make(map[string]bool, len(va.elems))
		for e := range va.elems {
			f.inA[va.time(e)+"\x00"+va.withoutOrdinals(e)] = true
		}
	}
	return f
}

// reorderedVictim says a pressure record's differing decision (its victim, its worker) is one
// A holds at the same instant: B's record, without its ordinals, is one of A's records at that
// time. The same-time records were stored in another order (the tie lens), not another victim
// chosen.
func (f flipTest) reorderedVictim(c *diffview.Change) bool {
	arr, k, ok := arrayPrefix(c.Pointer)
	if !ok || arr != pressureRecords || f.inA == nil || k >= len(f.pressure.elems) {
		return false
	}
	return f.inA[f.pressure.time(k)+"\x00"+f.pressure.withoutOrdinals(k)]
}

func (f flipTest) flipped(c *diffview.Change) bool {
	switch {
	case c.Kind != diffview.Changed || !diffview.DecisionKey(c.Pointer):
		return false
	case diffview.LastSegment(c.Pointer) == "request_uuid" && f.renames[strings.Trim(c.A, `"`)] == strings.Trim(c.B, `"`):
		return false
	case f.reorderedVictim(c), renamedPlacement(f.relabeled, diffview.LastSegment(c.Pointer), c.A, c.B), sameNumber(c.A, c.B):
		return false
	}
	return true
}

func detectCascade(d *Diff) *Signature {
	flips := newFlipTest(d)
	first := -1
	var ft float64
	var fev string
	for i := range d.Changes {
		c := &d.Changes[i]
		if !flips.flipped(c) {
			continue
		}
		t, ok, ev := d.EventAt(i)
		if !ok {
			continue
		}
		if first < 0 || t < ft || (t == ft && diffview.DecisionRank(c.Pointer) < diffview.DecisionRank(d.Changes[first].Pointer)) {
			first, ft, fev = i, t, ev
		}
	}
	if first < 0 {
		return nil
	}
	c := d.Changes[first]
	// A decision taken at another instant in B than in A is no flip at that instant: the
	// request reached the decision otherwise timed, and the timing is the earlier cause.
	movedA, movedB, moved := d.decisionTimes(&c)
	after, before, config, moves := 0, 0, 0, 0
	var follows []int // the changes at or after the flip
	reqs := map[string]bool{}
	for i := range d.Changes {
		t, ok, _ := d.EventAt(i)
		if ok && math.IsInf(t, -1) {
			config++ // a differing setting is a cause, not a history event before the flip
			continue
		}
		if d.claimedByVersion(i) {
			continue // a member one release line writes: the layout, no history event
		}
		if ok && t < ft {
			// A renamed request's identity and one version's extra fields precede nothing:
			// they do not make the flip a consequence.
			if c := &d.Changes[i]; !d.SchemaPointer(c) && !(c.RequestA != "" && diffview.IDKeys[diffview.LastSegment(c.Pointer)]) {
				before++
			}
			continue
		}
		after++
		follows = append(follows, i)
		if c := &d.Changes[i]; !diffview.DecisionKey(c.Pointer) && !d.SchemaPointer(c) && !(diffview.IDKeys[diffview.LastSegment(c.Pointer)] && strings.Count(c.Pointer, "/") == 3) {
			moves++ // a value that follows the decisions, not one of them or an identity
		}
		if r := d.Changes[i].Request; r != "" {
			reqs[r] = true
		}
	}
	if moves == 0 {
		return nil // the decisions differ and nothing follows from them: ties, not a cascade
	}
	who := ""
	if c.Request != "" {
		who = " of request " + c.Request
	}
	ev := []string{
		fmt.Sprintf("first differing decision: %s%s at t=%s ms: %s %s → %s", fev, who, diffview.FormatMs(ft), diffview.LastSegment(c.Pointer), c.A, c.B),
		fmt.Sprintf("%d of %d differences are at or after it in virtual time, across %d request(s)", after, len(d.Changes), len(reqs)),
	}
	if before > 0 {
		ev = append(ev, fmt.Sprintf("%d difference(s) precede it: the flip itself has an earlier cause", before))
	}
	if moved {
		ev = append(ev, fmt.Sprintf("the decision itself was taken at t=%s ms in A and t=%s ms in B: the request reached it otherwise timed, so the flip follows a moved time", diffview.FormatMs(movedA), diffview.FormatMs(movedB)))
	}
	switch {
	case config > 0 && d.configSchemaOnly() && d.versionLayout() != nil:
		ev = append(ev, fmt.Sprintf("%d metadata member(s) differ before virtual time 0: the configuration laid out another way, no setting differs (the report version changed: see the version-change signature)", config))
	case config > 0 && d.configSchemaOnly():
		ev = append(ev, fmt.Sprintf("%d metadata member(s) differ before virtual time 0: the configuration laid out another way, no setting differs (see the schema-change signature)", config))
	case config > 0:
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
				s += fmt.Sprintf(" until t=%s ms", diffview.FormatMs(until))
			}
			ev = append(ev, s+": identical candidates visited in another order (map iteration or unsorted candidates)")
		}
	}
	return &Signature{Code: SigCascade, Label: "decision-flip cascade from " + fev + who, Evidence: ev, Explains: after, Changes: follows, consequence: before > 0 || moved, flipAt: ft, flipMoved: moved}
}

// decisionTimes are the instants of the decision change c belongs to in A and in B (a record's
// placement at its hand-off instants, or its arrival; a routing decision at its queue entry,
// its decode hand-off or its arrival), and whether both are known and differ.
func (d *Diff) decisionTimes(c *diffview.Change) (ta, tb float64, moved bool) {
	segs := diffview.SplitPointer(c.Pointer)
	if c.IndexA < 0 || c.IndexB < 0 || len(segs) < 3 || segs[0] != "per_request" {
		return 0, 0, false
	}
	keys := []string{"arrival_time_ms"}
	switch f := segs[2]; {
	case f == "routing_history" && len(segs) >= 4:
		k, _ := strconv.Atoi(segs[3])
		a, aok := d.DocA.ElementMember(c.IndexA, f, k, "queue_entered_at_ms")
		b, bok := d.DocB.ElementMember(c.IndexB, f, k, "queue_entered_at_ms")
		if aok && bok {
			return sideTimes(a, b)
		}
		if _, _, pool := d.ElementField(c, f, k, "pool"); strings.Trim(pool, `"`) == "decode" {
			keys = diffview.DerivedFrom["decode_worker_idx"]
		}
	case diffview.DerivedFrom[f] != nil:
		keys = append(slices.Clone(diffview.DerivedFrom[f]), keys...)
	}
	for _, k := range keys {
		a, aok := d.DocA.Field(c.IndexA, k)
		b, bok := d.DocB.Field(c.IndexB, k)
		if aok && bok && a != "null" && b != "null" {
			return sideTimes(a, b)
		}
	}
	return 0, 0, false
}

// sideTimes reads two instants and says they differ.
func sideTimes(a, b string) (float64, float64, bool) {
	x, okx := diffview.ParseNumber(a)
	y, oky := diffview.ParseNumber(b)
	return x, y, okx && oky && x != y
}
