package corpus

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"kvparity/internal/pointer"
)

// Negative controls: the two reports say the same thing. A byte-identical or re-encoded pair,
// or one that differs only in the fields the canonical profile excludes, must be Equal.
//
// A pair that differs only in how numbers are spelled is not a negative control: the
// canonical bytes keep number literals verbatim (report's canonicalizer), so its digests
// differ and the campaign's parity fails. Its diagnosis must say so: number-spelling, equal
// values, and nothing else (not a configuration change, not a flipped decision).

func equalVariants() []variant {
	eq := func(name string, apply func(*mutation) error) variant {
		return variant{family: "negative-control", name: name, primary: equalCode, equal: true, apply: apply}
	}
	spelled := func(name string, apply func(*mutation) error) variant {
		return variant{family: "number-spelling", name: name, primary: "number-spelling", apply: apply}
	}
	return []variant{
		eq("identical", func(m *mutation) error {
			m.rawB = m.base.Canonical
			m.note("B is A's bytes")
			return nil
		}),
		eq("reencoded", func(m *mutation) error {
			m.note("B is A decoded and encoded again canonically (keys in byte order, numbers as spelled)")
			return nil
		}),
		spelled("float-as-int", func(m *mutation) error {
			return respell(m, func(n json.Number) bool { return strings.HasSuffix(string(n), ".0") },
				func(n json.Number) json.Number { return n[:len(n)-2] }, `integral f64 "x.0" spelled "x"`)
		}),
		spelled("int-as-float", func(m *mutation) error {
			return respell(m, func(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") },
				func(n json.Number) json.Number { return n + ".0" }, `integer "n" spelled "n.0"`)
		}),
		spelled("exponent", func(m *mutation) error {
			return respell(m, func(n json.Number) bool {
				return strings.Contains(string(n), ".") && !strings.ContainsAny(string(n), "eE-") && n != "0.0"
			},
				exponentSpelling, `f64 spelled with an exponent ("683.29" as "6.8329e2")`)
		}),
		eq("excluded-added", func(m *mutation) error {
			wall := m.between(200, 90000)
			setExcluded(m.b, wall)
			m.note("B carries the excluded /summary fields (wall %.1f ms); A has none", wall)
			return nil
		}),
		eq("excluded-differ", func(m *mutation) error {
			wa, wb := m.between(200, 90000), m.between(200, 90000)
			m.both(func(r *reportTree) { setExcluded(r, wa) })
			setExcluded(m.b, wb)
			m.note("both carry the excluded /summary fields, from wall times %.1f and %.1f ms", wa, wb)
			return nil
		}),
	}
}

// setExcluded writes the canonical profile's excluded fields (the three /summary timing
// fields) as a run that took wall ms would.
func setExcluded(r *reportTree, wall float64) {
	s := r.obj("/summary")
	tokens, _ := numOf(s["processed_tokens"])
	out, _ := numOf(s["total_output_tokens"])
	s["wall_time_ms"] = num(wall)
	s["processed_tokens_per_s"] = num(tokens / (wall / 1000))
	s["processed_output_tokens_per_s"] = num(out / (wall / 1000))
}

// respell rewrites a random handful of the numbers match accepts, in metadata, pressure
// records and requests alike; the values stay the same.
func respell(m *mutation, match func(json.Number) bool, spell func(json.Number) json.Number, what string) error {
	ptrs := numbersWhere(m.b, match)
	if len(ptrs) == 0 {
		return errNotHere
	}
	k := min(len(ptrs), 1+m.rng.IntN(24))
	m.rng.Shuffle(len(ptrs), func(i, j int) { ptrs[i], ptrs[j] = ptrs[j], ptrs[i] })
	chosen := ptrs[:k]
	sort.Strings(chosen)
	for _, p := range chosen {
		v, _ := m.b.Get(p)
		if err := m.b.Set(p, spell(v.(json.Number))); err != nil {
			return err
		}
	}
	m.note("%d numbers: %s, e.g. %s", k, what, chosen[0])
	return nil
}

// numbersWhere lists the pointers of every number match accepts, in document order.
func numbersWhere(r *reportTree, match func(json.Number) bool) []string {
	var out []string
	var walk func(toks []string, v any)
	walk = func(toks []string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(append(toks, k), x[k])
			}
		case []any:
			for i, e := range x {
				walk(append(toks, strconv.Itoa(i)), e)
			}
		case json.Number:
			if match(x) {
				out = append(out, pointer.Join(toks))
			}
		}
	}
	walk(nil, r.root)
	return out
}

// exponentSpelling writes a positive decimal as d.ddd e N with the same digits (the same
// value, so the same f64).
func exponentSpelling(n json.Number) json.Number {
	s := string(n)
	intPart, frac, _ := strings.Cut(s, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp := len(intPart) - 1
	if strings.TrimLeft(intPart, "0") == "" { // 0.00ddd
		lead := len(frac) - len(strings.TrimLeft(frac, "0"))
		exp = -lead - 1
	}
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return n
	}
	mant := digits[:1]
	if len(digits) > 1 {
		mant += "." + digits[1:]
	}
	return json.Number(mant + "e" + strconv.Itoa(exp))
}
