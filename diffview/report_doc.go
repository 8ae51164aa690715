package diffview

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"kvparity/internal/jsonscan"
	"kvparity/internal/pointer"
)

// Loading one canonical report and reading values out of it by pointer.

// A Doc is one loaded report line and its scanned tape. Values are named by their tape
// index (int32), the way jsonscan links them.
type Doc struct {
	name    string            // file name for messages
	line    int               // 1-based line of the report in its file
	Scanner *jsonscan.Scanner // the line's tape (Scanner.Input() is the line)
	text    string            // the line; values are substrings of it (no allocation per change)
	Records []int32           // per_request elements, in order (filled by the diff)
	UUIDs   []string          // their uuids
	memo    map[int][]Member  // parsed per_request records, by index
	arrays  map[int32][]int32 // element lists of long arrays read by index
	Root    map[string]int32  // top-level members
	// origin maps offsets back to a release replay's own files (release.go); nil for a
	// canonical report, whose text is its file's line.
	origin *releaseOrigin
}

// A Member is one key/value pair of an object: the decoded key and the value's tape index.
type Member struct {
	Key string
	Val int32
}

// parseDoc takes the report line of a canonical-reports JSONL file. Several lines (one per
// iteration) must be byte-identical, as the harness itself enforces. owned says src is the
// doc's alone (read from its file, never written again): its values are then substrings of
// src itself instead of a copy, which would double the memory a large diff holds.
func parseDoc(name string, src []byte, owned bool) (*Doc, error) {
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
	return scanDoc(&Doc{name: name, line: firstLine}, first, owned)
}

// scanDoc scans one report object (first) onto d's tape; owned as for parseDoc.
func scanDoc(d *Doc, first []byte, owned bool) (*Doc, error) {
	d.Scanner = new(jsonscan.Scanner)
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
		d.Scanner.Tape = make([]jsonscan.Token, 0, n)
	}
	end, err := d.Scanner.ScanAt(first, i)
	if err != nil {
		return nil, d.errAt(err)
	}
	if j := jsonscan.SkipSpace(first, end); j != len(first) {
		return nil, fmt.Errorf("%s: unexpected data after the report object", d.where(j))
	}
	d.Root = make(map[string]int32, d.Scanner.Tape[0].N)
	for _, m := range d.Members(0) {
		d.Root[m.Key] = m.Val
	}
	return d, nil
}

// errAt turns a scan error into "file:line:col: at POINTER: message".
func (d *Doc) errAt(err error) error {
	var se *jsonscan.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("%s:%d: %v", d.name, d.line, err)
	}
	return fmt.Errorf("%s: at %s: %s", d.where(se.Offset), DisplayPointer(se.Pointer), se.Msg)
}

// where names byte offset off of the report line as "file:line:col": of the line itself, or,
// for a report laid out from a release replay's files, of the file and line it came from.
func (d *Doc) where(off int) string {
	if d.origin != nil {
		return d.origin.where(off)
	}
	return fmt.Sprintf("%s:%d:%d", d.name, d.line, off+1)
}

// DisplayPointer spells the root pointer "" as "/" in messages.
func DisplayPointer(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// PointerOf is the pointer of a path of member keys and element indexes ("/" for the root).
func PointerOf(path []string) string { return DisplayPointer(pointer.Join(path)) }

// SplitPointer undoes PointerOf (its pointers are always well formed).
func SplitPointer(p string) []string {
	if p == "/" {
		return nil
	}
	segs, _ := pointer.Parse(p)
	return segs
}

// Kind is value ti's JSON kind.
func (d *Doc) Kind(ti int32) jsonscan.Kind { return d.Scanner.Tape[ti].Kind }

// scalar says value ti is neither an object nor an array.
func (d *Doc) scalar(ti int32) bool {
	k := d.Kind(ti)
	return k != jsonscan.Object && k != jsonscan.Array
}

// Raw is value ti as written (strings with their quotes).
func (d *Doc) Raw(ti int32) string {
	s, e := d.Scanner.Span(ti)
	return d.text[s:e]
}

// start is the byte offset where value ti begins.
func (d *Doc) start(ti int32) int { s, _ := d.Scanner.Span(ti); return s }

// Members lists the members of object ti with their decoded keys.
func (d *Doc) Members(ti int32) []Member {
	return d.appendMembers(make([]Member, 0, d.Scanner.Tape[ti].N), ti)
}

// appendMembers appends the members of object ti to ms.
func (d *Doc) appendMembers(ms []Member, ti int32) []Member {
	for k, v := range d.Scanner.Members(ti) {
		ms = append(ms, Member{Key: d.Str(k), Val: v})
	}
	return ms
}

// Str is string token ti decoded: a substring of the line unless it holds escapes (a key is
// read for every member compared, so most keys cost no allocation).
func (d *Doc) Str(ti int32) string {
	t := &d.Scanner.Tape[ti]
	if t.Flags&jsonscan.Escaped == 0 {
		return d.text[t.Start:t.End]
	}
	return string(d.Scanner.Str(t))
}

// element is element k of array ti. Elements are found by walking the tape, so a long array
// read element by element (a lens placing each change) has its element list kept.
func (d *Doc) element(ti int32, k int) (int32, bool) {
	if d.Scanner.Tape[ti].N <= 64 {
		return d.Scanner.Element(ti, k)
	}
	es, ok := d.arrays[ti]
	if !ok {
		if d.arrays == nil {
			d.arrays = map[int32][]int32{}
		}
		es = d.Elements(ti)
		d.arrays[ti] = es
	}
	if k < 0 || k >= len(es) {
		return 0, false
	}
	return es[k], true
}

// Elements lists the elements of array ti.
func (d *Doc) Elements(ti int32) []int32 {
	es := make([]int32, 0, d.Scanner.Tape[ti].N)
	for _, el := range d.Scanner.Elements(ti) {
		es = append(es, el)
	}
	return es
}

// record returns the parsed members of per_request record idx of d (memoized).
func (d *Doc) record(idx int) []Member {
	if idx < 0 || idx >= len(d.Records) {
		return nil
	}
	if d.memo == nil {
		d.memo = map[int][]Member{}
	}
	if ms, ok := d.memo[idx]; ok {
		return ms
	}
	ms := d.Members(d.Records[idx])
	d.memo[idx] = ms
	return ms
}

// FieldValue returns the value of key in per_request record idx.
func (d *Doc) FieldValue(idx int, key string) (int32, bool) {
	for _, m := range d.record(idx) {
		if m.Key == key {
			return m.Val, true
		}
	}
	return 0, false
}

// Field returns the raw value of key in per_request record idx.
func (d *Doc) Field(idx int, key string) (string, bool) {
	if v, ok := d.FieldValue(idx, key); ok {
		return d.Raw(v), true
	}
	return "", false
}

// Value resolves a pointer in d to its value.
func (d *Doc) Value(ptr string) (int32, bool) {
	segs := SplitPointer(ptr)
	if len(segs) == 0 {
		return 0, true
	}
	v, ok := d.Root[segs[0]]
	if !ok {
		return 0, false
	}
	rest := segs[1:]
	if segs[0] == "per_request" && len(rest) > 0 && d.Records != nil {
		// The per_request elements are already listed: no walk through the largest array.
		k, err := strconv.Atoi(rest[0])
		if err != nil || k < 0 || k >= len(d.Records) {
			return 0, false
		}
		v, rest = d.Records[k], rest[1:]
	}
	for _, seg := range rest {
		switch d.Kind(v) {
		case jsonscan.Object:
			if v, ok = d.Scanner.Member(v, seg); !ok {
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

// At resolves a pointer in d to its raw value.
func (d *Doc) At(ptr string) (string, bool) {
	if v, ok := d.Value(ptr); ok {
		return d.Raw(v), true
	}
	return "", false
}

// LastSegment is the last segment of pointer p, as written (escaped).
func LastSegment(p string) string {
	if k := strings.LastIndexByte(p, '/'); k >= 0 {
		return p[k+1:]
	}
	return p
}

// ElementPrefix returns the pointer of the innermost array element that holds p, that array's
// and the element's index ("/coverage/pressure/records/3/at_ms" → "/coverage/pressure/records",
// "/coverage/pressure/records/3", 3).
func ElementPrefix(p string) (arr, elem string, n int, ok bool) {
	// Read segments from the end of the pointer itself: an element index has no escapes, so the
	// holding array's pointer is a prefix of p (no split, no allocation: this runs per change).
	for end := len(p); ; {
		k := strings.LastIndexByte(p[:end], '/')
		if k <= 0 { // the first segment names a root member, never an element
			return "", "", 0, false
		}
		if n, ok := pointer.Index(p[k+1 : end]); ok && p[:k] != "/per_request" {
			return p[:k], p[:end], n, true
		}
		end = k
	}
}
