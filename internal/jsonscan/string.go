package jsonscan

import (
	"unicode/utf16"
	"unicode/utf8"
)

// strSafe marks bytes that can appear raw in a string without needing attention: printable
// ASCII other than the quote and the backslash.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// PlainRun returns the index of the first byte at or after i that a string scanner must look
// at: a quote, a backslash, a control character or a non-ASCII byte (len(in) when none is).
func PlainRun(in []byte, i int) int {
	for i < len(in) && strSafe[in[i]] {
		i++
	}
	return i
}

// Str returns the decoded bytes of string token t (a key or a value) of the last scan. They
// alias the input or the scanner's arena: copy them to keep them past the next scan.
func (s *Scanner) Str(t *Token) []byte {
	if t.Flags&Escaped != 0 {
		sp := s.esc[t.N]
		return s.dec[sp.start:sp.end]
	}
	return s.in[t.Start:t.End]
}

func (s *Scanner) str() error {
	in := s.in
	start := s.pos + 1
	i := start
	escaped := false
	for {
		i = PlainRun(in, i)
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
	t := Token{Kind: String, Start: int32(start), End: int32(i)}
	if escaped {
		d0 := len(s.dec)
		if err := s.decodeEscapes(start, i); err != nil {
			return err
		}
		t.Flags |= Escaped
		t.N = int32(len(s.esc))
		s.esc = append(s.esc, span{int32(d0), int32(len(s.dec))})
	}
	s.push(t)
	s.pos = i + 1
	return nil
}

// decodeEscapes appends the decoded content of in[start:end] (already UTF-8 checked) to s.dec.
func (s *Scanner) decodeEscapes(start, end int) error {
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
