// Package jsonscan is kvparity's one JSON byte scanner. It turns a JSON value into a flat tape
// of tokens in document order, in one validating pass and without building maps or Go values:
// scalars stay byte spans of the input (number literals verbatim, never through float64), so
// a caller reorders, compares or copies them as written. encoding/json is an order of magnitude
// slower on 30 MB reports and rounds numbers.
//
// The grammar is RFC 8259's, strictly: UTF-8 only, no raw control characters in strings, no
// lone surrogates, numbers without leading zeros, nesting at most MaxDepth levels. Errors are
// *Error values that carry the byte offset and the RFC 6901 pointer of the offending value
// (internal/pointer spells it).
//
// Report's canonicalizer walks the tape to sort and re-emit records; diffview walks two tapes
// in lockstep to diff reports; Find follows a pointer through a document scanning only what it
// passes over.
package jsonscan

import (
	"math"
	"strconv"

	"kvparity/internal/pointer"
)

// A Kind is the JSON type of a token.
type Kind uint8

// Token kinds.
const (
	Object Kind = iota + 1
	Array
	String
	Number
	True
	False
	Null
)

// Token flags.
const (
	// Escaped: the string holds backslash escapes; Scanner.Str returns its decoded bytes.
	Escaped uint8 = 1 << iota
	// SpaceBefore: insignificant whitespace appeared just before this token (or before the
	// colon or comma that precedes it).
	SpaceBefore
	// SpaceClose: whitespace appeared just before this container's closing bracket.
	SpaceClose
)

// MaxDepth bounds nesting so hostile input cannot exhaust the stack; canonical reports nest
// fewer than ten levels (serde_json itself stops at 128).
const MaxDepth = 512

// A Token is one JSON value on the tape. Start/End is the value's byte span in the input
// (strings: the bytes between the quotes). Containers use Next (the tape index just past all
// their descendants; for scalars it is the token's own index plus one) and N (member or element
// count); escaped strings use N internally. An object's members follow it as key and value
// tokens, one after the other; an array's elements follow it. Members and Elements walk them.
type Token struct {
	Start, End int32
	Next       int32
	N          int32
	Kind       Kind
	Flags      uint8
}

type span struct{ start, end int32 }

// A Step is one step of a path through a tape: an object member (Key is the tape index of its
// key) or an array element (Key is -1 and Index its position).
type Step struct {
	Key   int32
	Index int32
}

// An Error is bad input: the RFC 6901 pointer of the value being read ("" is the root), the
// byte offset where the problem was found, and what is wrong.
type Error struct {
	Pointer string
	Offset  int
	Msg     string
}

func (e *Error) Error() string {
	at := "byte " + strconv.Itoa(e.Offset)
	if e.Pointer != "" {
		at = "at " + strconv.Quote(e.Pointer) + " (" + at + ")"
	}
	return at + ": " + e.Msg
}

// A Scanner scans JSON values onto its tape. The zero value is ready to use; a Scanner is
// reused across values (the tape keeps its capacity) but is not safe for concurrent use.
type Scanner struct {
	// Finite makes number literals whose magnitude overflows float64 errors (serde_json reads
	// numbers as f64; a canonical report cannot hold one). NaN and Infinity are never JSON.
	Finite bool
	// Tape is the last scanned value: Tape[0] is the value itself.
	Tape []Token

	in    []byte
	pos   int
	dec   []byte // decoded bytes of escaped strings
	esc   []span // spans into dec, indexed by Token.N of escaped strings
	path  []Step
	depth int
	ws    bool // whitespace skipped since the last token
}

// Reset drops the scanner's references to its last input (keeping the tape's capacity), so a
// pooled scanner does not pin a large document.
func (s *Scanner) Reset() { s.reset(nil) }

func (s *Scanner) reset(in []byte) {
	s.in = in
	s.pos = 0
	s.Tape = s.Tape[:0]
	s.dec = s.dec[:0]
	s.esc = s.esc[:0]
	s.path = s.path[:0]
	s.depth = 0
	s.ws = false
}

// Input is the input of the last scan, which the tape's spans index.
func (s *Scanner) Input() []byte { return s.in }

// ScanAt scans the one JSON value that starts at in[i:] after optional whitespace onto a fresh
// tape and returns where it ends; what follows the value is the caller's business. It is the
// validating skip of a value, too.
func (s *Scanner) ScanAt(in []byte, i int) (end int, err error) {
	s.reset(in)
	if int64(len(in)) > math.MaxInt32 {
		return 0, &Error{Msg: "input larger than 2 GiB"}
	}
	// Compact reports run about 13 bytes per token: size the tape once instead of letting
	// append copy it over and over.
	if want := (len(in) - i) / 12; cap(s.Tape) < want {
		s.Tape = make([]Token, 0, want)
	}
	s.pos = i
	if err := s.value(); err != nil {
		return 0, err
	}
	return s.pos, nil
}

// SkipSpace returns the index of the first byte at or after i that is not JSON whitespace.
func SkipSpace(in []byte, i int) int {
	for i < len(in) {
		switch in[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	return i
}

func (s *Scanner) skipWS() {
	if i := SkipSpace(s.in, s.pos); i != s.pos {
		s.ws = true
		s.pos = i
	}
}

func (s *Scanner) push(t Token) int {
	t.Next = int32(len(s.Tape) + 1) // containers overwrite it when they close
	if s.ws {
		t.Flags |= SpaceBefore
		s.ws = false
	}
	s.Tape = append(s.Tape, t)
	return len(s.Tape) - 1
}

func (s *Scanner) fail(off int, msg string) error {
	return &Error{Pointer: s.Pointer(s.path), Offset: off, Msg: msg}
}

func (s *Scanner) failEOF(what string) error {
	return s.fail(len(s.in), "unexpected end of input while reading "+what+" (truncated record?)")
}

// Pointer renders a path through the tape as an RFC 6901 pointer.
func (s *Scanner) Pointer(path []Step) string {
	var b []byte
	for _, st := range path {
		b = append(b, '/')
		if st.Key < 0 {
			b = strconv.AppendInt(b, int64(st.Index), 10)
			continue
		}
		b = pointer.AppendEscaped(b, s.Str(&s.Tape[st.Key]))
	}
	return string(b)
}

func (s *Scanner) value() error {
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
		return s.literal("true", True)
	case c == 'f':
		return s.literal("false", False)
	case c == 'n':
		return s.literal("null", Null)
	case c == 'N' || c == 'I':
		return s.nonFinite()
	default:
		return s.fail(s.pos, "unexpected "+QuoteByte(c)+" where a value was expected")
	}
}

// open pushes the token of the container whose bracket is at s.pos, consumes the bracket and
// enters one nesting level. An empty container is closed at once (done).
func (s *Scanner) open(kind Kind, closer byte) (ti int, done bool, err error) {
	ti = s.push(Token{Kind: kind, Start: int32(s.pos)})
	s.pos++
	s.depth++
	if s.depth > MaxDepth {
		return ti, false, s.fail(s.pos, "nesting deeper than "+strconv.Itoa(MaxDepth)+" levels")
	}
	s.skipWS()
	if s.pos < len(s.in) && s.in[s.pos] == closer {
		s.closeContainer(ti, 0)
		return ti, true, nil
	}
	return ti, false, nil
}

// key reads one member's key and its colon, pushes the member's step onto the path and
// returns the key's tape index.
func (s *Scanner) key() (int32, error) {
	s.skipWS()
	if s.pos >= len(s.in) {
		return 0, s.failEOF("an object key")
	}
	if s.in[s.pos] != '"' {
		return 0, s.fail(s.pos, "expected a string key, found "+QuoteByte(s.in[s.pos]))
	}
	k := int32(len(s.Tape))
	if err := s.str(); err != nil {
		return 0, err
	}
	s.path = append(s.path, Step{Key: k})
	s.skipWS()
	if s.pos >= len(s.in) {
		return 0, s.failEOF("a colon")
	}
	if s.in[s.pos] != ':' {
		return 0, s.fail(s.pos, "expected ':' after the key, found "+QuoteByte(s.in[s.pos]))
	}
	s.pos++
	return k, nil
}

// next reads what follows a member (its step already popped) or an element (its step still on
// the path): ',' (more=true, consumed) or the container's closer (more=false, left for
// closeContainer). At the end of input an element's step is dropped first, so that error names
// the array; a wrong separator names the element before it.
func (s *Scanner) next(closer byte) (more bool, err error) {
	s.skipWS()
	if s.pos >= len(s.in) {
		if closer == ']' {
			s.path = s.path[:len(s.path)-1]
			return false, s.failEOF("an array")
		}
		return false, s.failEOF("an object")
	}
	switch s.in[s.pos] {
	case ',':
		s.pos++
		return true, nil
	case closer:
		return false, nil
	}
	if closer == ']' {
		return false, s.fail(s.pos, "expected ',' or ']' in array, found "+QuoteByte(s.in[s.pos]))
	}
	return false, s.fail(s.pos, "expected ',' or '}' in object, found "+QuoteByte(s.in[s.pos]))
}

func (s *Scanner) object() error {
	ti, done, err := s.open(Object, '}')
	if done || err != nil {
		return err
	}
	for n := int32(1); ; n++ {
		if _, err := s.key(); err != nil {
			return err
		}
		if err := s.value(); err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		if more, err := s.next('}'); !more {
			if err == nil {
				s.closeContainer(ti, n)
			}
			return err
		}
	}
}

func (s *Scanner) array() error {
	ti, done, err := s.open(Array, ']')
	if done || err != nil {
		return err
	}
	top := len(s.path)
	s.path = append(s.path, Step{Key: -1})
	for n := int32(0); ; {
		s.path[top].Index = n
		if err := s.value(); err != nil {
			return err
		}
		n++
		if more, err := s.next(']'); !more {
			if err == nil {
				s.path = s.path[:top]
				s.closeContainer(ti, n)
			}
			return err
		}
	}
}

// closeContainer is called with s.pos on the closing bracket.
func (s *Scanner) closeContainer(ti int, n int32) {
	t := &s.Tape[ti]
	if s.ws {
		t.Flags |= SpaceClose
		s.ws = false
	}
	s.pos++
	t.End = int32(s.pos)
	t.N = n
	t.Next = int32(len(s.Tape))
	s.depth--
}

// number checks the JSON number grammar (and, for a Finite scanner, finiteness) and records
// the literal verbatim.
func (s *Scanner) number() error {
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
	end, intDigits, exp, fault := ScanNumber(in, i)
	if fault != NumberOK && end >= len(in) {
		return s.failEOF("a number")
	}
	switch fault {
	case numberLeadingZero:
		return s.fail(start, "number with a leading zero: "+Excerpt(in[start:]))
	case numberNoDigits:
		return s.fail(start, "invalid number: "+Excerpt(in[start:]))
	case numberNoFraction:
		return s.fail(start, "invalid number (no digits after the decimal point): "+Excerpt(in[start:]))
	case numberNoExponent:
		return s.fail(start, "invalid number (no digits in the exponent): "+Excerpt(in[start:]))
	}
	i = end
	// Only literals whose magnitude could reach 1e308 are checked exactly; the rest are finite
	// by construction, so the common case never converts.
	if s.Finite && intDigits+exp > 300 {
		if _, err := strconv.ParseFloat(string(in[start:i]), 64); err != nil {
			return s.fail(start, "non-finite number (overflows float64): "+Excerpt(in[start:i]))
		}
	}
	s.push(Token{Kind: Number, Start: int32(start), End: int32(i)})
	s.pos = i
	return nil
}

func (s *Scanner) nonFinite() error {
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
	return s.fail(start, "unexpected "+QuoteByte(s.in[s.pos])+" where a value was expected")
}

func (s *Scanner) literal(word string, kind Kind) error {
	rest := s.in[s.pos:]
	if len(rest) < len(word) {
		if string(rest) == word[:len(rest)] {
			return s.failEOF(word)
		}
	} else if string(rest[:len(word)]) == word {
		s.push(Token{Kind: kind, Start: int32(s.pos), End: int32(s.pos + len(word))})
		s.pos += len(word)
		return nil
	}
	return s.fail(s.pos, "invalid literal "+Excerpt(rest)+" (expected "+word+")")
}

// QuoteByte names byte c for an error message: 'x' when printable, else "byte 0x..".
func QuoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	return "byte 0x" + hex2(c)
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// Excerpt quotes up to 24 bytes of b for an error message.
func Excerpt(b []byte) string {
	if len(b) > 24 {
		return strconv.Quote(string(b[:24])) + "..."
	}
	return strconv.Quote(string(b))
}
