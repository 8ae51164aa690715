package diagnose

import (
	"fmt"
	"math"
	"strings"

	"kvparity/diffview"
)

// ---- values that moved before any decision differed ----

// earlyTiming is the cause of a cascade whose first flipped decision has differences before
// it (or, between two versions, of every difference when no decision differs at all), when
// those are values that moved (times, lengths, reuse: numbers, beyond last-digit
// noise), not identities, one version's extra fields or a renaming, and no lens that explains
// moved times (configuration, a clock, a quantum within one version, an ordering) has spoken:
// the engine timed the same requests otherwise before any decision differed (its timing model
// changed between versions). It is at the first divergence of the history and the cascade follows from it, so
// it leads (rankSignatures).
func earlyTiming(d *Diff, out []Signature) *Signature {
	// Between two versions (their record schemas differ, or their reports are of two release
	// lines) times shifted by whole quanta before any decision differs are the timing model's
	// too: a pass that takes another time in the other engine, not a step taken late in one
	// build. The quantum is still named, after this cause (issue 41: published 1.4.2 against
	// 1.5.1 and 1.6.1).
	twoVersions := !d.Schema.Empty() || d.versionLayout() != nil
	var cascade *Signature
	for i := range out {
		switch s := &out[i]; {
		case s.Code == SigCascade:
			cascade = s
		case s.Code == SigConfig, s.Code == SigChildBeforeParent, s.Code == SigWallClock, s.Code == SigQuantum && !twoVersions,
			s.Code == SigTieOrder && !s.placement:
			return nil // a cause that moves times is named already
		}
	}
	flipAt := math.Inf(1) // with no differing decision, every moved value is before one
	switch {
	case cascade != nil && !cascade.consequence:
		return nil
	case cascade != nil:
		flipAt = cascade.flipAt
	case !twoVersions && !d.Repetitions:
		// With no decision differing, moved values are any logic change: they read as the
		// timing model's only between two versions (their record schemas differ, or their
		// reports are of two release lines), and as entropy between two runs of one build.
		return nil
	default:
		flips := newFlipTest(d)
		for i := range d.Changes {
			if flips.flipped(&d.Changes[i]) {
				return nil // a decision differs that the cascade could not place in time
			}
		}
	}
	n, first := 0, -1
	var movedAt []int // the changes of the moved values
	var ft float64
	fields := map[string]int{}
	for i := range d.Changes {
		c := &d.Changes[i]
		t, ok, _ := d.EventAt(i)
		// (a flip taken at another instant: the values moved at its instant are before it)
		atFlip := ok && t == flipAt && cascade != nil && cascade.flipMoved
		if math.IsInf(t, -1) || (ok && t >= flipAt && !atFlip) || (!ok && cascade != nil) || c.Kind != diffview.Changed || d.SchemaPointer(c) {
			continue // (with no decision differing, untimed run-level values follow the moved ones)
		}
		k := diffview.LastSegment(c.Pointer)
		if diffview.IDKeys[k] || diffview.DecisionKey(c.Pointer) {
			continue
		}
		x, okx := diffview.ParseNumber(c.A)
		y, oky := diffview.ParseNumber(c.B)
		if !okx || !oky || noise(x, y) {
			continue
		}
		n++
		movedAt = append(movedAt, i)
		fields[k]++
		if ok && (first < 0 || t < ft) {
			first, ft = i, t
		}
	}
	if n == 0 || first < 0 {
		return nil
	}
	if d.Repetitions {
		return entropy(d, movedAt, first, ft, flipAt, fields, cascade)
	}
	c := d.Changes[first]
	who := requestOf(c)
	ev := []string{fmt.Sprintf("the earliest: %s%s at t=%s ms: %s → %s", diffview.LastSegment(c.Pointer), who, diffview.FormatMs(ft), c.A, c.B)}
	if cascade != nil {
		at := "before"
		if cascade.flipMoved {
			at = "by"
		}
		ev = append(ev, fmt.Sprintf("%d value(s) moved %s t=%s ms, where the first decision differs (fields: %s)", n, at, diffview.FormatMs(flipAt), countList(fields)),
			"no decision differs before them: the same requests on the same workers were timed otherwise (the engine's timing model changed), and the cascade of differing decisions follows from it")
	} else {
		ev = append(ev, fmt.Sprintf("%d value(s) moved and no decision differs in the whole run (fields: %s)", n, countList(fields)),
			"the records' schemas or the reports' release lines differ, so the runs are of two versions: the same requests on the same workers were timed otherwise (the engine's timing model changed), the run-level values follow")
	}
	label := "timings moved before any decision differed"
	if cascade == nil {
		label = "timings moved, no decision differs"
	}
	return &Signature{Code: SigTiming, Label: fmt.Sprintf("%s (from t=%s ms%s)", label, diffview.FormatMs(ft), who), Evidence: ev, Explains: n, Changes: movedAt, leads: true}
}

// requestOf is " of request ID" for a change of one request's record, else "".
func requestOf(c diffview.Change) string {
	if c.Request == "" {
		return ""
	}
	return " of request " + c.Request
}

// ---- a summary computed another way ----

// summaryDerivation: run-level statistics moved while every per-request value they are
// computed from is equal (the records differ only in identity fields, one version's extra
// fields or placements one renaming of the workers accounts for): the summary is computed another way (a percentile's method, a mean over tokens
// instead of requests), not from other results.
// Only the renaming, layout and noise lenses may have spoken: a clock, a quantum, a setting
// or a cascade moves summary values too.
func summaryDerivation(d *Diff, out []Signature) *Signature {
	for _, s := range out {
		switch s.Code {
		case SigIDDrift, SigSchema, SigVersion, SigFloatNoise, SigNumberSpelling:
		default:
			if !s.placement {
				return nil
			}
		}
	}
	if _, ok := d.DocA.Root["per_request"]; !ok {
		return nil
	}
	var ptrs []string
	var moved []int
	renamed := d.renamings()
	for i := range d.Changes {
		c := &d.Changes[i]
		if strings.HasPrefix(c.Pointer, "/per_request/") {
			k := diffview.LastSegment(c.Pointer)
			if d.SchemaPointer(c) || (diffview.IDKeys[k] && strings.Count(c.Pointer, "/") == 3) ||
				c.Kind == diffview.Changed && workerKeys[k] && renamedPlacement(renamed, k, c.A, c.B) { // (the workers under other names)
				continue
			}
			return nil // a per-request value moved: the summary may follow it
		}
		if !strings.HasPrefix(c.Pointer, "/summary/") {
			continue
		}
		if x, ok := numericDelta(c); ok && x != 0 {
			ptrs, moved = append(ptrs, c.Pointer), append(moved, i)
		}
	}
	if len(ptrs) == 0 {
		return nil
	}
	ev := []string{
		fmt.Sprintf("%d summary statistic(s) moved (%s) while every per-request value is equal in both runs", len(ptrs), strings.Join(ptrs[:min(4, len(ptrs))], ", ")),
		"the summary is computed another way from the same requests (a percentile's method, a mean's population): the report changed, not the run",
	}
	return &Signature{Code: SigSchema, Label: "summary computed another way (per-request values equal)", Evidence: ev, Explains: len(ptrs), Changes: moved}
}
