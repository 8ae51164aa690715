package diffview

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// A Side names one of the two canonical reports being compared.
type Side struct{ Label, ReportPath string }

// A Kind says how one pointer differs.
type Kind uint8

const (
	Changed Kind = iota // present in both, different bytes
	Added               // only in B
	Removed             // only in A
)

func (k Kind) String() string {
	switch k {
	case Added:
		return "added"
	case Removed:
		return "removed"
	default:
		return "changed"
	}
}

// A Change is one differing JSON pointer with both raw values (number literals verbatim).
// A or B is "" when the pointer exists on one side only.
type Change struct {
	Pointer string `json:"pointer"`
	Kind    Kind   `json:"-"`
	A       string `json:"a,omitempty"`
	B       string `json:"b,omitempty"`
	// Request is the uuid of the per_request record the change belongs to (B's, or A's for a
	// removed record); RequestA is A's uuid when the pairing renamed it.
	Request  string `json:"request,omitempty"`
	RequestA string `json:"request_a,omitempty"`
	// IndexA/IndexB are the record's positions in A's and B's per_request arrays (-1: none).
	IndexA int `json:"-"`
	IndexB int `json:"-"`
}

// A Diff is the structural difference between two canonical reports.
type Diff struct {
	A, B      Side
	Changes   []Change    // in document order
	Groups    []Group     // summary, metadata, coverage, event arrays, then each request
	First     *Divergence // nil when equal
	Diagnosis []Signature // most specific first; empty when equal
	Notes     []string    // non-fatal observations (e.g. an input that is not canonical)

	docA, docB *doc
	events     []eventInfo // eventOf per change, filled on first use
	decs       []decision  // routing decisions of both runs, filled on first use
	decsDone   bool
}

// Equal reports whether the two reports have no differing pointer.
func (d *Diff) Equal() bool { return len(d.Changes) == 0 }

// Pointers lists every differing pointer in document order.
func (d *Diff) Pointers() []string {
	ps := make([]string, len(d.Changes))
	for i, c := range d.Changes {
		ps[i] = c.Pointer
	}
	return ps
}

// DiffFiles loads two canonical report files (JSON or one-line JSONL) and diffs them.
func DiffFiles(a, b string) (*Diff, error) {
	da, err := loadDoc(a)
	if err != nil {
		return nil, err
	}
	db, err := loadDoc(b)
	if err != nil {
		return nil, err
	}
	d, err := diffDocs(da, db)
	if err != nil {
		return nil, err
	}
	d.A, d.B = Side{Label: a, ReportPath: a}, Side{Label: b, ReportPath: b}
	return d, nil
}

// DiffBytes diffs two in-memory canonical reports; names are used in messages only.
func DiffBytes(nameA string, a []byte, nameB string, b []byte) (*Diff, error) {
	da, err := parseDoc(nameA, a)
	if err != nil {
		return nil, err
	}
	db, err := parseDoc(nameB, b)
	if err != nil {
		return nil, err
	}
	d, err := diffDocs(da, db)
	if err != nil {
		return nil, err
	}
	d.A, d.B = Side{Label: nameA}, Side{Label: nameB}
	return d, nil
}

// A differ walks both documents in lockstep, skipping byte-equal subtrees.
type differ struct {
	a, b    *doc
	path    []string
	changes []Change
	notes   []string
	// current per_request record context
	req, reqA        string
	idxA, idxB       int
	notCanonicalSeen map[string]bool
}

func diffDocs(a, b *doc) (*Diff, error) {
	df := &differ{a: a, b: b, idxA: -1, idxB: -1, notCanonicalSeen: map[string]bool{}}
	ia, ib := skipSpace(a.src, 0), skipSpace(b.src, 0)
	ea, _ := skipValue(a.src, ia, 0)
	eb, _ := skipValue(b.src, ib, 0)
	if err := df.value(span{ia, ea}, span{ib, eb}); err != nil {
		return nil, err
	}
	d := &Diff{Changes: df.changes, Notes: df.notes, docA: a, docB: b}
	d.Groups = groupChanges(d.Changes)
	d.First = firstDivergence(d)
	d.Diagnosis = diagnose(d)
	return d, nil
}

func (df *differ) add(kind Kind, as, bs span) {
	c := Change{Pointer: pointerOf(df.path), Kind: kind, Request: df.req, RequestA: df.reqA, IndexA: df.idxA, IndexB: df.idxB}
	if kind != Added {
		c.A = string(df.a.src[as.start:as.end])
	}
	if kind != Removed {
		c.B = string(df.b.src[bs.start:bs.end])
	}
	df.changes = append(df.changes, c)
}

func (df *differ) value(as, bs span) error {
	av, bv := df.a.src[as.start:as.end], df.b.src[bs.start:bs.end]
	if bytes.Equal(av, bv) {
		return nil
	}
	switch {
	case av[0] == '{' && bv[0] == '{':
		return df.object(as, bs)
	case av[0] == '[' && bv[0] == '[':
		if len(df.path) == 1 && df.path[0] == "per_request" {
			return df.requests(as, bs)
		}
		return df.array(as, bs)
	}
	df.add(Changed, as, bs)
	return nil
}

func (df *differ) members(d *doc, s span) ([]member, error) {
	ms, err := objectMembers(d.src, s.start)
	if err != nil {
		return nil, d.errAt(err)
	}
	sorted := true
	for i := 1; i < len(ms); i++ {
		if ms[i-1].key >= ms[i].key {
			if ms[i-1].key == ms[i].key {
				return nil, fmt.Errorf("%s:%d:%d: at %s: duplicate key %q", d.name, d.line, ms[i].start+1, pointerOf(df.path), ms[i].key)
			}
			sorted = false
		}
	}
	if !sorted {
		p := pointerOf(df.path)
		if !df.notCanonicalSeen[d.name] {
			df.notCanonicalSeen[d.name] = true
			df.notes = append(df.notes, fmt.Sprintf("%s is not canonical: object keys out of byte order at %s (compared by key anyway)", d.name, p))
		}
		sort.SliceStable(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
		for i := 1; i < len(ms); i++ {
			if ms[i-1].key == ms[i].key {
				return nil, fmt.Errorf("%s:%d:%d: at %s: duplicate key %q", d.name, d.line, ms[i].start+1, p, ms[i].key)
			}
		}
	}
	return ms, nil
}

func (df *differ) object(as, bs span) error {
	ma, err := df.members(df.a, as)
	if err != nil {
		return err
	}
	mb, err := df.members(df.b, bs)
	if err != nil {
		return err
	}
	i, j := 0, 0
	for i < len(ma) || j < len(mb) {
		switch {
		case j >= len(mb) || (i < len(ma) && ma[i].key < mb[j].key):
			df.path = append(df.path, ma[i].key)
			df.add(Removed, span{ma[i].start, ma[i].end}, span{})
			df.path = df.path[:len(df.path)-1]
			i++
		case i >= len(ma) || mb[j].key < ma[i].key:
			df.path = append(df.path, mb[j].key)
			df.add(Added, span{}, span{mb[j].start, mb[j].end})
			df.path = df.path[:len(df.path)-1]
			j++
		default:
			df.path = append(df.path, ma[i].key)
			if err := df.value(span{ma[i].start, ma[i].end}, span{mb[j].start, mb[j].end}); err != nil {
				return err
			}
			df.path = df.path[:len(df.path)-1]
			i++
			j++
		}
	}
	return nil
}

// array compares an ordered array element by element: ordered event arrays keep their order
// in the canonical profile, so position is identity.
func (df *differ) array(as, bs span) error {
	ea, err := arrayElements(df.a.src, as.start)
	if err != nil {
		return df.a.errAt(err)
	}
	eb, err := arrayElements(df.b.src, bs.start)
	if err != nil {
		return df.b.errAt(err)
	}
	n := max(len(ea), len(eb))
	for k := 0; k < n; k++ {
		df.path = append(df.path, strconv.Itoa(k))
		switch {
		case k >= len(eb):
			df.add(Removed, ea[k], span{})
		case k >= len(ea):
			df.add(Added, span{}, eb[k])
		default:
			if err := df.value(ea[k], eb[k]); err != nil {
				return err
			}
		}
		df.path = df.path[:len(df.path)-1]
	}
	return nil
}

// idKeys are per-request identity fields: a renamed request differs only in these.
var idKeys = map[string]bool{"uuid": true, "request_uuid": true, "request_id": true, "session_id": true, "play_id": true}

// requests compares /per_request, which the canonical profile sorts by uuid: records are
// paired by uuid, then leftovers by content minus identity fields (a renamed request).
func (df *differ) requests(as, bs span) error {
	ea, err := arrayElements(df.a.src, as.start)
	if err != nil {
		return df.a.errAt(err)
	}
	eb, err := arrayElements(df.b.src, bs.start)
	if err != nil {
		return df.b.errAt(err)
	}
	df.a.reqs, df.b.reqs = ea, eb
	ua, err := uuids(df.a, ea)
	if err != nil {
		return err
	}
	ub, err := uuids(df.b, eb)
	if err != nil {
		return err
	}
	df.a.uuids, df.b.uuids = ua, ub
	type pair struct{ a, b int }
	var pairs []pair
	var onlyA, onlyB []int
	same := len(ea) == len(eb)
	for k := 0; same && k < len(ea); k++ {
		same = ua[k] == ub[k]
	}
	if same {
		pairs = make([]pair, len(ea))
		for k := range ea {
			pairs[k] = pair{k, k}
		}
	} else {
		byUUID := make(map[string]int, len(eb))
		for k, u := range ub {
			byUUID[u] = k
		}
		matchedB := make([]bool, len(eb))
		for k, u := range ua {
			if j, ok := byUUID[u]; ok && u != "" {
				pairs = append(pairs, pair{k, j})
				matchedB[j] = true
			} else {
				onlyA = append(onlyA, k)
			}
		}
		for j := range eb {
			if !matchedB[j] {
				onlyB = append(onlyB, j)
			}
		}
		if len(onlyA) > 0 && len(onlyB) > 0 {
			// Pair renamed records by their content without identity fields.
			fp := map[string][]int{}
			for _, j := range onlyB {
				k := fingerprint(df.b, eb[j])
				fp[k] = append(fp[k], j)
			}
			var restA []int
			for _, k := range onlyA {
				f := fingerprint(df.a, ea[k])
				if js := fp[f]; len(js) > 0 {
					pairs = append(pairs, pair{k, js[0]})
					matchedB[js[0]] = true
					fp[f] = js[1:]
				} else {
					restA = append(restA, k)
				}
			}
			onlyA, onlyB = restA, onlyB[:0]
			for j := range eb {
				if !matchedB[j] {
					onlyB = append(onlyB, j)
				}
			}
		}
		sort.Slice(pairs, func(i, j int) bool { return pairs[i].b < pairs[j].b })
	}
	for _, p := range pairs {
		df.req, df.reqA, df.idxA, df.idxB = ub[p.b], "", p.a, p.b
		if ua[p.a] != ub[p.b] {
			df.reqA = ua[p.a]
		}
		df.path = append(df.path, strconv.Itoa(p.b))
		if err := df.value(ea[p.a], eb[p.b]); err != nil {
			return err
		}
		df.path = df.path[:len(df.path)-1]
	}
	for _, k := range onlyA {
		df.req, df.reqA, df.idxA, df.idxB = ua[k], "", k, -1
		df.path = append(df.path, strconv.Itoa(k))
		df.add(Removed, ea[k], span{})
		df.path = df.path[:len(df.path)-1]
	}
	for _, j := range onlyB {
		df.req, df.reqA, df.idxA, df.idxB = ub[j], "", -1, j
		df.path = append(df.path, strconv.Itoa(j))
		df.add(Added, span{}, eb[j])
		df.path = df.path[:len(df.path)-1]
	}
	df.req, df.reqA, df.idxA, df.idxB = "", "", -1, -1
	return nil
}

func uuids(d *doc, es []span) ([]string, error) {
	us := make([]string, len(es))
	for k, e := range es {
		if d.src[e.start] != '{' {
			return nil, fmt.Errorf("%s:%d:%d: at /per_request/%d: a per-request record must be an object", d.name, d.line, e.start+1, k)
		}
		v, ok := memberValue(d.src, e, "uuid")
		if !ok || d.src[v.start] != '"' {
			return nil, fmt.Errorf("%s:%d:%d: at /per_request/%d/uuid: missing or not a string", d.name, d.line, e.start+1, k)
		}
		us[k], _ = decodeString(d.src[v.start:v.end])
	}
	return us, nil
}

// fingerprint is a record's bytes without its identity members.
func fingerprint(d *doc, e span) string {
	ms, _ := objectMembers(d.src, e.start)
	var sb strings.Builder
	for _, m := range ms {
		if idKeys[m.key] {
			continue
		}
		sb.WriteString(m.key)
		sb.WriteByte(0)
		sb.Write(d.src[m.start:m.end])
		sb.WriteByte(0)
	}
	return sb.String()
}
