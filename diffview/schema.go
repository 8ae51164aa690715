package diffview

import (
	"fmt"
	"sort"
	"strings"
)

// A record schema change between versions: a member that one side's per_request records
// carry and none of the other side's do (a field added, removed, or renamed). Records are
// paired on the members both sides have (pairing.go), and the one-sided members' pointers are
// the schema change's, said by name and count; what else differs is diagnosed as usual.

// A recordSchema counts, per side, the records carrying each member no record of the other
// side carries.
type recordSchema struct {
	onlyA, onlyB map[string]int
}

// oneSided says member k is carried by one side's records only.
func (s *recordSchema) oneSided(k string) bool {
	if s == nil {
		return false
	}
	_, a := s.onlyA[k]
	_, b := s.onlyB[k]
	return a || b
}

func (s *recordSchema) empty() bool { return s == nil || len(s.onlyA)+len(s.onlyB) == 0 }

// schemaOf compares the members of A's records (ea) with B's (eb).
func schemaOf(a, b *doc, ea, eb []int32) *recordSchema {
	count := func(d *doc, es []int32) map[string]int {
		m := map[string]int{}
		for _, e := range es {
			for k := range d.sc.Members(e) {
				m[d.str(k)]++
			}
		}
		return m
	}
	ka, kb := count(a, ea), count(b, eb)
	s := &recordSchema{onlyA: map[string]int{}, onlyB: map[string]int{}}
	for k, n := range ka {
		if kb[k] == 0 {
			s.onlyA[k] = n
		}
	}
	for k, n := range kb {
		if ka[k] == 0 {
			s.onlyB[k] = n
		}
	}
	return s
}

// schemaPointer says change c is a one-sided member of a paired record.
func (d *Diff) schemaPointer(c *Change) bool {
	if d.schema.empty() || c.Kind == Changed || c.indexA < 0 || c.indexB < 0 {
		return false
	}
	segs := strings.Count(c.Pointer, "/")
	return segs == 3 && strings.HasPrefix(c.Pointer, "/per_request/") && d.schema.oneSided(lastSeg(c.Pointer))
}

// detectSchemaChange names the record schema change: the members added and removed, with
// how many records carry them, and a removed member whose values reappear under an added one
// in the same records (a renaming).
func detectSchemaChange(d *Diff) *Signature {
	if d.schema.empty() {
		return nil
	}
	n := 0
	var layout []int             // the changes of the schema change
	equal := map[[2]string]int{} // (removed, added) → paired records whose values agree
	for i := range d.Changes {
		c := &d.Changes[i]
		if !d.schemaPointer(c) {
			continue
		}
		n++
		layout = append(layout, i)
		if c.Kind != Removed {
			continue
		}
		for k := range d.schema.onlyB {
			if v, ok := d.docB.field(c.indexB, k); ok && v == c.A && v != "null" {
				equal[[2]string{lastSeg(c.Pointer), k}]++
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
		if _, done := renamed[from]; done || 10*equal[p] < 9*min(d.schema.onlyA[from], d.schema.onlyB[to]) {
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
		renames = append(renames, fmt.Sprintf("%s → %s (%d records, equal values in %d)", from, to, d.schema.onlyA[from], equal[p]))
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
		"fields added in B's records: " + list(d.schema.onlyB, isTo),
		"fields removed from A's records: " + list(d.schema.onlyA, isFrom),
	}
	if len(renames) > 0 {
		ev = append(ev, "fields renamed: "+strings.Join(renames, ", "))
	}
	ev = append(ev, fmt.Sprintf("records are paired on the fields both sides have; these %d pointers are the schema change, the rest is diagnosed apart", n),
		"the record layout changed between the two versions: not a result that moved")
	return &Signature{Code: SigSchema, Label: "record schema changed (" + schemaLabel(d.schema, len(renames)) + ")", Evidence: ev, Explains: n, Changes: layout}
}

func schemaLabel(s *recordSchema, renamed int) string {
	parts := []string{fmt.Sprintf("%d field(s) added", len(s.onlyB)-renamed), fmt.Sprintf("%d removed", len(s.onlyA)-renamed)}
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
