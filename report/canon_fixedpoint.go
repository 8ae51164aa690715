package report

import (
	"bytes"

	"kvparity/internal/jsonscan"
)

// fixedPointRoot is what fixedPointBreak returns when the record breaks the canonical form at
// the document level rather than inside a value: whitespace around the record (a CRLF line
// end, leading spaces) or inside an empty root object. It is the URI-fragment spelling of the
// root pointer (RFC 6901 §6), because "" already means "no break".
const fixedPointRoot = "#"

// fixedPointBreak reports whether a harness's own canonical output is already a fixed point of
// canonicalizeRecord: "" when it is, else the RFC 6901 pointer of the first value (in document
// order) whose bytes the canonicalization changes — an out-of-order key, an unsorted element of an
// unordered array, a string escaped differently from serde_json, or whitespace.
//
// The comparison is modulo the profile's exclusions: a record that still carries an excluded
// member is not counted as broken for that, because removing exactly those members is the
// canonicalization's job, not a sign that the harness sorts or encodes differently. A single
// trailing "\n" is expected and is not a break; its absence is not one either (lines are often
// passed without it). Bad input returns the same errors as canonicalizeRecord.
func fixedPointBreak(record []byte, p Profile) (pointer string, err error) {
	_, ptr, err := canonicalizeAndCheck(record, p)
	return ptr, err
}

// canonicalizeAndCheck is canonicalizeRecord and fixedPointBreak in one pass over the record, for
// callers (the determinism stage, `kvparity canon`) that need both.
func canonicalizeAndCheck(record []byte, p Profile) (canonical []byte, breakPointer string, err error) {
	root, err := compileProfile(p)
	if err != nil {
		return nil, "", err
	}
	if out, ok := canonicalFast(record, root); ok {
		// The fast path only succeeds on records that differ from their canonical form by
		// excluded members at most: a fixed point by definition.
		return out, "", nil
	}
	s := scanners.Get().(*jsonscan.Scanner)
	defer func() { s.Reset(); scanners.Put(s) }()
	canonical, err = canonicalize(s, record, root)
	if err != nil {
		return nil, "", err
	}
	body := bytes.TrimSuffix(record, []byte{'\n'})
	if len(body)+1 == len(canonical) && bytes.Equal(body, canonical[:len(body)]) {
		return canonical, "", nil
	}
	w := fixedPointWalker{e: emitter{s: s}}
	return canonical, w.walk(root), nil
}

type fixedPointWalker struct {
	e emitter // only its path and scanner are used, for pointers and tie-break encodings
}

func (w *fixedPointWalker) walk(root *ptrNode) string {
	s := w.e.s
	t := &s.Tape[0]
	if t.Flags&jsonscan.SpaceBefore != 0 {
		return fixedPointRoot
	}
	if ptr := w.value(0, root); ptr != "" {
		return ptr
	}
	rest := s.Input()[t.End:]
	if len(rest) > 0 && !(len(rest) == 1 && rest[0] == '\n') {
		return fixedPointRoot
	}
	return ""
}

func (w *fixedPointWalker) here() string {
	return w.e.s.Pointer(w.e.path)
}

// value checks token ti, whose own pointer is the walker's current path.
func (w *fixedPointWalker) value(ti int32, node *ptrNode) string {
	s := w.e.s
	t := &s.Tape[ti]
	if ti != 0 && t.Flags&jsonscan.SpaceBefore != 0 {
		return w.here()
	}
	switch t.Kind {
	case jsonscan.String:
		if !serdeEncoded(s, t) {
			return w.here()
		}
	case jsonscan.Object:
		return w.object(ti, node)
	case jsonscan.Array:
		return w.array(ti, node)
	}
	return ""
}

func (w *fixedPointWalker) object(ti int32, node *ptrNode) string {
	s := w.e.s
	t := &s.Tape[ti]
	var prev []byte
	havePrev := false
	k := ti + 1
	for m := int32(0); m < t.N; m, k = m+1, s.Tape[k+1].Next {
		key := s.Str(&s.Tape[k])
		child := node.child(key)
		if child != nil && child.exclude {
			continue
		}
		w.e.path = append(w.e.path, jsonscan.Step{Key: k})
		kt := &s.Tape[k]
		if kt.Flags&jsonscan.SpaceBefore != 0 || !serdeEncoded(s, kt) || (havePrev && bytes.Compare(prev, key) >= 0) {
			return w.here()
		}
		if ptr := w.value(k+1, child); ptr != "" {
			return ptr
		}
		w.e.path = w.e.path[:len(w.e.path)-1]
		prev, havePrev = key, true
	}
	if t.Flags&jsonscan.SpaceClose != 0 {
		if ti == 0 {
			return fixedPointRoot
		}
		return w.here()
	}
	return ""
}

func (w *fixedPointWalker) array(ti int32, node *ptrNode) string {
	s := w.e.s
	t := &s.Tape[ti]
	w.e.path = append(w.e.path, jsonscan.Step{Key: -1})
	top := len(w.e.path) - 1
	var prev *element
	k := ti + 1
	for i := int32(0); i < t.N; i, k = i+1, s.Tape[k].Next {
		child := node.childIndex(int(i))
		if child != nil && child.exclude {
			continue
		}
		w.e.path[top].Index = i
		if node != nil && node.unsorted {
			// canonicalizeRecord already proved every element has a string sort key.
			key, _ := w.e.sortKey(k, node.sortBy)
			cur := &element{ti: k, idx: i, key: key, child: child}
			if prev != nil {
				c := bytes.Compare(prev.key, cur.key)
				if c == 0 {
					var err error
					c = bytes.Compare(w.e.elementCanon(prev, &err), w.e.elementCanon(cur, &err))
				}
				if c > 0 {
					return w.here()
				}
			}
			prev = cur
		}
		if ptr := w.value(k, child); ptr != "" {
			return ptr
		}
	}
	w.e.path = w.e.path[:top]
	if t.Flags&jsonscan.SpaceClose != 0 {
		return w.here()
	}
	return ""
}

// serdeEncoded reports whether string token t is spelled exactly as serde_json would spell it.
func serdeEncoded(s *jsonscan.Scanner, t *jsonscan.Token) bool {
	if t.Flags&jsonscan.Escaped == 0 {
		return true
	}
	raw := s.Input()[t.Start:t.End]
	var buf [128]byte
	enc := AppendJSONString(buf[:0], s.Str(t))
	return bytes.Equal(raw, enc[1:len(enc)-1])
}
