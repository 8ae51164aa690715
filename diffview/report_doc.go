package diffview

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Loading one canonical report and reading values out of it by pointer.

// A doc is one loaded report line.
type doc struct {
	name  string // file name for messages
	line  int    // 1-based line of the report in its file
	src   []byte
	reqs  []span           // per_request elements, in order (filled by the diff)
	uuids []string         // their uuids
	memo  map[int][]member // parsed per_request records, by index
	root  map[string]span  // top-level members
}

func loadDoc(path string) (*doc, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseDoc(path, src)
}

// parseDoc takes the report line of a canonical-reports JSONL file. Several lines (one per
// iteration) must be byte-identical, as the harness itself enforces.
func parseDoc(name string, src []byte) (*doc, error) {
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
	d := &doc{name: name, line: firstLine, src: first}
	i := skipSpace(first, 0)
	if i >= len(first) || first[i] != '{' {
		return nil, fmt.Errorf("%s:%d: a canonical report must be a JSON object", name, firstLine)
	}
	end, err := skipValue(first, i, 0)
	if err != nil {
		return nil, d.errAt(err)
	}
	if j := skipSpace(first, end); j != len(first) {
		return nil, fmt.Errorf("%s:%d:%d: unexpected data after the report object", name, firstLine, j+1)
	}
	ms, _ := objectMembers(first, i)
	d.root = make(map[string]span, len(ms))
	for _, m := range ms {
		d.root[m.key] = span{m.start, m.end}
	}
	return d, nil
}

// errAt turns a scan error into "file:line:col: at POINTER: message".
func (d *doc) errAt(err error) error {
	var se *syntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("%s:%d: %v", d.name, d.line, err)
	}
	ptr := locate(d.src, skipSpace(d.src, 0), se.off, nil)
	return fmt.Errorf("%s:%d:%d: at %s: %s", d.name, d.line, se.off+1, pointerOf(ptr), se.msg)
}

// locate finds the pointer of the innermost value that contains byte off.
func locate(src []byte, i, off int, path []string) []string {
	if i >= len(src) || (src[i] != '{' && src[i] != '[') {
		return path
	}
	obj := src[i] == '{'
	i = skipSpace(src, i+1)
	for idx := 0; i < len(src) && i <= off; idx++ {
		seg := strconv.Itoa(idx)
		if obj {
			if src[i] != '"' {
				return path
			}
			e, err := skipString(src, i)
			if err != nil {
				return path
			}
			k, _ := decodeString(src[i:e])
			seg = k
			i = skipSpace(src, e)
			if i >= len(src) || src[i] != ':' {
				return append(path, seg)
			}
			i = skipSpace(src, i+1)
		}
		e, err := skipValue(src, i, 0)
		if err != nil || off < e {
			return locate(src, i, off, append(path, seg))
		}
		i = skipSpace(src, e)
		if i < len(src) && src[i] == ',' {
			i = skipSpace(src, i+1)
		} else {
			return path
		}
	}
	return path
}

// pointerOf escapes segments per RFC 6901.
func pointerOf(path []string) string {
	if len(path) == 0 {
		return "/"
	}
	var sb strings.Builder
	for _, s := range path {
		sb.WriteByte('/')
		if strings.ContainsAny(s, "~/") {
			s = strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
		}
		sb.WriteString(s)
	}
	return sb.String()
}

// splitPointer undoes pointerOf.
func splitPointer(p string) []string {
	if p == "" || p == "/" {
		return nil
	}
	segs := strings.Split(p[1:], "/")
	for i, s := range segs {
		if strings.Contains(s, "~") {
			segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
		}
	}
	return segs
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
	ms, _ := objectMembers(d.src, d.reqs[idx].start)
	d.memo[idx] = ms
	return ms
}

// field returns the raw value of key in per_request record idx.
func (d *doc) field(idx int, key string) (string, bool) {
	for _, m := range d.record(idx) {
		if m.key == key {
			return string(d.src[m.start:m.end]), true
		}
	}
	return "", false
}

// at resolves a pointer in d to its raw value.
func (d *doc) at(ptr string) (string, bool) {
	segs := splitPointer(ptr)
	if len(segs) == 0 {
		return string(d.src), true
	}
	s, ok := d.root[segs[0]]
	if !ok {
		return "", false
	}
	rest := segs[1:]
	if segs[0] == "per_request" && len(rest) > 0 && d.reqs != nil {
		// The per_request spans are already known: skip rescanning the largest array.
		k, err := strconv.Atoi(rest[0])
		if err != nil || k < 0 || k >= len(d.reqs) {
			return "", false
		}
		s, rest = d.reqs[k], rest[1:]
	}
	for _, seg := range rest {
		switch d.src[s.start] {
		case '{':
			v, ok := memberValue(d.src, s, seg)
			if !ok {
				return "", false
			}
			s = v
		case '[':
			k, err := strconv.Atoi(seg)
			if err != nil {
				return "", false
			}
			es, _ := arrayElements(d.src, s.start)
			if k < 0 || k >= len(es) {
				return "", false
			}
			s = es[k]
		default:
			return "", false
		}
	}
	return string(d.src[s.start:s.end]), true
}
