package jsonscan

import (
	"math"
	"sync"

	"kvparity/internal/pointer"
)

var finders = sync.Pool{New: func() any { return new(Scanner) }}

// Find follows the reference tokens toks (unescaped, as pointer.Parse returns them) from the
// JSON value at the start of in and returns the span of the value they name (strings with
// their quotes). It scans, and so validates, only the values it passes over on the way and the
// value it finds, never the rest of the input: a member near the start of a 30 MB document
// costs next to nothing. With duplicate keys the first one wins. found is false when a token
// names no member or element, or when the value it is applied to is not an object or an array.
func Find(in []byte, toks []string) (start, end int, found bool, err error) {
	s := finders.Get().(*Scanner)
	defer func() { s.Reset(); finders.Put(s) }()
	s.reset(in)
	if int64(len(in)) > math.MaxInt32 {
		return 0, 0, false, &Error{Msg: "input larger than 2 GiB"}
	}
	s.skipWS()
	for _, tok := range toks {
		if s.pos >= len(in) {
			return 0, 0, false, s.failEOF("a value")
		}
		switch in[s.pos] {
		case '{':
			found, err = s.findMember(tok)
		case '[':
			found, err = s.findElement(tok)
		default:
			found = false
		}
		if err != nil || !found {
			return 0, 0, false, err
		}
	}
	start = s.pos
	if err := s.skip(); err != nil {
		return 0, 0, false, err
	}
	return start, s.pos, true, nil
}

// skip scans the value at s.pos and drops its tokens again.
func (s *Scanner) skip() error {
	mark := len(s.Tape)
	err := s.value()
	s.Tape = s.Tape[:mark]
	return err
}

// findMember leaves s.pos on the value of the object's first member named tok.
func (s *Scanner) findMember(tok string) (bool, error) {
	if _, done, err := s.open(Object, '}'); done || err != nil {
		return false, err
	}
	for {
		k, err := s.key()
		if err != nil {
			return false, err
		}
		s.skipWS()
		if string(s.Str(&s.Tape[k])) == tok {
			return true, nil
		}
		err = s.skip()
		s.path, s.Tape = s.path[:len(s.path)-1], s.Tape[:k]
		if err != nil {
			return false, err
		}
		if more, err := s.next('}'); !more {
			return false, err
		}
	}
}

// findElement leaves s.pos on element tok of the array.
func (s *Scanner) findElement(tok string) (bool, error) {
	idx, ok := pointer.Index(tok)
	if !ok {
		return false, nil
	}
	if _, done, err := s.open(Array, ']'); done || err != nil {
		return false, err
	}
	top := len(s.path)
	s.path = append(s.path, Step{Key: -1})
	for i := 0; ; i++ {
		s.path[top].Index = int32(i)
		s.skipWS()
		if i == idx {
			return true, nil
		}
		if err := s.skip(); err != nil {
			return false, err
		}
		if more, err := s.next(']'); !more {
			return false, err
		}
	}
}
