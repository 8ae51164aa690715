package diagnose

import (
	"fmt"
	"strings"

	"kvparity/diffview"
)

// ---- ids handed out in executor order among same-time arrivals ----

// detectArrivalPermutation applies the tie lens to whole request records: requests that
// arrive at the same virtual time were given their ids (uuids, sequence numbers) in another
// order, so the record a uuid names in A holds what another uuid names in B. Paired by uuid,
// the records differ field by field; grouped by arrival time, each group holds the same
// multiset of records without their identity fields in both runs.
func detectArrivalPermutation(d *Diff) *Signature {
	a, b := d.DocA, d.DocB
	if len(a.Records) == 0 || len(b.Records) == 0 {
		return nil
	}
	// Changed records grouped by arrival time first (indexes only): the records of a group of
	// two or more are read (fingerprinted) only then, since most arrival times are unique.
	type group struct{ a, b []int } // per_request indexes in A and in B
	groups := map[string]*group{}
	var order []string
	seen := map[int]bool{}
	for _, c := range d.Changes {
		if c.Request == "" || c.RequestA != "" || c.IndexA < 0 || c.IndexB < 0 || seen[c.IndexB] {
			continue
		}
		seen[c.IndexB] = true
		at, ok := a.Field(c.IndexA, "arrival_time_ms")
		if bt, _ := b.Field(c.IndexB, "arrival_time_ms"); !ok || at != bt {
			continue
		}
		g := groups[at]
		if g == nil {
			g = &group{}
			groups[at] = g
			order = append(order, at)
		}
		g.a, g.b = append(g.a, c.IndexA), append(g.b, c.IndexB)
	}
	read := func(dd *diffview.Doc, idx []int, of func(*diffview.Doc, int32) string) []string {
		out := make([]string, len(idx))
		for k, i := range idx {
			out[k] = of(dd, dd.Records[i])
		}
		return out
	}
	permuted := map[int]bool{}
	moved := map[string]bool{}
	var ev []string
	n := 0
	for _, t := range order {
		g := groups[t]
		if len(g.a) < 2 {
			continue
		}
		// The same records, and the same ids handed out among them: fresh ids (an unseeded
		// generator) are drift, not a permutation.
		if !sameMultiset(read(a, g.a, diffview.Fingerprint), read(b, g.b, diffview.Fingerprint)) || !sameMultiset(read(a, g.a, identity), read(b, g.b, identity)) {
			continue
		}
		n++
		uuids := make([]string, len(g.b))
		for k, j := range g.b {
			permuted[j] = true
			uuids[k] = b.UUIDs[j]
			moved[uuids[k]] = true
		}
		if len(ev) < 3 {
			ev = append(ev, fmt.Sprintf("%d requests arriving at t=%s ms hold the same records under permuted ids (%s)", len(g.b), t, strings.Join(uuids, ", ")))
		}
	}
	if len(permuted) == 0 {
		return nil
	}
	var explained []int
	refs := 0
	for i, c := range d.Changes {
		switch {
		case c.Request != "" && permuted[c.IndexB]:
			explained = append(explained, i)
		case c.Kind == diffview.Changed && diffview.IDKeys[diffview.LastSegment(c.Pointer)] && moved[strings.Trim(c.A, `"`)] && moved[strings.Trim(c.B, `"`)]:
			explained = append(explained, i) // a reference (a pressure record's request_uuid) follows the permutation
			refs++
		}
	}
	ev = append([]string{fmt.Sprintf("%d request record(s) in %d group(s) of same-time arrivals differ only in which id each received: ids were handed out in executor order, not trace order", len(permuted), n)}, ev...)
	if refs > 0 {
		ev = append(ev, fmt.Sprintf("%d reference(s) to those ids follow the same permutation", refs))
	}
	return &Signature{Code: SigTieOrder, Label: "ordering only, within equal timestamps (ids of same-time arrivals)", Evidence: ev, Explains: len(explained), Changes: explained}
}

// identity is a record's identity members other than its uuid (which pairs it), as written.
func identity(d *diffview.Doc, e int32) string {
	var sb strings.Builder
	for k, v := range d.Scanner.Members(e) {
		if key := d.Str(k); diffview.IDKeys[key] && key != "uuid" {
			sb.WriteString(key)
			sb.WriteByte(0)
			sb.WriteString(d.Raw(v))
			sb.WriteByte(0)
		}
	}
	return sb.String()
}
