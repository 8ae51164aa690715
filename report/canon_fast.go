package report

import (
	"bytes"
	"unicode/utf8"

	"kvparity/internal/jsonscan"
)

// The fast path. A harness's canonical output is normally already canonical (sorted keys,
// compact, serde escapes, /per_request in uuid order), so its canonical form is the input with
// the excluded members cut out. fastCanon verifies exactly that in one pass over the bytes,
// building no tape and sorting nothing, and records the byte ranges to cut. Anything it is not
// sure about — whitespace, an unsorted key, an escaped key, a non-serde escape, a number or
// UTF-8 problem, equal sort keys, an index exclusion — makes it give up, and the general path
// (scanner + emitter) produces the canonical bytes or the precise error. So the fast path never
// decides an error and never produces bytes the general path would not.

type span struct{ start, end int32 }

type fastCanon struct {
	in    []byte
	pos   int
	depth int
	cuts  []span // byte ranges of excluded members (with their comma), in order

	// Digest pipelining (CanonicalizeAndDigest): bytes before a position where no cut can
	// start any more are final, so they are handed to a hashing goroutine while the rest is
	// still being checked. hold counts the open objects that may still cut members; sent is
	// how far the hasher has been fed.
	feed chan<- span
	hold int
	sent int32
}

// feedChunk is how many final bytes are batched per send to the hashing goroutine.
var feedChunk = 1 << 20

// canonicalFast returns the canonical bytes of record, or ok=false when the general path must
// decide.
func canonicalFast(record []byte, root *ptrNode) (out []byte, ok bool) {
	out, _, ok = runFast(record, root, nil)
	return out, ok
}

// runFast is canonicalFast, optionally feeding final input spans to a hasher.
func runFast(record []byte, root *ptrNode, feed chan<- span) (out []byte, f *fastCanon, ok bool) {
	in := record
	if n := len(in); n > 0 && in[n-1] == '\n' {
		in = in[:n-1]
	}
	if len(in) == 0 || in[0] != '{' || int64(len(in)) > 1<<31-1 {
		return nil, nil, false
	}
	f = &fastCanon{in: in, feed: feed}
	if _, ok := f.object(root, ""); !ok || f.pos != len(in) {
		return nil, nil, false
	}
	size := len(in) + 1
	for _, c := range f.cuts {
		size -= int(c.end - c.start)
	}
	out = make([]byte, 0, size)
	prev := int32(0)
	for _, c := range f.cuts {
		out = append(out, in[prev:c.start]...)
		prev = c.end
	}
	out = append(out, in[prev:]...)
	return append(out, '\n'), f, true
}

// progress hands the bytes checked so far to the hasher once no cut can reach back into them.
func (f *fastCanon) progress() {
	if f.feed != nil && f.hold == 0 && f.pos-int(f.sent) >= feedChunk {
		f.feed <- span{f.sent, int32(f.pos)}
		f.sent = int32(f.pos)
	}
}

func (f *fastCanon) value(node *ptrNode) bool {
	if f.pos >= len(f.in) {
		return false
	}
	switch c := f.in[f.pos]; {
	case c == '{':
		if node != nil && node.unsorted {
			return false // the general path reports it
		}
		_, ok := f.object(node, "")
		return ok
	case c == '[':
		return f.array(node)
	case c == '"':
		_, end, _ := f.str()
		return end >= 0
	case c == '-' || (c >= '0' && c <= '9'):
		return f.number()
	case c == 't':
		return f.word("true")
	case c == 'f':
		return f.word("false")
	case c == 'n':
		return f.word("null")
	}
	return false
}

// object checks one object at f.pos. When sortBy is set (the object is an element of an
// unordered array) it also returns that member's string value, which must be present.
func (f *fastCanon) object(node *ptrNode, sortBy string) (sortKey []byte, ok bool) {
	in := f.in
	f.depth++
	if f.depth > jsonscan.MaxDepth {
		return nil, false
	}
	f.pos++ // '{'
	if f.pos < len(in) && in[f.pos] == '}' {
		f.pos++
		f.depth--
		return nil, sortBy == ""
	}
	cutting := node != nil && node.cuts
	if cutting {
		f.hold++
	}
	var prev []byte
	havePrev, haveKey := false, false
	lastKeptEnd := int32(f.pos) // just after the last kept member (or after '{')
	trailingCut := false        // the last member seen was excluded
	for {
		memberStart := f.pos
		ks, ke, escaped := f.str()
		if ke < 0 || escaped {
			return nil, false
		}
		key := in[ks:ke]
		if havePrev && bytes.Compare(prev, key) >= 0 {
			return nil, false
		}
		prev, havePrev = key, true
		if f.pos >= len(in) || in[f.pos] != ':' {
			return nil, false
		}
		f.pos++
		child := node.child(key)
		valStart := f.pos
		if child != nil && child.exclude {
			if !f.value(nil) {
				return nil, false
			}
			trailingCut = true
			if f.pos < len(in) && in[f.pos] == ',' {
				f.cuts = append(f.cuts, span{int32(memberStart), int32(f.pos + 1)})
			}
		} else {
			if !f.value(child) {
				return nil, false
			}
			if sortBy != "" && string(key) == sortBy {
				if in[valStart] != '"' {
					return nil, false
				}
				sortKey, haveKey = in[valStart+1:f.pos-1], true
				if bytes.IndexByte(sortKey, '\\') >= 0 {
					return nil, false // compare decoded keys on the general path
				}
			}
			trailingCut = false
			lastKeptEnd = int32(f.pos)
		}
		if f.pos >= len(in) {
			return nil, false
		}
		f.progress()
		switch in[f.pos] {
		case ',':
			f.pos++
			continue
		case '}':
			if cutting {
				f.hold--
			}
			if trailingCut {
				// Drop the trailing run of excluded members together with the comma after the
				// last kept one: one cut from lastKeptEnd to the brace replaces their cuts.
				for len(f.cuts) > 0 && f.cuts[len(f.cuts)-1].start >= lastKeptEnd {
					f.cuts = f.cuts[:len(f.cuts)-1]
				}
				f.cuts = append(f.cuts, span{lastKeptEnd, int32(f.pos)})
			}
			f.pos++
			f.depth--
			if sortBy != "" && !haveKey {
				return nil, false
			}
			return sortKey, true
		}
		return nil, false
	}
}

func (f *fastCanon) array(node *ptrNode) bool {
	in := f.in
	if node != nil && node.kids != nil {
		return false // element exclusions by index: general path
	}
	f.depth++
	if f.depth > jsonscan.MaxDepth {
		return false
	}
	f.pos++ // '['
	if f.pos < len(in) && in[f.pos] == ']' {
		f.pos++
		f.depth--
		return true
	}
	sorted := node != nil && node.unsorted
	var prev []byte
	for i := 0; ; i++ {
		if sorted {
			if f.pos >= len(in) || in[f.pos] != '{' {
				return false
			}
			key, ok := f.object(nil, node.sortBy)
			if !ok || (i > 0 && bytes.Compare(prev, key) >= 0) {
				return false
			}
			prev = key
		} else if !f.value(nil) {
			return false
		}
		if f.pos >= len(in) {
			return false
		}
		f.progress()
		switch in[f.pos] {
		case ',':
			f.pos++
			continue
		case ']':
			f.pos++
			f.depth--
			return true
		}
		return false
	}
}

// str checks a string at f.pos spelled exactly as serde_json writes it and returns its content
// span and whether it holds (serde-style) escapes; end < 0 means "not sure".
func (f *fastCanon) str() (start, end int, escaped bool) {
	in := f.in
	if f.pos >= len(in) || in[f.pos] != '"' {
		return 0, -1, false
	}
	start = f.pos + 1
	i := start
	for {
		if i = jsonscan.PlainRun(in, i); i >= len(in) {
			return 0, -1, false
		}
		switch c := in[i]; {
		case c == '"':
			f.pos = i + 1
			return start, i, escaped
		case c == '\\':
			if i+1 >= len(in) {
				return 0, -1, false
			}
			switch in[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				// serde writes \u only for control characters without a short form, as
				// \u00xx in lowercase.
				if i+6 > len(in) || in[i+2] != '0' || in[i+3] != '0' || (in[i+4] != '0' && in[i+4] != '1') || !lowerHex(in[i+5]) {
					return 0, -1, false
				}
				switch in[i+4]<<4 | hexVal(in[i+5]) {
				case '\b', '\f', '\n', '\r', '\t':
					return 0, -1, false
				}
				i += 6
			default:
				return 0, -1, false
			}
			escaped = true
		case c < 0x20:
			return 0, -1, false
		default:
			r, size := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && size <= 1 {
				return 0, -1, false
			}
			i += size
		}
	}
}

func lowerHex(c byte) bool { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') }

func hexVal(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

func (f *fastCanon) number() bool {
	i := f.pos
	if f.in[i] == '-' {
		i++
	}
	end, intDigits, exp, fault := jsonscan.ScanNumber(f.in, i)
	if fault != jsonscan.NumberOK || intDigits+exp > 300 {
		return false // could overflow float64 (or is malformed): the general path decides
	}
	f.pos = end
	return true
}

func (f *fastCanon) word(w string) bool {
	if len(f.in)-f.pos < len(w) || string(f.in[f.pos:f.pos+len(w)]) != w {
		return false
	}
	f.pos += len(w)
	return true
}
