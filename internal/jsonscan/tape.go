package jsonscan

import (
	"bytes"
	"iter"
)

// MaxTokens bounds how many tokens the JSON text in has: each value and key but the first of
// its container follows a ',' or ':', the first follows a '[' or '{', and the root follows
// nothing. Bytes inside strings only raise the bound. Sizing a tape by it lets a scan of
// dense input (a long array of one-digit numbers, a token per 2 bytes) fill one allocation
// instead of growing a copy of the tape by a quarter at a time.
func MaxTokens(in []byte) int {
	return bytes.Count(in, []byte{','}) + bytes.Count(in, []byte{':'}) + bytes.Count(in, []byte{'['}) + bytes.Count(in, []byte{'{'}) + 1
}

// Walking a scanned tape. Token indexes are int32, like the tape's own links.

// Members yields the members of object token ti in document order: the tape index of each key
// (read it with Str) and of its value.
func (s *Scanner) Members(ti int32) iter.Seq2[int32, int32] {
	return func(yield func(key, val int32) bool) {
		k := ti + 1
		for m := s.Tape[ti].N; m > 0; m-- {
			if !yield(k, k+1) {
				return
			}
			k = s.Tape[k+1].Next
		}
	}
}

// Elements yields the elements of array token ti in order: each one's index and tape index.
func (s *Scanner) Elements(ti int32) iter.Seq2[int, int32] {
	return func(yield func(i int, el int32) bool) {
		k := ti + 1
		for i := 0; i < int(s.Tape[ti].N); i++ {
			if !yield(i, k) {
				return
			}
			k = s.Tape[k].Next
		}
	}
}

// Member returns the value of the first member of object token ti whose decoded key is key.
func (s *Scanner) Member(ti int32, key string) (int32, bool) {
	for k, v := range s.Members(ti) {
		if string(s.Str(&s.Tape[k])) == key {
			return v, true
		}
	}
	return 0, false
}

// Element returns element i of array token ti.
func (s *Scanner) Element(ti int32, i int) (int32, bool) {
	if i < 0 || i >= int(s.Tape[ti].N) {
		return 0, false
	}
	for j, el := range s.Elements(ti) {
		if j == i {
			return el, true
		}
	}
	return 0, false
}

// Span is where token ti's value is written in the input, strings with their quotes.
func (s *Scanner) Span(ti int32) (start, end int) {
	t := &s.Tape[ti]
	if t.Kind == String {
		return int(t.Start) - 1, int(t.End) + 1
	}
	return int(t.Start), int(t.End)
}

// Raw is token ti's value exactly as written in the input (strings with their quotes).
func (s *Scanner) Raw(ti int32) []byte {
	start, end := s.Span(ti)
	return s.in[start:end]
}
