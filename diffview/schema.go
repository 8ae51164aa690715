package diffview

import (
	"strings"
)

// A record schema change between versions: a member that one side's per_request records
// carry and none of the other side's do (a field added, removed, or renamed). Records are
// paired on the members both sides have (pairing.go), and the one-sided members' pointers are
// the schema change's, said by name and count; what else differs is diagnosed as usual.

// A RecordSchema counts, per side, the records carrying each member no record of the other
// side carries.
type RecordSchema struct {
	OnlyA, OnlyB map[string]int
}

// oneSided says member k is carried by one side's records only.
func (s *RecordSchema) oneSided(k string) bool {
	if s == nil {
		return false
	}
	_, a := s.OnlyA[k]
	_, b := s.OnlyB[k]
	return a || b
}

// Empty says no member is one side's only.
func (s *RecordSchema) Empty() bool { return s == nil || len(s.OnlyA)+len(s.OnlyB) == 0 }

// schemaOf compares the members of A's records (ea) with B's (eb).
func schemaOf(a, b *Doc, ea, eb []int32) *RecordSchema {
	count := func(d *Doc, es []int32) map[string]int {
		m := map[string]int{}
		for _, e := range es {
			for k := range d.Scanner.Members(e) {
				m[d.Str(k)]++
			}
		}
		return m
	}
	ka, kb := count(a, ea), count(b, eb)
	s := &RecordSchema{OnlyA: map[string]int{}, OnlyB: map[string]int{}}
	for k, n := range ka {
		if kb[k] == 0 {
			s.OnlyA[k] = n
		}
	}
	for k, n := range kb {
		if ka[k] == 0 {
			s.OnlyB[k] = n
		}
	}
	return s
}

// SchemaPointer says change c is a one-sided member of a paired record.
func (d *Diff) SchemaPointer(c *Change) bool {
	if d.Schema.Empty() || c.Kind == Changed || c.IndexA < 0 || c.IndexB < 0 {
		return false
	}
	segs := strings.Count(c.Pointer, "/")
	return segs == 3 && strings.HasPrefix(c.Pointer, "/per_request/") && d.Schema.oneSided(LastSegment(c.Pointer))
}
