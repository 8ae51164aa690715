package report

import "unicode/utf8"

// AppendJSONString appends s to dst as a JSON string spelled the way serde_json writes a Rust
// String: '"' and '\\' escaped, \b \f \n \r \t short, other control characters as \u00xx
// (lowercase hex), everything else raw. A Rust String is always UTF-8, so each byte of s that
// is not part of valid UTF-8 is written as U+FFFD; for valid input the output is exactly serde's.
// It takes a string or a byte slice so the canonicalizer can pass decoded bytes without copying.
func AppendJSONString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0 // s[start:i] is a pending run written raw
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			var buf [utf8.UTFMax]byte
			r, size := utf8.DecodeRune(buf[:copy(buf[:], s[i:])])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, "\ufffd"...)
				start = i + 1
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscape(dst, c)
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendEscape writes serde_json's escape for '"', '\\' or control character c.
func appendEscape(dst []byte, c byte) []byte {
	const hex = "0123456789abcdef"
	switch c {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}
