package diagnose

import (
	"fmt"
	"sort"
	"strings"

	"kvparity/diffview"
)

// detectSchemaChange names the record schema change: the members added and removed, with
// how many records carry them, and a removed member whose values reappear under an added one
// in the same records (a renaming).
func detectSchemaChange(d *Diff) *Signature {
	if d.Schema.Empty() {
		return nil
	}
	n := 0
	var layout []int             // the changes of the schema change
	equal := map[[2]string]int{} // (removed, added) → paired records whose values agree
	for i := range d.Changes {
		c := &d.Changes[i]
		if !d.SchemaPointer(c) {
			continue
		}
		n++
		layout = append(layout, i)
		if c.Kind != diffview.Removed {
			continue
		}
		for k := range d.Schema.OnlyB {
			if v, ok := d.DocB.Field(c.IndexB, k); ok && v == c.A && v != "null" {
				equal[[2]string{diffview.LastSegment(c.Pointer), k}]++
			}
		}
	}
	if n == 0 {
		return nil
	}
	renamed := map[string]string{}
	var renames []string
	for _, p := range sortedPairs(equal) {
		from, to := p[0], p[1]
		if _, done := renamed[from]; done || 10*equal[p] < 9*min(d.Schema.OnlyA[from], d.Schema.OnlyB[to]) {
			continue
		}
		if taken := func() bool {
			for _, t := range renamed {
				if t == to {
					return true
				}
			}
			return false
		}(); taken {
			continue
		}
		renamed[from] = to
		renames = append(renames, fmt.Sprintf("%s → %s (%d records, equal values in %d)", from, to, d.Schema.OnlyA[from], equal[p]))
	}
	list := func(m map[string]int, skip func(string) bool) string {
		var parts []string
		for _, k := range sortedKeys(m) {
			if !skip(k) {
				parts = append(parts, fmt.Sprintf("%s (%d records)", k, m[k]))
			}
		}
		if len(parts) == 0 {
			return "none"
		}
		return strings.Join(parts, ", ")
	}
	isFrom := func(k string) bool { _, ok := renamed[k]; return ok }
	isTo := func(k string) bool {
		for _, t := range renamed {
			if t == k {
				return true
			}
		}
		return false
	}
	ev := []string{
		"fields added in B's records: " + list(d.Schema.OnlyB, isTo),
		"fields removed from A's records: " + list(d.Schema.OnlyA, isFrom),
	}
	if len(renames) > 0 {
		ev = append(ev, "fields renamed: "+strings.Join(renames, ", "))
	}
	ev = append(ev, fmt.Sprintf("records are paired on the fields both sides have; these %d pointers are the schema change, the rest is diagnosed apart", n),
		"the record layout changed between the two versions: not a result that moved")
	return &Signature{Code: SigSchema, Label: "record schema changed (" + schemaLabel(d.Schema, len(renames)) + ")", Evidence: ev, Explains: n, Changes: layout}
}

func schemaLabel(s *diffview.RecordSchema, renamed int) string {
	parts := []string{fmt.Sprintf("%d field(s) added", len(s.OnlyB)-renamed), fmt.Sprintf("%d removed", len(s.OnlyA)-renamed)}
	if renamed > 0 {
		parts = append(parts, fmt.Sprintf("%d renamed", renamed))
	}
	return strings.Join(parts, ", ")
}

// sortedPairs lists m's keys, most counted first.
func sortedPairs(m map[[2]string]int) [][2]string {
	out := make([][2]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]] != m[out[j]] {
			return m[out[i]] > m[out[j]]
		}
		return out[i][0]+"\x00"+out[i][1] < out[j][0]+"\x00"+out[j][1]
	})
	return out
}
