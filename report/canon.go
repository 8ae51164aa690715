package report

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"sync"

	"kvparity/internal/jsonscan"
)

// A canonError is bad input found while canonicalizing a record: it names the RFC 6901
// pointer of the offending value and the byte offset in the record where it was found.
// Pointer "" is the record root. Offset counts bytes from the start of the record (for a JSONL
// file, of its line); it is -1 when no single byte is to blame.
type canonError struct {
	Pointer string
	Offset  int64
	Msg     string
	// Profile marks a record the profile does not fit: an unordered pointer names something
	// that is not an array of objects holding the sort key as a string.
	Profile bool
}

// ProfileMismatch reports whether err says the canonicalization profile does not fit the
// record (an unordered array that is an object, or whose elements lack their string sort
// key): the profile (a row's [canonical] unordered) is to blame, not only the report. It
// returns the pointer of the offending value.
func ProfileMismatch(err error) (string, bool) {
	var ce *canonError
	if errors.As(err, &ce) && ce.Profile {
		return ce.Pointer, true
	}
	return "", false
}

func (e *canonError) Error() string {
	where := "at " + strconv.Quote(e.Pointer)
	if e.Pointer == "" {
		where = "at the record root"
	}
	if e.Offset >= 0 {
		where += " (byte " + strconv.FormatInt(e.Offset, 10) + ")"
	}
	return "canonical report " + where + ": " + e.Msg
}

// scanners are pooled because a 30 MB report needs a tape of a few million tokens; reusing it
// across the lines of a file and the repetitions of a campaign keeps the garbage collector out
// of the hot path.
var scanners = sync.Pool{New: func() any { return newScanner() }}

// newScanner is a scanner with the canonical profile's grammar: numbers must fit a float64.
func newScanner() *jsonscan.Scanner { return &jsonscan.Scanner{Finite: true} }

// canonErr turns a scan error into a *canonError.
func canonErr(err error) error {
	if e, ok := err.(*jsonscan.Error); ok {
		return &canonError{Pointer: e.Pointer, Offset: int64(e.Offset), Msg: e.Msg}
	}
	return err
}

// parseRecord scans in as exactly one JSON object followed by optional whitespace.
func parseRecord(s *jsonscan.Scanner, in []byte) error {
	if int64(len(in)) > 1<<31-1 {
		return &canonError{Offset: 0, Msg: "record larger than 2 GiB"}
	}
	pos := jsonscan.SkipSpace(in, 0)
	if pos >= len(in) {
		return &canonError{Offset: int64(pos), Msg: "empty record (expected a JSON object)"}
	}
	if in[pos] != '{' {
		return &canonError{Offset: int64(pos), Msg: "record is not a JSON object (starts with " + jsonscan.QuoteByte(in[pos]) + ")"}
	}
	end, err := s.ScanAt(in, 0)
	if err != nil {
		return canonErr(err)
	}
	if pos = jsonscan.SkipSpace(in, end); pos < len(in) {
		return &canonError{Offset: int64(pos), Msg: "trailing data after the record: " + jsonscan.Excerpt(in[pos:])}
	}
	return nil
}

// canonicalizeRecord returns the canonical form of one record (one JSON object, e.g. a JSONL
// line with or without its newline) under profile p: object keys sorted bytewise at every level,
// number literals copied verbatim, strings re-encoded the serde_json way, exactly p's exclusions
// removed, p's unordered arrays sorted by their key, compact, plus "\n".
//
// Strings: serde_json escapes only '"', '\\' and control characters (\b \f \n \r \t short, the
// rest as \u00xx lowercase) and writes everything else raw. Input escapes that serde would not
// write (\/, \u00e9, surrogate pairs, uppercase hex) are decoded and re-encoded that way, so two
// spellings of the same string canonicalize to the same bytes; lone surrogates are errors, as
// in serde_json.
//
// Errors (*canonError): non-finite numbers (NaN, Infinity, literals overflowing float64),
// duplicate keys, invalid UTF-8, raw control characters, truncated input, trailing data, a
// non-object record, and unordered arrays whose elements lack a string sort key.
func canonicalizeRecord(record []byte, p Profile) ([]byte, error) {
	root, err := compileProfile(p)
	if err != nil {
		return nil, err
	}
	if out, ok := canonicalFast(record, root); ok {
		return out, nil
	}
	s := scanners.Get().(*jsonscan.Scanner)
	defer func() { s.Reset(); scanners.Put(s) }()
	return canonicalize(s, record, root)
}

// canonicalize leaves the record's tape in s for callers that walk it afterwards.
func canonicalize(s *jsonscan.Scanner, record []byte, root *ptrNode) ([]byte, error) {
	if err := parseRecord(s, record); err != nil {
		return nil, err
	}
	e := emitter{s: s, out: make([]byte, 0, len(record)+1)}
	if err := e.emit(0, root); err != nil {
		return nil, err
	}
	return append(e.out, '\n'), nil
}

// An emitter writes the canonical form of a scanned tape.
type emitter struct {
	s       *jsonscan.Scanner
	out     []byte
	members []int32 // stack of member key indices of the objects being emitted
	path    []jsonscan.Step
}

func (e *emitter) fail(off int32, msg string) error {
	return &canonError{Pointer: e.s.Pointer(e.path), Offset: int64(off), Msg: msg}
}

// failProfile is fail for a record the profile's unordered arrays do not fit.
func (e *emitter) failProfile(off int32, msg string) error {
	return &canonError{Pointer: e.s.Pointer(e.path), Offset: int64(off), Msg: msg, Profile: true}
}

func (e *emitter) emit(ti int32, node *ptrNode) error {
	t := &e.s.Tape[ti]
	switch t.Kind {
	case jsonscan.Object:
		if node != nil && node.unsorted {
			return e.failProfile(t.Start, "the profile names this as an unordered array (sorted by "+strconv.Quote(node.sortBy)+"), but it is an object")
		}
		return e.object(ti, node)
	case jsonscan.Array:
		if node != nil && node.unsorted {
			return e.sortedArray(ti, node)
		}
		return e.array(ti, node)
	case jsonscan.String:
		e.out = e.appendString(e.out, t)
	default:
		e.out = append(e.out, e.s.Input()[t.Start:t.End]...)
	}
	return nil
}

func (e *emitter) object(ti int32, node *ptrNode) error {
	s := e.s
	n := s.Tape[ti].N
	lo := len(e.members)
	k := ti + 1
	for m := int32(0); m < n; m++ {
		e.members = append(e.members, k)
		k = s.Tape[k+1].Next
	}
	if err := e.sortMembers(lo); err != nil {
		return err
	}
	hi := len(e.members)
	e.out = append(e.out, '{')
	first := true
	for i := lo; i < hi; i++ {
		key := e.members[i]
		var child *ptrNode
		if node != nil {
			child = node.child(s.Str(&s.Tape[key]))
			if child != nil && child.exclude {
				continue
			}
		}
		if !first {
			e.out = append(e.out, ',')
		}
		first = false
		e.out = e.appendString(e.out, &s.Tape[key])
		e.out = append(e.out, ':')
		e.path = append(e.path, jsonscan.Step{Key: key})
		if err := e.emit(key+1, child); err != nil {
			return err
		}
		e.path = e.path[:len(e.path)-1]
	}
	e.out = append(e.out, '}')
	e.members = e.members[:lo]
	return nil
}

// sortMembers sorts e.members[lo:] by decoded key bytes (Rust BTreeMap<String> order) and
// rejects duplicate keys. Harness output is usually sorted already, so that is checked first.
func (e *emitter) sortMembers(lo int) error {
	s := e.s
	mem := e.members[lo:]
	key := func(i int32) []byte { return s.Str(&s.Tape[i]) }
	sorted := true
	for i := 1; i < len(mem); i++ {
		if c := bytes.Compare(key(mem[i-1]), key(mem[i])); c >= 0 {
			if c == 0 {
				return e.duplicate(mem[i])
			}
			sorted = false
			break
		}
	}
	if sorted {
		return nil
	}
	slices.SortFunc(mem, func(a, b int32) int { return bytes.Compare(key(a), key(b)) })
	for i := 1; i < len(mem); i++ {
		if bytes.Equal(key(mem[i-1]), key(mem[i])) {
			return e.duplicate(max(mem[i-1], mem[i]))
		}
	}
	return nil
}

func (e *emitter) duplicate(key int32) error {
	e.path = append(e.path, jsonscan.Step{Key: key})
	err := e.fail(e.s.Tape[key].Start-1, "duplicate key "+strconv.Quote(string(e.s.Str(&e.s.Tape[key]))))
	e.path = e.path[:len(e.path)-1]
	return err
}

func (e *emitter) array(ti int32, node *ptrNode) error {
	s := e.s
	n := s.Tape[ti].N
	e.out = append(e.out, '[')
	e.path = append(e.path, jsonscan.Step{Key: -1})
	top := len(e.path) - 1
	k := ti + 1
	first := true
	for i := int32(0); i < n; i, k = i+1, s.Tape[k].Next {
		var child *ptrNode
		if node != nil {
			child = node.childIndex(int(i))
			if child != nil && child.exclude {
				continue
			}
		}
		if !first {
			e.out = append(e.out, ',')
		}
		first = false
		e.path[top].Index = i
		if err := e.emit(k, child); err != nil {
			return err
		}
	}
	e.path = e.path[:top]
	e.out = append(e.out, ']')
	return nil
}

// An element of an explicitly unordered array.
type element struct {
	ti    int32
	idx   int32
	key   []byte
	child *ptrNode
	canon []byte // computed only to break ties between equal keys
}

// sortedArray emits an explicitly unordered array sorted bytewise by each element's sortBy
// member (a string). Elements with equal keys are ordered by their canonical bytes, so the
// output does not depend on the input order even then. Exclusion pointers with an index
// (e.g. /per_request/3) name the element by its position in the input.
func (e *emitter) sortedArray(ti int32, node *ptrNode) error {
	s := e.s
	n := s.Tape[ti].N
	elems := make([]element, 0, n)
	e.path = append(e.path, jsonscan.Step{Key: -1})
	top := len(e.path) - 1
	k := ti + 1
	for i := int32(0); i < n; i, k = i+1, s.Tape[k].Next {
		child := node.childIndex(int(i))
		if child != nil && child.exclude {
			continue
		}
		e.path[top].Index = i
		key, err := e.sortKey(k, node.sortBy)
		if err != nil {
			return err
		}
		elems = append(elems, element{ti: k, idx: i, key: key, child: child})
	}
	sorted := true
	for i := 1; i < len(elems); i++ {
		if bytes.Compare(elems[i-1].key, elems[i].key) >= 0 {
			sorted = false
			break
		}
	}
	var tieErr error
	if !sorted {
		// Sort positions, not copies, so that tie-break encodings are memoized in elems.
		order := make([]int32, len(elems))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortStableFunc(order, func(a, b int32) int {
			if c := bytes.Compare(elems[a].key, elems[b].key); c != 0 {
				return c
			}
			return bytes.Compare(e.elementCanon(&elems[a], &tieErr), e.elementCanon(&elems[b], &tieErr))
		})
		if tieErr != nil {
			return tieErr
		}
		sortedElems := make([]element, len(elems))
		for i, j := range order {
			sortedElems[i] = elems[j]
		}
		elems = sortedElems
	}
	e.out = append(e.out, '[')
	for i := range elems {
		if i > 0 {
			e.out = append(e.out, ',')
		}
		e.path[top].Index = elems[i].idx
		if elems[i].canon != nil {
			e.out = append(e.out, elems[i].canon...)
			continue
		}
		if err := e.emit(elems[i].ti, elems[i].child); err != nil {
			return err
		}
	}
	e.path = e.path[:top]
	e.out = append(e.out, ']')
	return nil
}

// sortKey finds the decoded string value of member name in the object at ti.
func (e *emitter) sortKey(ti int32, name string) ([]byte, error) {
	s := e.s
	t := &s.Tape[ti]
	if t.Kind != jsonscan.Object {
		return nil, e.failProfile(t.Start, "element of an unordered array is not an object (cannot sort it by "+strconv.Quote(name)+")")
	}
	k := ti + 1
	for m := int32(0); m < t.N; m++ {
		if string(s.Str(&s.Tape[k])) == name {
			v := &s.Tape[k+1]
			if v.Kind != jsonscan.String {
				e.path = append(e.path, jsonscan.Step{Key: k})
				err := e.failProfile(v.Start, "sort key "+strconv.Quote(name)+" of an unordered array element is not a string")
				e.path = e.path[:len(e.path)-1]
				return nil, err
			}
			return s.Str(v), nil
		}
		k = s.Tape[k+1].Next
	}
	return nil, e.failProfile(t.Start, "element of an unordered array has no sort key "+strconv.Quote(name))
}

// elementCanon canonicalizes one element on its own (memoized) for tie-breaking.
func (e *emitter) elementCanon(el *element, errp *error) []byte {
	if el.canon == nil {
		sub := emitter{s: e.s, path: append([]jsonscan.Step(nil), e.path...)}
		sub.path[len(sub.path)-1].Index = el.idx
		if err := sub.emit(el.ti, el.child); err != nil && *errp == nil {
			*errp = err
		}
		el.canon = sub.out
		if el.canon == nil {
			el.canon = []byte{}
		}
	}
	return el.canon
}

// appendString writes string token t the way serde_json would.
func (e *emitter) appendString(out []byte, t *jsonscan.Token) []byte {
	if t.Flags&jsonscan.Escaped == 0 {
		// Without escapes the raw bytes hold no '"', '\\' or control characters (the scanner
		// rejected those), which is exactly serde's output for them.
		out = append(out, '"')
		out = append(out, e.s.Input()[t.Start:t.End]...)
		return append(out, '"')
	}
	return AppendJSONString(out, e.s.Str(t))
}
