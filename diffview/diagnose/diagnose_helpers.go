package diagnose

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"kvparity/diffview"
)

// ---- shared helpers ----

// arrayPrefix returns the pointer of the innermost array element that holds p
// ("/coverage/pressure/records/3/at_ms" → "/coverage/pressure/records", 3).
func arrayPrefix(p string) (string, int, bool) {
	arr, _, n, ok := diffview.ElementPrefix(p)
	return arr, n, ok
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c == '-' || (c >= '0' && c <= '9')
}

// sameNumber says two differing literals are one number (1 and 1.0, 1e3 and 1000).
func sameNumber(a, b string) bool {
	x, okx := diffview.ParseNumber(a)
	y, oky := diffview.ParseNumber(b)
	return okx && oky && isNumber(a) && isNumber(b) && x == y
}

// sameMultiset says two lists hold the same values, in any order.
func sameMultiset(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	sa, sb := slices.Clone(a), slices.Clone(b)
	slices.Sort(sa)
	slices.Sort(sb)
	return slices.Equal(sa, sb)
}

// ulps is the distance in units of least precision between two doubles.
func ulps(a, b float64) uint64 {
	ord := func(f float64) int64 {
		u := int64(math.Float64bits(f))
		if u < 0 {
			u = math.MinInt64 - u
		}
		return u
	}
	x, y := ord(a), ord(b)
	if x > y {
		return uint64(x - y)
	}
	return uint64(y - x)
}

// ordinalKey says a member is a sequence number assigned in processing order.
func ordinalKey(k string) bool {
	return strings.HasSuffix(k, "ordinal") || k == "event_id" || k == "seq" || k == "seq_no" || strings.HasSuffix(k, "_seq")
}

// changedEventArrays groups changes by the innermost ordered array of events (objects) that
// holds them and satisfies want: a change inside an event's own nested list (the block hashes
// of a KV event) belongs to the event array, where a reorder of the events shows. Changes
// under no such array are grouped by their innermost array.
func changedEventArrays(d *Diff, want func(*arrayView) bool) map[string][]int {
	ok := map[string]bool{}
	wanted := func(p string) bool {
		t, seen := ok[p]
		if !seen {
			v := viewArray(d.DocB, p)
			t = v != nil && want(v)
			ok[p] = t
		}
		return t
	}
	arrays := map[string][]int{}
	for i, c := range d.Changes {
		inner, _, found := arrayPrefix(c.Pointer)
		if !found {
			continue
		}
		key := inner
		for p := inner; found; p, _, found = arrayPrefix(p) {
			if wanted(p) {
				key = p
				break
			}
		}
		arrays[key] = append(arrays[key], i)
	}
	return arrays
}

func countList(m map[string]int) string {
	keys := sortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
