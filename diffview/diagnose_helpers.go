package diffview

import (
	"fmt"
	"kvparity/internal/pointer"
	"math"
	"slices"
	"sort"
	"strings"
)

// ---- shared helpers ----

func lastSeg(p string) string {
	if k := strings.LastIndexByte(p, '/'); k >= 0 {
		return p[k+1:]
	}
	return p
}

// arrayPrefix returns the pointer of the innermost array element that holds p
// ("/coverage/pressure/records/3/at_ms" → "/coverage/pressure/records", 3).
func arrayPrefix(p string) (string, int, bool) {
	arr, _, n, ok := elementPrefix(p)
	return arr, n, ok
}

// elementPrefix is arrayPrefix with the element's own pointer
// ("/coverage/pressure/records/3").
func elementPrefix(p string) (arr, elem string, n int, ok bool) {
	// Read segments from the end of the pointer itself: an element index has no escapes, so the
	// holding array's pointer is a prefix of p (no split, no allocation: this runs per change).
	for end := len(p); ; {
		k := strings.LastIndexByte(p[:end], '/')
		if k <= 0 { // the first segment names a root member, never an element
			return "", "", 0, false
		}
		if n, ok := pointer.Index(p[k+1 : end]); ok && p[:k] != "/per_request" {
			return p[:k], p[:end], n, true
		}
		end = k
	}
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
	x, okx := parseNum(a)
	y, oky := parseNum(b)
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
			v := viewArray(d.docB, p)
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
