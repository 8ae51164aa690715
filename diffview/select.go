package diffview

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// describeFields is how many field names Describe spells out (the rest are counted).
const describeFields = 10

// Describe is the "what differs" of an exception record covering Changes[i] for each i in sel:
// how many pointers in how many requests, and the fields that differ, most first. The pane
// computes it when a record is saved, from what the record's patterns cover then.
func (d *Diff) Describe(sel []int) string {
	fields := map[string]int{}
	reqs := map[string]bool{}
	for _, ci := range sel {
		c := &d.Changes[ci]
		fields[LastSegment(c.Pointer)]++
		if c.Request != "" {
			reqs[c.Request] = true
		}
	}
	keys := slices.Sorted(maps.Keys(fields))
	sort.SliceStable(keys, func(i, j int) bool { return fields[keys[i]] > fields[keys[j]] })
	parts := make([]string, 0, min(len(keys), describeFields)+1)
	for i, k := range keys {
		if i == describeFields {
			parts = append(parts, fmt.Sprintf("%d more field(s)", len(keys)-describeFields))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", k, fields[k]))
	}
	held := ""
	if d.Truncated() {
		held = " of those the diff holds in detail"
	}
	return fmt.Sprintf("%d pointer(s)%s in %d request(s): %s", len(sel), held, len(reqs), strings.Join(parts, ", "))
}

// Select lists the changes one of the patterns matches, in document order. stop is polled
// every few thousand changes: when it says so, Select gives up and returns ok false (a newer
// question superseded this one). A nil stop never stops.
func (d *Diff) Select(patterns []string, stop func() bool) (sel []int, ok bool) {
	rm := CompileAll(patterns)
	for i := range d.Changes {
		if i%4096 == 4095 && stop != nil && stop() {
			return nil, false
		}
		if rm.Match(d.Changes[i].Pointer) {
			sel = append(sel, i)
		}
	}
	return sel, true
}
