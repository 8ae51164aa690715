package report

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The scanner turns one JSON document into a flat tape of tokens in document order, in one
// pass and without building maps or Go values: canonicalization only needs to reorder object
// members and arrays, so scalars stay as byte spans of the input and are copied verbatim.
// encoding/json is an order of magnitude slower on 30 MB reports and rounds numbers.

// Token kinds.
const (
	tkObject byte = iota + 1
	tkArray
	tkString
	tkNumber
	tkTrue
	tkFalse
	tkNull
)

// Token flags.
const (
	// tfEscaped: the string holds backslash escapes; its decoded bytes are in the scanner's
	// decoded arena at esc[n].
	tfEscaped byte = 1 << iota
	// tfSpaceBefore: insignificant whitespace appeared just before this token (or before the
	// colon or comma that precedes it). Only the fixed-point check looks at it.
	tfSpaceBefore
	// tfSpaceClose: whitespace appeared just before this container's closing bracket.
	tfSpaceClose
)

// maxDepth bounds nesting so hostile input cannot exhaust the stack; canonical reports nest
// fewer than ten levels (serde_json itself stops at 128).
const maxDepth = 512

// A token is one JSON value on the tape. start/end is the value's byte span in the input
// (strings: the bytes between the quotes). Containers use next (the tape index just past all
// their descendants) and n (member or element count); escaped strings use n as their index in
// the decoded-span table.
type token struct {
	start, end int32
	next       int32
	n          int32
	kind       byte
	flags      byte
}

type span struct{ start, end int32 }

// A pathSeg is one step of the pointer to where the scanner or emitter is: an object member
// (tape index of its key) or an array element (its index).
type pathSeg struct {
	key int32 // tape index of the member's key, or -1 for an array element
	idx int32
}

type scanner struct {
	in    []byte
	pos   int
	tape  []token
	dec   []byte // decoded bytes of escaped strings
	esc   []span // spans into dec, indexed by token.n of escaped strings
	path  []pathSeg
	depth int
	ws    bool // whitespace skipped since the last token
}

// strSafe marks bytes that can appear raw in a string without needing attention: printable
// ASCII other than the quote and the backslash.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (s *scanner) reset(in []byte) {
	s.in = in
	s.pos = 0
	s.tape = s.tape[:0]
	s.dec = s.dec[:0]
	s.esc = s.esc[:0]
	s.path = s.path[:0]
	s.depth = 0
	s.ws = false
}

// parseRecord scans in as exactly one JSON object followed by optional whitespace.
func (s *scanner) parseRecord(in []byte) error {
	s.reset(in)
	if int64(len(in)) > 1<<31-1 {
		return &CanonError{Offset: 0, Msg: "record larger than 2 GiB"}
	}
	// Compact reports run about 13 bytes per token: size the tape once instead of letting
	// append copy it over and over.
	if want := len(in) / 12; cap(s.tape) < want {
		s.tape = make([]token, 0, want)
	}
	s.skipWS()
	if s.pos >= len(in) {
		return &CanonError{Offset: int64(s.pos), Msg: "empty record (expected a JSON object)"}
	}
	if in[s.pos] != '{' {
		return &CanonError{Offset: int64(s.pos), Msg: "record is not a JSON object (starts with " + quoteByte(in[s.pos]) + ")"}
	}
	if err := s.value(); err != nil {
		return err
	}
	s.skipWS()
	if s.pos < len(in) {
		return &CanonError{Offset: int64(s.pos), Msg: "trailing data after the record: " + excerpt(in[s.pos:])}
	}
	return nil
}

func (s *scanner) skipWS() {
	in := s.in
	i := s.pos
	for i < len(in) {
		switch in[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	if i != s.pos {
		s.ws = true
		s.pos = i
	}
}

func (s *scanner) push(t token) int {
	t.next = int32(len(s.tape) + 1) // containers overwrite it when they close
	if s.ws {
		t.flags |= tfSpaceBefore
		s.ws = false
	}
	s.tape = append(s.tape, t)
	return len(s.tape) - 1
}

func (s *scanner) fail(off int, msg string) error {
	return &CanonError{Pointer: s.pointer(), Offset: int64(off), Msg: msg}
}

func (s *scanner) failEOF(what string) error {
	return s.fail(len(s.in), "unexpected end of input while reading "+what+" (truncated record?)")
}

// pointer renders the scanner's current path as an RFC 6901 pointer.
func (s *scanner) pointer() string {
	return renderPointer(s.path, s.tape, s.in, s.esc, s.dec)
}

func (s *scanner) value() error {
	s.skipWS()
	if s.pos >= len(s.in) {
		return s.failEOF("a value")
	}
	switch c := s.in[s.pos]; {
	case c == '{':
		return s.object()
	case c == '[':
		return s.array()
	case c == '"':
		return s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true", tkTrue)
	case c == 'f':
		return s.literal("false", tkFalse)
	case c == 'n':
		return s.literal("null", tkNull)
	case c == 'N' || c == 'I':
		return s.nonFinite()
	default:
		return s.fail(s.pos, "unexpected "+quoteByte(c)+" where a value was expected")
	}
}

func (s *scanner) enter() error {
	s.depth++
	if s.depth > maxDepth {
		return s.fail(s.pos, "nesting deeper than "+strconv.Itoa(maxDepth)+" levels")
	}
	return nil
}

func (s *scanner) object() error {
	ti := s.push(token{kind: tkObject, start: int32(s.pos)})
	s.pos++
	if err := s.enter(); err != nil {
		return err
	}
	n := int32(0)
	s.skipWS()
	if s.pos < len(s.in) && s.in[s.pos] == '}' {
		s.closeContainer(ti, n)
		return nil
	}
	for {
		s.skipWS()
		if s.pos >= len(s.in) {
			return s.failEOF("an object key")
		}
		if s.in[s.pos] != '"' {
			return s.fail(s.pos, "expected a string key, found "+quoteByte(s.in[s.pos]))
		}
		key := len(s.tape)
		if err := s.str(); err != nil {
			return err
		}
		s.path = append(s.path, pathSeg{key: int32(key)})
		s.skipWS()
		if s.pos >= len(s.in) {
			return s.failEOF("a colon")
		}
		if s.in[s.pos] != ':' {
			return s.fail(s.pos, "expected ':' after the key, found "+quoteByte(s.in[s.pos]))
		}
		s.pos++
		if err := s.value(); err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		n++
		s.skipWS()
		if s.pos >= len(s.in) {
			return s.failEOF("an object")
		}
		switch s.in[s.pos] {
		case ',':
			s.pos++
			continue
		case '}':
			s.closeContainer(ti, n)
			return nil
		default:
			return s.fail(s.pos, "expected ',' or '}' in object, found "+quoteByte(s.in[s.pos]))
		}
	}
}

func (s *scanner) array() error {
	ti := s.push(token{kind: tkArray, start: int32(s.pos)})
	s.pos++
	if err := s.enter(); err != nil {
		return err
	}
	n := int32(0)
	s.skipWS()
	if s.pos < len(s.in) && s.in[s.pos] == ']' {
		s.closeContainer(ti, n)
		return nil
	}
	s.path = append(s.path, pathSeg{key: -1})
	for {
		s.path[len(s.path)-1].idx = n
		if err := s.value(); err != nil {
			return err
		}
		n++
		s.skipWS()
		if s.pos >= len(s.in) {
			s.path = s.path[:len(s.path)-1]
			return s.failEOF("an array")
		}
		switch s.in[s.pos] {
		case ',':
			s.pos++
			continue
		case ']':
			s.path = s.path[:len(s.path)-1]
			s.closeContainer(ti, n)
			return nil
		default:
			return s.fail(s.pos, "expected ',' or ']' in array, found "+quoteByte(s.in[s.pos]))
		}
	}
}

// closeContainer is called with s.pos on the closing bracket.
func (s *scanner) closeContainer(ti int, n int32) {
	t := &s.tape[ti]
	if s.ws {
		t.flags |= tfSpaceClose
		s.ws = false
	}
	s.pos++
	t.end = int32(s.pos)
	t.n = n
	t.next = int32(len(s.tape))
	s.depth--
}

func (s *scanner) str() error {
	in := s.in
	start := s.pos + 1
	i := start
	escaped := false
	for {
		for i < len(in) && strSafe[in[i]] {
			i++
		}
		if i >= len(in) {
			return s.failEOF("a string")
		}
		c := in[i]
		switch {
		case c == '"':
			goto done
		case c == '\\':
			escaped = true
			i += 2 // the escape itself is checked while decoding
		case c < 0x20:
			return s.fail(i, "raw control character U+00"+hex2(c)+" in a string (must be escaped)")
		default:
			r, size := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && size <= 1 {
				return s.fail(i, "invalid UTF-8 byte 0x"+hex2(c)+" in a string")
			}
			i += size
		}
	}
done:
	t := token{kind: tkString, start: int32(start), end: int32(i)}
	if escaped {
		d0 := len(s.dec)
		if err := s.decodeEscapes(start, i); err != nil {
			return err
		}
		t.flags |= tfEscaped
		t.n = int32(len(s.esc))
		s.esc = append(s.esc, span{int32(d0), int32(len(s.dec))})
	}
	s.push(t)
	s.pos = i + 1
	return nil
}

// decodeEscapes appends the decoded content of in[start:end] (already UTF-8 checked) to s.dec.
func (s *scanner) decodeEscapes(start, end int) error {
	in := s.in
	i := start
	for i < end {
		c := in[i]
		if c != '\\' {
			j := i + 1
			for j < end && in[j] != '\\' {
				j++
			}
			s.dec = append(s.dec, in[i:j]...)
			i = j
			continue
		}
		if i+1 >= end {
			return s.fail(i, "unterminated escape sequence in a string")
		}
		switch e := in[i+1]; e {
		case '"', '\\', '/':
			s.dec = append(s.dec, e)
		case 'b':
			s.dec = append(s.dec, '\b')
		case 'f':
			s.dec = append(s.dec, '\f')
		case 'n':
			s.dec = append(s.dec, '\n')
		case 'r':
			s.dec = append(s.dec, '\r')
		case 't':
			s.dec = append(s.dec, '\t')
		case 'u':
			r, ok := hex4(in, i+2, end)
			if !ok {
				return s.fail(i, "invalid \\u escape (need four hex digits)")
			}
			width := 6
			if utf16.IsSurrogate(r) {
				if r >= 0xDC00 {
					return s.fail(i, "lone trailing surrogate \\u"+string(in[i+2:i+6])+" in a string")
				}
				r2, ok := rune(0), false
				if i+7 < end && in[i+6] == '\\' && in[i+7] == 'u' {
					r2, ok = hex4(in, i+8, end)
				}
				if !ok || r2 < 0xDC00 || r2 > 0xDFFF {
					return s.fail(i, "lone leading surrogate \\u"+string(in[i+2:i+6])+" in a string")
				}
				r = utf16.DecodeRune(r, r2)
				width = 12
			}
			s.dec = utf8.AppendRune(s.dec, r)
			i += width
			continue
		default:
			return s.fail(i, "invalid escape \\"+string(rune(e))+" in a string")
		}
		i += 2
	}
	return nil
}

func hex4(in []byte, i, end int) (rune, bool) {
	if i+4 > end {
		return 0, false
	}
	var r rune
	for _, c := range in[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number checks the JSON number grammar and finiteness and records the literal verbatim.
func (s *scanner) number() error {
	in := s.in
	start := s.pos
	i := start
	if in[i] == '-' {
		i++
		if i < len(in) && in[i] == 'I' {
			s.pos = i
			return s.nonFinite()
		}
	}
	end, intDigits, exp, fault := scanNumber(in, i)
	if fault != numberOK && end >= len(in) {
		return s.failEOF("a number")
	}
	switch fault {
	case numberLeadingZero:
		return s.fail(start, "number with a leading zero: "+excerpt(in[start:]))
	case numberNoDigits:
		return s.fail(start, "invalid number: "+excerpt(in[start:]))
	case numberNoFraction:
		return s.fail(start, "invalid number (no digits after the decimal point): "+excerpt(in[start:]))
	case numberNoExponent:
		return s.fail(start, "invalid number (no digits in the exponent): "+excerpt(in[start:]))
	}
	i = end
	// Only literals whose magnitude could reach 1e308 are checked exactly; the rest are finite
	// by construction, so the common case never converts.
	if intDigits+exp > 300 {
		if _, err := strconv.ParseFloat(string(in[start:i]), 64); err != nil {
			return s.fail(start, "non-finite number (overflows float64): "+excerpt(in[start:i]))
		}
	}
	s.push(token{kind: tkNumber, start: int32(start), end: int32(i)})
	s.pos = i
	return nil
}

func (s *scanner) nonFinite() error {
	rest := s.in[s.pos:]
	start := s.pos
	if start > 0 && s.in[start-1] == '-' {
		start--
	}
	for _, w := range []string{"NaN", "Infinity"} {
		if len(rest) >= len(w) && string(rest[:len(w)]) == w {
			return s.fail(start, "non-finite number "+string(s.in[start:s.pos+len(w)])+" (JSON has no NaN or Infinity)")
		}
	}
	return s.fail(start, "unexpected "+quoteByte(s.in[s.pos])+" where a value was expected")
}

func (s *scanner) literal(word string, kind byte) error {
	rest := s.in[s.pos:]
	if len(rest) < len(word) {
		if string(rest) == word[:len(rest)] {
			return s.failEOF(word)
		}
	} else if string(rest[:len(word)]) == word {
		s.push(token{kind: kind, start: int32(s.pos), end: int32(s.pos + len(word))})
		s.pos += len(word)
		return nil
	}
	return s.fail(s.pos, "invalid literal "+excerpt(rest)+" (expected "+word+")")
}

// str returns the decoded bytes of string token t.
func (s *scanner) strBytes(t *token) []byte {
	if t.flags&tfEscaped != 0 {
		sp := s.esc[t.n]
		return s.dec[sp.start:sp.end]
	}
	return s.in[t.start:t.end]
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	return "byte 0x" + hex2(c)
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// excerpt quotes up to 24 bytes of b for an error message.
func excerpt(b []byte) string {
	if len(b) > 24 {
		return strconv.Quote(string(b[:24])) + "..."
	}
	return strconv.Quote(string(b))
}
