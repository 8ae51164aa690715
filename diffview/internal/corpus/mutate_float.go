package corpus

import (
	"sort"
	"strconv"
	"strings"
)

// Float last-digit noise: the same values summed in another order, 1-64 ULP apart, in
// summary means and in per-request values derived from timestamps.

func floatVariants() []variant {
	fl := func(name string, apply func(*mutation) error) variant {
		return variant{family: "float-noise", name: name, primary: "float-noise", apply: apply}
	}
	return []variant{
		fl("summary-means", func(m *mutation) error { return summaryNoise(m, 2+m.rng.IntN(7), 1, 8) }),
		fl("per-request-derived", func(m *mutation) error {
			return requestNoise(m, 5+m.rng.IntN(36), []string{"itl_ms", "e2e_latency_ms", "ttft_ms", "ttst_ms"}, 1, 16)
		}),
		fl("timestamps", func(m *mutation) error {
			return requestNoise(m, 3+m.rng.IntN(18), []string{"first_token_ms", "last_token_ms"}, 1, 4)
		}),
		fl("wide", func(m *mutation) error {
			if err := summaryNoise(m, 1+m.rng.IntN(4), 33, 64); err != nil {
				return err
			}
			return requestNoise(m, 2+m.rng.IntN(10), []string{"itl_ms", "e2e_latency_ms"}, 33, 64)
		}),
	}
}

// noiseULPs draws a distance in [lo, hi] ULP with a random sign.
func (m *mutation) noiseULPs(lo, hi int) int {
	k := lo + m.rng.IntN(hi-lo+1)
	if m.rng.IntN(2) == 0 {
		return -k
	}
	return k
}

// summaryNoise moves n of the summary's means and deviations by lo..hi ULP.
func summaryNoise(m *mutation, n, lo, hi int) error {
	s := m.b.obj("/summary")
	var keys []string
	for _, k := range summaryFloats(m.b) {
		if x, _ := numOf(s[k]); x != 0 && (strings.HasPrefix(k, "mean_") || strings.HasPrefix(k, "std_")) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return errNotHere
	}
	m.rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	keys = keys[:min(n, len(keys))]
	sort.Strings(keys)
	for _, k := range keys {
		x, _ := numOf(s[k])
		s[k] = num(ulpStep(x, m.noiseULPs(lo, hi)))
	}
	m.note("%d summary values %d-%d ULP off (%s)", len(keys), lo, hi, strings.Join(keys, ", "))
	return nil
}

// requestNoise moves one of fields of n random requests by lo..hi ULP; a moved timestamp
// takes its derived duration along only when the subtraction itself rounds differently.
func requestNoise(m *mutation, n int, fields []string, lo, hi int) error {
	reqs := m.b.Requests()
	idx := m.rng.Perm(len(reqs))[:min(n, len(reqs))]
	sort.Ints(idx)
	moved := 0
	var example string
	for _, i := range idx {
		r := reqs[i]
		f := fields[m.rng.IntN(len(fields))]
		x, ok := numOf(r[f])
		if !ok || x == 0 {
			continue
		}
		r[f] = num(ulpStep(x, m.noiseULPs(lo, hi)))
		if timeFields[f] {
			rederive(r, map[string]bool{f: true})
		}
		moved++
		if example == "" {
			example = "/per_request/" + strconv.Itoa(i) + "/" + f
		}
	}
	if moved == 0 {
		return errNotHere
	}
	m.note("%d per-request values %d-%d ULP off (%s, e.g. %s)", moved, lo, hi, strings.Join(fields, ", "), example)
	return nil
}
