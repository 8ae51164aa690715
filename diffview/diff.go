package diffview

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"kvparity/internal/jsonscan"
	"kvparity/report"
)

// A Side names one of the two canonical reports being compared. Arm is the campaign arm whose
// report it is ("baseline", "candidate"; "" outside a campaign), so a view of it knows when a
// rebuild of that arm made it stale.
type Side struct {
	Label, ReportPath, Arm string
	// Build names the build the report came from when the caller knows it (an arm's generation
	// of pinned artifacts): two sides of one build are repetitions, whose differences are
	// entropy (diagnose.OfRepetitions).
	Build string
}

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
	// IndexA and IndexB are the record's positions in A's and B's per_request arrays (-1: none).
	IndexA int `json:"-"`
	IndexB int `json:"-"`
}

// A Diff is the structural difference between two canonical reports. Its diagnosis is
// package diagnose's (diagnose.Of).
type Diff struct {
	A, B Side
	// Count is every differing pointer; Changes holds them in detail, in document order: all
	// of them unless Truncated, when a quota of each array (hold.go).
	Count   int
	Changes []Change
	Groups  []Group     // summary, metadata, coverage, event arrays, then each request
	First   *Divergence // nil when equal
	Notes   []string    // non-fatal observations (e.g. an input that is not canonical)
	// Excluded lists the canonical profile's excluded pointers whose values differ: not
	// compared (no digest holds them), but said.
	Excluded []Exclusion

	// DocA and DocB are the two reports compared, read by pointer (the diagnosis reads them).
	DocA, DocB *Doc
	// Schema is the members one side's records carry and the other's do not.
	Schema    *RecordSchema
	hold      int // the walk's bound on the changes held (holdFor)
	quota     int // the walk's per-array hold (0: none, every change held)
	aligned   map[[2]int32][]alignedRun
	events    []eventInfo // eventOf per change, filled on first use
	fieldPats patternCache
	// objectArrays says, per array pointer, whether its elements are objects (elementTime).
	objectArrays map[string]bool
}

// Equal reports whether the two reports have no differing pointer.
func (d *Diff) Equal() bool { return d.Count == 0 }

// DiffFiles loads two canonical report files (JSON or one-line JSONL) and diffs them.
func DiffFiles(a, b string) (*Diff, error) {
	da, err := loadAny(a)
	if err != nil {
		return nil, err
	}
	db, err := loadAny(b)
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
	da, err := parseDoc(nameA, a, false)
	if err != nil {
		return nil, err
	}
	db, err := parseDoc(nameB, b, false)
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
	a, b    *Doc
	path    []string
	changes []Change
	notes   []string
	// current per_request record context
	req, reqA        string
	idxA, idxB       int
	notCanonicalSeen map[string]bool
	// What the walk holds in detail (hold.go): at most hold changes, and, when quota is set,
	// at most quota per array (heldIn). arr is the innermost array walked (its tape index in
	// B, -1 outside every array); counted is every change, and the first walk (the only one
	// that has perArray) counts them by arr too, for the quota.
	hold     int
	quota    int
	held     int
	heldIn   map[int32]int
	arr      int32
	perArray map[int32]int
	counted  int
	// aligned holds each length-changed array's alignment (by the arrays' tape indexes), the
	// first walk's for every later walk: go-diff stops at a deadline, so aligning again on a
	// busier machine could give another script, and the walks would disagree.
	aligned map[[2]int32][]alignedRun
	// visit, when set, receives every differing pointer with its index in the held changes
	// (-1: not held), and the walk keeps none (Diff.AllPointers).
	visit func(pointer string, held int) bool
	stop  bool // visit asked to stop
	// full holds filled chunks of changes: appending to one growing slice allocates about
	// five times its final size (append grows large slices by a quarter) and holds two copies
	// at each growth; chunks are copied once, into Changes at its exact size.
	full [][]Change
	// scratch holds one members buffer per object depth, reused across the walk (object
	// keeps both sides' members while it recurses into their values).
	scratch [][2][]Member
	depth   int
	// ex is the canonical profile's node of the current path (the exclusions below it).
	ex       report.ProfileNode
	excluded []Exclusion
	schema   *RecordSchema // the records' one-sided members (schema.go), read once
}

// changeChunk is how many changes one chunk holds (about 400 KB).
const changeChunk = 4096

// collected is every change the walk kept, in order, in one slice of its exact size.
func (df *differ) collected() []Change {
	if len(df.full) == 0 {
		return df.changes
	}
	n := len(df.changes)
	for _, c := range df.full {
		n += len(c)
	}
	out := make([]Change, 0, n)
	for _, c := range df.full {
		out = append(out, c...)
	}
	return append(out, df.changes...)
}

func newDiffer(a, b *Doc, aligned map[[2]int32][]alignedRun) *differ {
	return &differ{a: a, b: b, idxA: -1, idxB: -1, notCanonicalSeen: map[string]bool{}, hold: holdFor(a, b),
		ex: defaultExclusions(), arr: -1, aligned: aligned}
}

func diffDocs(a, b *Doc) (*Diff, error) {
	aligned := map[[2]int32][]alignedRun{}
	df := newDiffer(a, b, aligned)
	df.perArray = map[int32]int{}
	if err := df.value(0, 0); err != nil {
		return nil, err
	}
	quota := 0
	if df.counted > df.hold { // a flood: walk again, holding at most quota changes per array
		quota = quotaFor(df.perArray, df.hold)
		df = newDiffer(a, b, aligned)
		df.quota, df.heldIn = quota, map[int32]int{}
		if err := df.value(0, 0); err != nil {
			return nil, err
		}
	}
	var notes []string // how each release run was laid out comes first
	for side, dd := range map[string]*Doc{"A": a, "B": b} {
		if dd.origin != nil {
			notes = append(notes, releaseNote(side, dd))
		}
	}
	sort.Strings(notes)
	df.notes = append(notes, df.notes...)
	d := &Diff{Changes: df.collected(), Count: df.counted, Notes: df.notes, Excluded: df.excluded, DocA: a, DocB: b, hold: df.hold, quota: quota, aligned: aligned, Schema: df.schema}
	if d.Truncated() {
		d.Notes = append(d.Notes, truncationNote(d))
	}
	d.Groups = groupChanges(d.Changes)
	d.First = firstDivergence(d)
	return d, nil
}

// add records a change; ta and tb are the values in A and B (ignored when absent).
func (df *differ) add(kind Kind, ta, tb int32) {
	df.tally(df.arr)
	held := df.keep()
	if df.visit != nil {
		at := -1
		if held {
			at = df.held - 1
		}
		if !df.stop && !df.visit(PointerOf(df.path), at) {
			df.stop = true
		}
		return
	}
	if !held {
		return
	}
	c := Change{Pointer: PointerOf(df.path), Kind: kind, Request: df.req, RequestA: df.reqA, IndexA: df.idxA, IndexB: df.idxB}
	if kind != Added {
		c.A = df.a.Raw(ta)
	}
	if kind != Removed {
		c.B = df.b.Raw(tb)
	}
	if len(df.changes) == cap(df.changes) {
		if len(df.changes) > 0 {
			df.full = append(df.full, df.changes)
		}
		df.changes = make([]Change, 0, changeChunk)
	}
	df.changes = append(df.changes, c)
}

// errStopped ends a walk whose visit asked to stop.
var errStopped = errors.New("stopped")

func (df *differ) value(ta, tb int32) error {
	if df.stop {
		return errStopped
	}
	if bytes.Equal(df.a.Scanner.Raw(ta), df.b.Scanner.Raw(tb)) {
		return nil
	}
	ka, kb := df.a.Kind(ta), df.b.Kind(tb)
	switch {
	case ka == jsonscan.Object && kb == jsonscan.Object:
		return df.object(ta, tb)
	case ka == jsonscan.Array && kb == jsonscan.Array:
		outer := df.arr
		defer func() { df.arr = outer }()
		df.arr = tb // the innermost array, for the hold's quota
		if len(df.path) == 1 && df.path[0] == "per_request" {
			return df.requests(ta, tb)
		}
		return df.array(ta, tb)
	}
	df.add(Changed, ta, tb)
	return nil
}

func (df *differ) members(d *Doc, side int, ti int32) ([]Member, error) {
	for len(df.scratch) <= df.depth {
		df.scratch = append(df.scratch, [2][]Member{})
	}
	ms := d.appendMembers(df.scratch[df.depth][side][:0], ti)
	df.scratch[df.depth][side] = ms
	sorted := true
	for i := 1; i < len(ms); i++ {
		if ms[i-1].Key >= ms[i].Key {
			if ms[i-1].Key == ms[i].Key {
				return nil, fmt.Errorf("%s: at %s: duplicate key %q", d.where(d.start(ms[i].Val)), PointerOf(df.path), ms[i].Key)
			}
			sorted = false
		}
	}
	if !sorted {
		p := PointerOf(df.path)
		if !df.notCanonicalSeen[d.name] && d.origin == nil { // (a release replay's records are never in byte order: its note says so)
			df.notCanonicalSeen[d.name] = true
			df.notes = append(df.notes, fmt.Sprintf("%s is not canonical: object keys out of byte order at %s (compared by key anyway)", d.name, p))
		}
		sort.SliceStable(ms, func(i, j int) bool { return ms[i].Key < ms[j].Key })
		for i := 1; i < len(ms); i++ {
			if ms[i-1].Key == ms[i].Key {
				return nil, fmt.Errorf("%s: at %s: duplicate key %q", d.where(d.start(ms[i].Val)), p, ms[i].Key)
			}
		}
	}
	return ms, nil
}

func (df *differ) object(ta, tb int32) error {
	ma, err := df.members(df.a, 0, ta)
	if err != nil {
		return err
	}
	mb, err := df.members(df.b, 1, tb)
	if err != nil {
		return err
	}
	df.depth++
	ex := df.ex
	defer func() { df.depth--; df.ex = ex }()
	i, j := 0, 0
	for i < len(ma) || j < len(mb) {
		if df.skipExcluded(ex, ma, mb, &i, &j) {
			continue
		}
		switch {
		case j >= len(mb) || (i < len(ma) && ma[i].Key < mb[j].Key):
			df.path = append(df.path, ma[i].Key)
			df.add(Removed, ma[i].Val, -1)
			df.path = df.path[:len(df.path)-1]
			i++
		case i >= len(ma) || mb[j].Key < ma[i].Key:
			df.path = append(df.path, mb[j].Key)
			df.add(Added, -1, mb[j].Val)
			df.path = df.path[:len(df.path)-1]
			j++
		default:
			df.path = append(df.path, ma[i].Key)
			df.ex = ex.Child(ma[i].Key) // the exclusions below this member, for the walk into it
			if err := df.value(ma[i].Val, mb[j].Val); err != nil {
				return err
			}
			df.path = df.path[:len(df.path)-1]
			i++
			j++
		}
	}
	return nil
}

// skipExcluded steps over the member at i (A) or j (B) when the profile excludes it, saying
// so when its values differ; it reports whether it stepped.
func (df *differ) skipExcluded(ex report.ProfileNode, ma, mb []Member, i, j *int) bool {
	if !ex.Names() {
		return false
	}
	var key string
	inA := *i < len(ma) && (*j >= len(mb) || ma[*i].Key <= mb[*j].Key)
	inB := *j < len(mb) && (*i >= len(ma) || mb[*j].Key <= ma[*i].Key)
	if inA {
		key = ma[*i].Key
	} else {
		key = mb[*j].Key
	}
	if !ex.Child(key).Excluded() {
		return false
	}
	x := Exclusion{Pointer: PointerOf(append(df.path, key))}
	if inA {
		x.A = df.a.Raw(ma[*i].Val)
		*i++
	}
	if inB {
		x.B = df.b.Raw(mb[*j].Val)
		*j++
	}
	if x.A != x.B {
		df.excluded = append(df.excluded, x)
	}
	return true
}

// array compares an ordered array element by element: ordered event arrays keep their order
// in the canonical profile, so position is identity while the lengths agree; otherwise the
// elements are aligned first (alignedArray).
func (df *differ) array(ta, tb int32) error {
	n := df.a.Scanner.Tape[ta].N
	if n != df.b.Scanner.Tape[tb].N {
		return df.alignedArray(ta, tb)
	}
	ex := df.ex
	defer func() { df.ex = ex }()
	ea, eb := ta+1, tb+1 // the elements, stepped along the tapes
	for k := range n {
		if df.visit == nil && !df.holding(tb) && !ex.Names() && (df.a.scalar(ea) || df.b.scalar(eb)) {
			// Past the hold a change is only counted: a scalar element's is, without
			// spelling its pointer (value would add it as Changed).
			if !bytes.Equal(df.a.Scanner.Raw(ea), df.b.Scanner.Raw(eb)) {
				df.tally(tb)
			}
		} else {
			df.path = append(df.path, strconv.Itoa(int(k)))
			df.ex = ex.Child(df.path[len(df.path)-1])
			if err := df.value(ea, eb); err != nil {
				return err
			}
			df.path = df.path[:len(df.path)-1]
		}
		ea, eb = df.a.Scanner.Tape[ea].Next, df.b.Scanner.Tape[eb].Next
	}
	return nil
}

// alignedArray compares an ordered array whose length changed along its alignment: equal
// stretches are skipped, a replaced stretch is compared position by position as far as both
// sides reach, and the rest is removed (A's index) or added (B's index).
func (df *differ) alignedArray(ta, tb int32) error {
	ea, eb := df.a.Elements(ta), df.b.Elements(tb)
	runs, ok := df.aligned[[2]int32{ta, tb}]
	if !ok {
		runs = align(df.a, df.b, ea, eb)
		if df.visit == nil { // the diff's own walks; a later walk only reads (it may run concurrently)
			df.aligned[[2]int32{ta, tb}] = runs
		}
	}
	ex := df.ex
	defer func() { df.ex = ex }()
	at := func(k int) {
		df.path = append(df.path, strconv.Itoa(k))
		df.ex = ex.Child(df.path[len(df.path)-1])
	}
	i, j := 0, 0
	for _, r := range runs {
		if r.equal > 0 {
			i, j = i+r.equal, j+r.equal
			continue
		}
		for k := 0; k < max(r.del, r.ins); k++ {
			switch {
			case k < r.del && k < r.ins:
				at(j + k)
				if err := df.value(ea[i+k], eb[j+k]); err != nil {
					return err
				}
			case k < r.del:
				at(i + k)
				df.add(Removed, ea[i+k], -1)
			default:
				at(j + k)
				df.add(Added, -1, eb[j+k])
			}
			df.path = df.path[:len(df.path)-1]
		}
		i, j = i+r.del, j+r.ins
	}
	return nil
}

// A pair is a record of A and its counterpart in B (per_request indexes).
type pair struct{ a, b int }

// IDKeys are per-request identity fields: a renamed request differs only in these.
var IDKeys = map[string]bool{"uuid": true, "request_uuid": true, "request_id": true, "session_id": true, "play_id": true}

// requests compares /per_request, which the canonical profile sorts by uuid: records are
// paired by uuid, then leftovers by content minus identity fields (a renamed request).
func (df *differ) requests(ta, tb int32) error {
	// A later walk (AllPointers) reuses the records and uuids the first read.
	if df.a.Records == nil || df.b.Records == nil {
		ea, eb := df.a.Elements(ta), df.b.Elements(tb)
		ua, err := uuids(df.a, ea)
		if err != nil {
			return err
		}
		ub, err := uuids(df.b, eb)
		if err != nil {
			return err
		}
		df.a.Records, df.b.Records, df.a.UUIDs, df.b.UUIDs = ea, eb, ua, ub
	}
	ea, eb, ua, ub := df.a.Records, df.b.Records, df.a.UUIDs, df.b.UUIDs
	df.ex = report.ProfileNode{} // records are paired by uuid: an index names no record across the two
	if df.schema == nil {
		df.schema = schemaOf(df.a, df.b, ea, eb)
	}
	pairs, onlyA, onlyB := pairRecords(df.a, df.b, ea, eb, ua, ub, df.schema)
	if df.perArray != nil { // the first walk says it once
		if note := emissionOrder(pairs, ua, ub); note != "" {
			df.notes = append(df.notes, note)
		}
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
		df.add(Removed, ea[k], -1)
		df.path = df.path[:len(df.path)-1]
	}
	for _, j := range onlyB {
		df.req, df.reqA, df.idxA, df.idxB = ub[j], "", -1, j
		df.path = append(df.path, strconv.Itoa(j))
		df.add(Added, -1, eb[j])
		df.path = df.path[:len(df.path)-1]
	}
	df.req, df.reqA, df.idxA, df.idxB = "", "", -1, -1
	return nil
}

func uuids(d *Doc, es []int32) ([]string, error) {
	us := make([]string, len(es))
	for k, e := range es {
		if d.Kind(e) != jsonscan.Object {
			return nil, fmt.Errorf("%s: at /per_request/%d: a per-request record must be an object", d.where(d.start(e)), k)
		}
		v, ok := d.Scanner.Member(e, "uuid")
		if !ok || d.Kind(v) != jsonscan.String {
			return nil, fmt.Errorf("%s: at /per_request/%d/uuid: missing or not a string", d.where(d.start(e)), k)
		}
		us[k] = string(d.Scanner.Str(&d.Scanner.Tape[v]))
	}
	return us, nil
}

// Fingerprint is a record's bytes without its identity members.
func Fingerprint(d *Doc, e int32) string {
	return WithoutKeys(d.Scanner, e, func(k string) bool { return IDKeys[k] })
}

// WithoutKeys is object ti's members (key, then value as written) minus those drop names.
func WithoutKeys(sc *jsonscan.Scanner, ti int32, drop func(string) bool) string {
	var sb strings.Builder
	for k, v := range sc.Members(ti) {
		key := sc.Str(&sc.Tape[k])
		if drop(string(key)) {
			continue
		}
		sb.Write(key)
		sb.WriteByte(0)
		sb.Write(sc.Raw(v))
		sb.WriteByte(0)
	}
	return sb.String()
}
