package diffview

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unsafe"

	"kvparity/internal/jsonscan"
	"kvparity/internal/pointer"
)

// Loading one canonical report and reading values out of it by pointer.

// A doc is one loaded report line and its scanned tape. Values are named by their tape
// index (int32), the way jsonscan links them.
type doc struct {
	name   string            // file name for messages
	line   int               // 1-based line of the report in its file
	sc     *jsonscan.Scanner // the line's tape (sc.Input() is the line)
	text   string            // the line; values are substrings of it (no allocation per change)
	reqs   []int32           // per_request elements, in order (filled by the diff)
	uuids  []string          // their uuids
	memo   map[int][]member  // parsed per_request records, by index
	arrays map[int32][]int32 // element lists of long arrays read by index
	root   map[string]int32  // top-level members
	// origin maps offsets back to a release replay's own files (release.go); nil for a
	// canonical report, whose text is its file's line.
	origin *releaseOrigin
}

// A member is one key/value pair of an object: the decoded key and the value's tape index.
type member struct {
	key string
	val int32
}

// parseDoc takes the report line of a canonical-reports JSONL file. Several lines (one per
// iteration) must be byte-identical, as the harness itself enforces. owned says src is the
// doc's alone (read from its file, never written again): its values are then substrings of
// src itself instead of a copy, which would double the memory a large diff holds.
func parseDoc(name string, src []byte, owned bool) (*doc, error) {
	var first []byte
	firstLine, lineNo := 0, 0
	rest := src
	for len(rest) > 0 {
		lineNo++
		var line []byte
		if k := bytes.IndexByte(rest, '\n'); k >= 0 {
			line, rest = rest[:k], rest[k+1:]
		} else {
			line, rest = rest, nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if first == nil {
			first, firstLine = line, lineNo
			if lineNo == 1 && len(rest) > 0 && bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) && !bytes.HasSuffix(bytes.TrimSpace(line), []byte("}")) {
				// Pretty-printed JSON spans lines: take the whole file as one value.
				first, rest = src, nil
			}
			continue
		}
		if !bytes.Equal(line, first) {
			return nil, fmt.Errorf("%s:%d: report line differs from line %d (iterations must be byte-identical)", name, lineNo, firstLine)
		}
	}
	if first == nil {
		return nil, fmt.Errorf("%s: no report line (empty file)", name)
	}
	return scanDoc(&doc{name: name, line: firstLine}, first, owned)
}

// scanDoc scans one report object (first) onto d's tape; owned as for parseDoc.
func scanDoc(d *doc, first []byte, owned bool) (*doc, error) {
	d.sc = new(jsonscan.Scanner)
	name, firstLine := d.name, d.line
	if owned {
		d.text = unsafe.String(unsafe.SliceData(first), len(first))
	} else {
		d.text = string(first)
		first = unsafe.Slice(unsafe.StringData(d.text), len(d.text)) // the tape spans the copy
	}
	i := jsonscan.SkipSpace(first, 0)
	if i >= len(first) || first[i] != '{' {
		return nil, fmt.Errorf("%s:%d: a canonical report must be a JSON object", name, firstLine)
	}
	// ScanAt sizes the tape for compact reports (a token per 12 bytes); denser input gets its
	// exact bound at once.
	if n := jsonscan.MaxTokens(first[i:]); n > (len(first)-i)/12 {
		d.sc.Tape = make([]jsonscan.Token, 0, n)
	}
	end, err := d.sc.ScanAt(first, i)
	if err != nil {
		return nil, d.errAt(err)
	}
	if j := jsonscan.SkipSpace(first, end); j != len(first) {
		return nil, fmt.Errorf("%s: unexpected data after the report object", d.where(j))
	}
	d.root = make(map[string]int32, d.sc.Tape[0].N)
	for _, m := range d.members(0) {
		d.root[m.key] = m.val
	}
	return d, nil
}

// errAt turns a scan error into "file:line:col: at POINTER: message".
func (d *doc) errAt(err error) error {
	var se *jsonscan.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("%s:%d: %v", d.name, d.line, err)
	}
	return fmt.Errorf("%s: at %s: %s", d.where(se.Offset), displayPointer(se.Pointer), se.Msg)
}

// where names byte offset off of the report line as "file:line:col": of the line itself, or,
// for a report laid out from a release replay's files, of the file and line it came from.
func (d *doc) where(off int) string {
	if d.origin != nil {
		return d.origin.where(off)
	}
	return fmt.Sprintf("%s:%d:%d", d.name, d.line, off+1)
}

// displayPointer spells the root pointer "" as "/" in messages.
func displayPointer(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// pointerOf is the pointer of a path of member keys and element indexes ("/" for the root).
func pointerOf(path []string) string { return displayPointer(pointer.Join(path)) }

// splitPointer undoes pointerOf (its pointers are always well formed).
func splitPointer(p string) []string {
	if p == "/" {
		return nil
	}
	segs, _ := pointer.Parse(p)
	return segs
}

func (d *doc) kind(ti int32) jsonscan.Kind { return d.sc.Tape[ti].Kind }

// scalar says value ti is neither an object nor an array.
func (d *doc) scalar(ti int32) bool {
	k := d.kind(ti)
	return k != jsonscan.Object && k != jsonscan.Array
}

// raw is value ti as written (strings with their quotes).
func (d *doc) raw(ti int32) string {
	s, e := d.sc.Span(ti)
	return d.text[s:e]
}

// start is the byte offset where value ti begins.
func (d *doc) start(ti int32) int { s, _ := d.sc.Span(ti); return s }

// members lists the members of object ti with their decoded keys.
func (d *doc) members(ti int32) []member {
	return d.appendMembers(make([]member, 0, d.sc.Tape[ti].N), ti)
}

// appendMembers appends the members of object ti to ms.
func (d *doc) appendMembers(ms []member, ti int32) []member {
	for k, v := range d.sc.Members(ti) {
		ms = append(ms, member{key: d.str(k), val: v})
	}
	return ms
}

// str is string token ti decoded: a substring of the line unless it holds escapes (a key is
// read for every member compared, so most keys cost no allocation).
func (d *doc) str(ti int32) string {
	t := &d.sc.Tape[ti]
	if t.Flags&jsonscan.Escaped == 0 {
		return d.text[t.Start:t.End]
	}
	return string(d.sc.Str(t))
}

// element is element k of array ti. Elements are found by walking the tape, so a long array
// read element by element (a lens placing each change) has its element list kept.
func (d *doc) element(ti int32, k int) (int32, bool) {
	if d.sc.Tape[ti].N <= 64 {
		return d.sc.Element(ti, k)
	}
	es, ok := d.arrays[ti]
	if !ok {
		if d.arrays == nil {
			d.arrays = map[int32][]int32{}
		}
		es = d.elements(ti)
		d.arrays[ti] = es
	}
	if k < 0 || k >= len(es) {
		return 0, false
	}
	return es[k], true
}

// elements lists the elements of array ti.
func (d *doc) elements(ti int32) []int32 {
	es := make([]int32, 0, d.sc.Tape[ti].N)
	for _, el := range d.sc.Elements(ti) {
		es = append(es, el)
	}
	return es
}

// record returns the parsed members of per_request record idx of d (memoized).
func (d *doc) record(idx int) []member {
	if idx < 0 || idx >= len(d.reqs) {
		return nil
	}
	if d.memo == nil {
		d.memo = map[int][]member{}
	}
	if ms, ok := d.memo[idx]; ok {
		return ms
	}
	ms := d.members(d.reqs[idx])
	d.memo[idx] = ms
	return ms
}

// fieldValue returns the value of key in per_request record idx.
func (d *doc) fieldValue(idx int, key string) (int32, bool) {
	for _, m := range d.record(idx) {
		if m.key == key {
			return m.val, true
		}
	}
	return 0, false
}

// field returns the raw value of key in per_request record idx.
func (d *doc) field(idx int, key string) (string, bool) {
	if v, ok := d.fieldValue(idx, key); ok {
		return d.raw(v), true
	}
	return "", false
}

// fieldArray views key of per_request record idx as an array of objects, or returns nil.
func (d *doc) fieldArray(idx int, key string) *arrayView {
	if v, ok := d.fieldValue(idx, key); ok {
		return arrayViewOf(d, v)
	}
	return nil
}

// value resolves a pointer in d to its value.
func (d *doc) value(ptr string) (int32, bool) {
	segs := splitPointer(ptr)
	if len(segs) == 0 {
		return 0, true
	}
	v, ok := d.root[segs[0]]
	if !ok {
		return 0, false
	}
	rest := segs[1:]
	if segs[0] == "per_request" && len(rest) > 0 && d.reqs != nil {
		// The per_request elements are already listed: no walk through the largest array.
		k, err := strconv.Atoi(rest[0])
		if err != nil || k < 0 || k >= len(d.reqs) {
			return 0, false
		}
		v, rest = d.reqs[k], rest[1:]
	}
	for _, seg := range rest {
		switch d.kind(v) {
		case jsonscan.Object:
			if v, ok = d.sc.Member(v, seg); !ok {
				return 0, false
			}
		case jsonscan.Array:
			k, err := strconv.Atoi(seg)
			if err != nil {
				return 0, false
			}
			if v, ok = d.element(v, k); !ok {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	return v, true
}

// at resolves a pointer in d to its raw value.
func (d *doc) at(ptr string) (string, bool) {
	if v, ok := d.value(ptr); ok {
		return d.raw(v), true
	}
	return "", false
}
