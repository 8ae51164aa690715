// Package pointer is kvparity's one codec for RFC 6901 JSON pointers: parsing a pointer into
// its reference tokens, escaping tokens ("~" as "~0", "/" as "~1") and joining them, and
// reading array indexes. It knows nothing about documents; jsonscan follows pointers in them.
package pointer

import (
	"errors"
	"fmt"
	"strings"
)

// Parse splits an RFC 6901 JSON pointer into its unescaped reference tokens. The empty
// pointer (the whole document) has no tokens; "/" has one, the empty key. A pointer that does
// not start with '/' or holds a '~' not followed by '0' or '1' is an error.
func Parse(ptr string) ([]string, error) {
	if ptr == "" {
		return nil, nil
	}
	if ptr[0] != '/' {
		return nil, errors.New("JSON pointer must be empty or start with '/'")
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		if strings.IndexByte(t, '~') < 0 {
			continue
		}
		u, err := unescape(t)
		if err != nil {
			return nil, err
		}
		toks[i] = u
	}
	return toks, nil
}

// unescape decodes one reference token: "~0" is '~' and "~1" is '/'; any other '~' is an
// error naming the token.
func unescape(tok string) (string, error) {
	if strings.IndexByte(tok, '~') < 0 {
		return tok, nil
	}
	var b strings.Builder
	b.Grow(len(tok))
	for j := 0; j < len(tok); j++ {
		c := tok[j]
		if c != '~' {
			b.WriteByte(c)
			continue
		}
		switch {
		case j+1 < len(tok) && tok[j+1] == '0':
			b.WriteByte('~')
		case j+1 < len(tok) && tok[j+1] == '1':
			b.WriteByte('/')
		default:
			return "", fmt.Errorf("invalid escape in JSON pointer token %q (only ~0 and ~1)", tok)
		}
		j++
	}
	return b.String(), nil
}

// Escape escapes one reference token for a pointer: '~' as "~0", then '/' as "~1".
func Escape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return string(AppendEscaped(make([]byte, 0, len(tok)+4), tok))
}

// AppendEscaped appends the escaped form of tok to dst (no leading '/').
func AppendEscaped[S ~string | ~[]byte](dst []byte, tok S) []byte {
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; c {
		case '~':
			dst = append(dst, '~', '0')
		case '/':
			dst = append(dst, '~', '1')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// Join builds the pointer of a path of unescaped tokens; no tokens is "", the whole document.
func Join(toks []string) string {
	var b []byte
	for _, t := range toks {
		b = append(b, '/')
		b = AppendEscaped(b, t)
	}
	return string(b)
}

// Index reads an RFC 6901 array index: decimal digits without a sign or a leading zero ("0"
// itself is fine). "-" (past the end) and anything longer than nine digits are not indexes.
func Index(tok string) (int, bool) {
	if tok == "" || len(tok) > 9 || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return 0, false
		}
		n = n*10 + int(tok[i]-'0')
	}
	return n, true
}
