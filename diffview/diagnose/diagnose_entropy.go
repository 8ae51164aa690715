package diagnose

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"kvparity/diffview"
)

// ---- entropy: values that moved between two runs of one build ----

// entropy is earlyTiming's cause when the two runs are fresh processes of one build
// (Diff.Repetitions): nothing changed between them but entropy, so values that moved before any
// decision differed are a leak, never a timing model that changed. What moved says which leak
// (seed 000's two builds of dynamo-bench 1.4.2 show both): times moved by less than a
// microsecond are real time or executor order leaking into virtual time (a transfer reserved in
// the order the thread pool ran its tasks); a reuse count that differs is the order events were
// applied in (a router event published before another decides what a later request finds).
// moved are the changes earlyTiming found, first the earliest (at ft), flipAt the first differing
// decision (+Inf when none differs), fields their keys counted.
func entropy(d *Diff, moved []int, first int, ft, flipAt float64, fields map[string]int, cascade *Signature) *Signature {
	var subMicro, larger, reuse, other []int
	var subMax, largerMax float64
	for _, i := range moved {
		c := &d.Changes[i]
		x, _ := diffview.ParseNumber(c.A)
		y, _ := diffview.ParseNumber(c.B)
		delta := math.Abs(x - y)
		switch k := diffview.LastSegment(c.Pointer); {
		case reuseKey(k):
			reuse = append(reuse, i)
		case strings.HasSuffix(k, "_ms") && delta < 1e-3:
			subMicro, subMax = append(subMicro, i), max(subMax, delta)
		case strings.HasSuffix(k, "_ms"):
			larger, largerMax = append(larger, i), max(largerMax, delta)
		default:
			other = append(other, i)
		}
	}
	c := d.Changes[first]
	who := requestOf(c)
	earliest := fmt.Sprintf("the earliest: %s%s at t=%s ms: %s → %s", diffview.LastSegment(c.Pointer), who, diffview.FormatMs(ft), c.A, c.B)
	kind := "values moved"
	switch {
	case slices.Contains(larger, first):
		kind = "timings moved"
	case slices.Contains(subMicro, first):
		x, _ := diffview.ParseNumber(c.A)
		y, _ := diffview.ParseNumber(c.B)
		earliest += fmt.Sprintf(" (a move of %s)", formatSmallMs(math.Abs(x-y)))
		kind = "timings moved by less than a microsecond"
	case slices.Contains(reuse, first):
		kind = "a reuse count differs"
	}
	ev := []string{earliest}
	if cascade != nil {
		ev = append(ev, fmt.Sprintf("%d value(s) moved before t=%s ms, where the first decision differs (fields: %s)", len(moved), diffview.FormatMs(flipAt), topCounts(fields, 6)))
	} else {
		ev = append(ev, fmt.Sprintf("%d value(s) moved and no decision differs in the whole run (fields: %s)", len(moved), topCounts(fields, 6)))
	}
	if len(subMicro) > 0 {
		ev = append(ev, fmt.Sprintf("%d time(s) moved by less than a microsecond (the largest %s): real time or executor order leaking into virtual time",
			len(subMicro), formatSmallMs(subMax)))
	}
	if len(reuse) > 0 {
		r := d.Changes[reuse[0]]
		ev = append(ev, fmt.Sprintf("%d reuse count(s) differ (the first: %s%s, %s → %s): the order events were applied in (event order) decided what a request found cached",
			len(reuse), diffview.LastSegment(r.Pointer), requestOf(r), r.A, r.B))
	}
	if len(larger) > 0 {
		ev = append(ev, fmt.Sprintf("%d time(s) moved by a microsecond or more (the largest %s ms)", len(larger), diffview.FormatMs(largerMax)))
	}
	if len(other) > 0 {
		ev = append(ev, fmt.Sprintf("%d other value(s) moved", len(other)))
	}
	why := "the two runs are fresh processes of one build: nothing changed between them but entropy"
	if cascade != nil {
		why += ", and the cascade of differing decisions follows from it"
	}
	ev = append(ev, why)
	label := fmt.Sprintf("entropy: %s before any decision differed in two runs of one build (from t=%s ms%s)", kind, diffview.FormatMs(ft), who)
	if cascade == nil {
		label = fmt.Sprintf("entropy: %s in two runs of one build, no decision differs (from t=%s ms%s)", kind, diffview.FormatMs(ft), who)
	}
	return &Signature{Code: SigEntropy, Label: label, Evidence: ev, Explains: len(moved), Changes: moved, leads: true}
}

// repetitionQuantum is what a constant-quantum shift between two repetitions of one build is:
// a step taken late in one run, decided by entropy, not a model that takes its steps otherwise.
const repetitionQuantum = "the two runs are fresh processes of one build: a step taken late in one of them is entropy (executor order or real time deciding when a pass or a transfer ran)"

// repetitionQuantumLabel ends a constant-quantum label between two repetitions of one build.
const repetitionQuantumLabel = ": a step taken late in one run (entropy: executor order or real time)"

// topCounts is countList of the n most counted keys, and how many more there are.
func topCounts(m map[string]int, n int) string {
	keys := sortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	if len(keys) <= n {
		return countList(m)
	}
	top := map[string]int{}
	for _, k := range keys[:n] {
		top[k] = m[k]
	}
	return fmt.Sprintf("%s and %d more", countList(top), len(keys)-n)
}

// reuseKey reports whether a record key counts reuse (tokens or blocks found cached): an
// outcome of the order cache events were applied in, not a time.
func reuseKey(k string) bool {
	return strings.Contains(k, "reuse") || strings.Contains(k, "cached") || strings.Contains(k, "hit")
}

// formatSmallMs is a duration in ms in the unit that reads: "15 ns", "0.4 µs", else ms.
func formatSmallMs(ms float64) string {
	switch {
	case ms < 1e-3:
		return fmt.Sprintf("%.3g ns", ms*1e6)
	case ms < 1:
		return fmt.Sprintf("%.3g µs", ms*1e3)
	}
	return diffview.FormatMs(ms) + " ms"
}
