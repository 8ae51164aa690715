package diagnose

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"kvparity/diffview"
)

// ---- id / uuid drift ----

// uuidRenames maps A's request uuids to B's for records the diff paired by content or whose
// uuid field changed: the renaming lens.
func uuidRenames(d *Diff) map[string]string {
	m := map[string]string{}
	for _, c := range d.Changes {
		if c.Kind == diffview.Changed && c.RequestA != "" {
			m[c.RequestA] = c.Request
		}
	}
	return m
}

// detectIDDrift applies the renaming lens: the requests' own identity fields differ, the
// renaming A→B is a bijection, and references (request_uuid elsewhere) follow it.
func detectIDDrift(d *Diff) *Signature {
	fwd, back := map[string]string{}, map[string]string{}
	explained, renamedRecords, v4, total := 0, 0, 0, 0
	bijective := true
	var example string
	rename := func(a, b string) {
		if x, ok := fwd[a]; ok && x != b {
			bijective = false
		}
		if x, ok := back[b]; ok && x != a {
			bijective = false
		}
		fwd[a], back[b] = b, a
		if example == "" {
			example = a + " → " + b
		}
		total++
		if uuidV4(b) {
			v4++
		}
	}
	var refs []int
	var renamedAt []int
	for i, c := range d.Changes {
		key := diffview.LastSegment(c.Pointer)
		if !diffview.IDKeys[key] || c.Kind != diffview.Changed {
			continue
		}
		segs := diffview.SplitPointer(c.Pointer)
		if len(segs) != 3 || segs[0] != "per_request" {
			refs = append(refs, i) // a reference to an id, judged below
			continue
		}
		explained++
		renamedAt = append(renamedAt, i)
		rename(strings.Trim(c.A, `"`), strings.Trim(c.B, `"`))
		if c.RequestA != "" {
			renamedRecords++
		}
	}
	if explained == 0 {
		return nil // ids of other things changed, not the records' own: decisions, not drift
	}
	followed := 0
	for _, i := range refs {
		c := &d.Changes[i]
		a, b := strings.Trim(c.A, `"`), strings.Trim(c.B, `"`)
		if fwd[a] == b {
			followed++
			renamedAt = append(renamedAt, i)
			total++
			if uuidV4(b) {
				v4++
			}
		}
	}
	explained += followed
	ev := []string{fmt.Sprintf("%d request identity field(s) differ; %d id(s) renamed, e.g. %s", explained-followed, len(fwd), example)}
	if bijective {
		ev = append(ev, "the renaming A→B is a bijection: applying it makes those fields equal (alpha-equivalent)")
	} else {
		ev = append(ev, "the renaming is NOT consistent: one id maps to several")
	}
	if renamedRecords > 0 {
		// A renamed record that differs besides (a placement, a time) was paired by what the
		// trace fixes: "identical" is said only of those that are (counted per record, not
		// per identity field).
		alike, besides := renamedRecordsAlike(d)
		if alike > 0 {
			ev = append(ev, fmt.Sprintf("%d per-request record(s) paired by content: identical except their identity fields", alike))
		}
		if besides > 0 {
			ev = append(ev, fmt.Sprintf("%d renamed record(s) differ besides their identity fields: paired by what the trace fixes (arrival, lengths), their other differences are other causes'", besides))
		}
	}
	if followed > 0 {
		ev = append(ev, fmt.Sprintf("%d reference(s) to request ids (e.g. pressure records' request_uuid) follow the same renaming", followed))
	}
	if v4 > 0 {
		ev = append(ev, fmt.Sprintf("%d of %d B value(s) match the random UUIDv4 pattern (unseeded RNG; canonical ids are ordinal)", v4, total))
	}
	return &Signature{Code: SigIDDrift, Label: "id / uuid drift", Evidence: ev, Explains: explained, Changes: renamedAt}
}

// renamedRecordsAlike counts the records the pairing renamed (RequestA set): those whose
// only differing values are identity fields or one version's extra fields, and the others.
func renamedRecordsAlike(d *Diff) (alike, besides int) {
	renamed, differs := map[int]bool{}, map[int]bool{}
	for i := range d.Changes {
		c := &d.Changes[i]
		if c.IndexB < 0 || !strings.HasPrefix(c.Pointer, "/per_request/") {
			continue
		}
		if c.RequestA != "" {
			renamed[c.IndexB] = true
		}
		if !(diffview.IDKeys[diffview.LastSegment(c.Pointer)] && strings.Count(c.Pointer, "/") == 3) && !d.SchemaPointer(c) {
			differs[c.IndexB] = true
		}
	}
	for j := range renamed {
		if differs[j] {
			besides++
		} else {
			alike++
		}
	}
	return alike, besides
}

func uuidV4(s string) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' || s[14] != '4' {
		return false
	}
	switch s[19] {
	case '8', '9', 'a', 'b':
	default:
		return false
	}
	for i := 0; i < len(s); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			continue
		}
		if c := s[i]; !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ---- wall-clock leakage ----

// epochUnits are the magnitudes of "now" in seconds, ms, µs and ns (years 2001–2100).
var epochUnits = []struct {
	name  string
	scale float64
}{{"s", 1}, {"ms", 1e3}, {"µs", 1e6}, {"ns", 1e9}}

func epochLike(x float64) (string, bool) {
	for _, u := range epochUnits {
		if s := x / u.scale; s >= 978307200 && s < 4102444800 {
			return u.name, true
		}
	}
	return "", false
}

func detectWallClock(d *Diff) *Signature {
	var ev []string
	explained := 0
	var deltas []float64
	var readings []int
	for i, c := range d.Changes {
		hit := false
		for _, side := range []string{c.A, c.B} {
			if !isNumber(side) {
				if strings.HasPrefix(side, `"`) && rfc3339Like(side) {
					hit = true
					if len(ev) < 3 {
						ev = append(ev, fmt.Sprintf("%s = %s looks like a wall-clock date", c.Pointer, side))
					}
				}
				continue
			}
			x, _ := strconv.ParseFloat(side, 64)
			if unit, ok := epochLike(x); ok {
				hit = true
				if len(ev) < 3 {
					ev = append(ev, fmt.Sprintf("%s = %s is an epoch timestamp in %s", c.Pointer, side, unit))
				}
				break
			}
		}
		if hit {
			explained++
			readings = append(readings, i)
			a, aok := diffview.ParseNumber(c.A)
			b, bok := diffview.ParseNumber(c.B)
			if aok && bok {
				deltas = append(deltas, b-a)
			}
		}
	}
	if explained == 0 {
		return nil
	}
	if len(deltas) > 1 {
		lo, hi := deltas[0], deltas[0]
		for _, x := range deltas {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		ev = append(ev, fmt.Sprintf("B − A ranges over [%g, %g]: the gap between the two runs' start times", lo, hi))
	}
	ev = append([]string{fmt.Sprintf("%d differing value(s) are wall-clock readings, not virtual time", explained)}, ev...)
	return &Signature{Code: SigWallClock, Label: "wall-clock leakage", Evidence: ev, Explains: explained, Changes: readings}
}

func rfc3339Like(s string) bool {
	s = strings.Trim(s, `"`)
	if len(s) < 16 {
		return false
	}
	for i, c := range s[:16] {
		switch i {
		case 4, 7:
			if c != '-' {
				return false
			}
		case 10:
			if c != 'T' && c != ' ' {
				return false
			}
		case 13:
			if c != ':' {
				return false
			}
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

// ---- float last-digit noise ----

// maxNoiseULPs is the largest distance still called rounding noise (sums in another order).
const maxNoiseULPs = 64

// maxNoiseRel is the largest relative difference still called rounding noise: a sum of many
// terms taken in another order drifts by more ULPs than one operation does, but stays
// within about 1e-12 of itself (a wall-clock reading is off by microseconds, far more).
const maxNoiseRel = 1e-12

// noise says two unequal doubles differ only by floating-point rounding.
func noise(a, b float64) bool {
	if ulps(a, b) <= maxNoiseULPs {
		return true
	}
	m := math.Max(math.Abs(a), math.Abs(b))
	return m > 0 && math.Abs(a-b)/m <= maxNoiseRel
}

func detectFloatNoise(d *Diff) *Signature {
	explained := 0
	var maxU uint64
	maxRel := 0.0
	var example string
	var noisy []int
	for i, c := range d.Changes {
		if c.Kind != diffview.Changed || !isNumber(c.A) || !isNumber(c.B) {
			continue
		}
		a, err1 := strconv.ParseFloat(c.A, 64)
		b, err2 := strconv.ParseFloat(c.B, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		u := ulps(a, b)
		if u == 0 || !noise(a, b) {
			continue
		}
		explained++
		noisy = append(noisy, i)
		if u > maxU {
			maxU = u
			example = fmt.Sprintf("%s %s vs %s (%d ULP)", c.Pointer, c.A, c.B, u)
		}
		if m := math.Max(math.Abs(a), math.Abs(b)); m > 0 {
			maxRel = math.Max(maxRel, math.Abs(a-b)/m)
		}
	}
	if explained == 0 {
		return nil
	}
	ev := []string{
		fmt.Sprintf("%d numeric value(s) differ only in the last digits: max %d ULP, max relative difference %.2g", explained, maxU, maxRel),
		"largest: " + example,
		"typical of a floating-point sum taken in another order (unordered reduction or FMA contraction)",
	}
	return &Signature{Code: SigFloatNoise, Label: "float last-digit noise", Evidence: ev, Explains: explained, Changes: noisy}
}
