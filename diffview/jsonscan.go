package diffview

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"kvparity/report"
)

// A hand-written JSON scanner over the raw bytes of a canonical report. It never decodes
// numbers (literals stay verbatim, as the canonical profile demands) and lets the diff skip
// byte-equal subtrees after one validating pass, which is what makes it fast.

// syntaxError is a scan failure at a byte offset; the diff adds the file, line and pointer.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("byte %d: %s", e.off, e.msg) }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(src []byte, i int) int {
	for i < len(src) && isSpace(src[i]) {
		i++
	}
	return i
}

// maxDepth bounds nesting so that a hostile file cannot exhaust the stack.
const maxDepth = 512

// skipValue validates the value starting at src[i] (no leading space) and returns its end.
func skipValue(src []byte, i, depth int) (int, error) {
	if i >= len(src) {
		return i, &syntaxError{i, "unexpected end of input, want a value"}
	}
	switch c := src[i]; {
	case c == '"':
		return skipString(src, i)
	case c == '{':
		return skipObject(src, i, depth+1)
	case c == '[':
		return skipArray(src, i, depth+1)
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(src, i)
	case c == 't':
		return skipLiteral(src, i, "true")
	case c == 'f':
		return skipLiteral(src, i, "false")
	case c == 'n':
		return skipLiteral(src, i, "null")
	default:
		return i, &syntaxError{i, fmt.Sprintf("invalid character %q, want a value", c)}
	}
}

func skipLiteral(src []byte, i int, lit string) (int, error) {
	if len(src)-i < len(lit) || string(src[i:i+len(lit)]) != lit {
		return i, &syntaxError{i, "invalid literal, want " + lit}
	}
	return i + len(lit), nil
}

func skipString(src []byte, i int) (int, error) {
	start := i
	i++
	for i < len(src) {
		c := src[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(src) {
				return i, &syntaxError{i, "unterminated escape in string"}
			}
			switch src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(src) {
					return i, &syntaxError{i, "short \\u escape in string"}
				}
				for _, h := range src[i+2 : i+6] {
					if !isHex(h) {
						return i, &syntaxError{i, "invalid \\u escape in string"}
					}
				}
				i += 6
			default:
				return i, &syntaxError{i, fmt.Sprintf("invalid escape \\%c in string", src[i+1])}
			}
		case c < 0x20:
			return i, &syntaxError{i, "control character in string"}
		default:
			i++
		}
	}
	return start, &syntaxError{start, "unterminated string"}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// skipNumber uses report's number grammar, so the diff accepts exactly the literals the
// canonicalizer accepts.
func skipNumber(src []byte, i int) (int, error) {
	end, err := report.NumberEnd(src, i)
	if err != nil {
		return i, &syntaxError{i, err.Error()}
	}
	return end, nil
}

func skipObject(src []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return i, &syntaxError{i, "nesting too deep"}
	}
	i = skipSpace(src, i+1)
	if i < len(src) && src[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(src) || src[i] != '"' {
			return i, &syntaxError{i, "want an object key"}
		}
		e, err := skipString(src, i)
		if err != nil {
			return e, err
		}
		i = skipSpace(src, e)
		if i >= len(src) || src[i] != ':' {
			return i, &syntaxError{i, "want ':' after object key"}
		}
		i = skipSpace(src, i+1)
		if i, err = skipValue(src, i, depth); err != nil {
			return i, err
		}
		i = skipSpace(src, i)
		if i >= len(src) {
			return i, &syntaxError{i, "unterminated object"}
		}
		switch src[i] {
		case ',':
			i = skipSpace(src, i+1)
		case '}':
			return i + 1, nil
		default:
			return i, &syntaxError{i, fmt.Sprintf("invalid character %q in object, want ',' or '}'", src[i])}
		}
	}
}

func skipArray(src []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return i, &syntaxError{i, "nesting too deep"}
	}
	i = skipSpace(src, i+1)
	if i < len(src) && src[i] == ']' {
		return i + 1, nil
	}
	for {
		var err error
		if i, err = skipValue(src, i, depth); err != nil {
			return i, err
		}
		i = skipSpace(src, i)
		if i >= len(src) {
			return i, &syntaxError{i, "unterminated array"}
		}
		switch src[i] {
		case ',':
			i = skipSpace(src, i+1)
		case ']':
			return i + 1, nil
		default:
			return i, &syntaxError{i, fmt.Sprintf("invalid character %q in array, want ',' or ']'", src[i])}
		}
	}
}

// A member is one key/value pair of an object: the decoded key and the value's byte span.
type member struct {
	key        string
	start, end int
}

// objectMembers lists the members of the (already validated or not) object at src[i].
func objectMembers(src []byte, i int) ([]member, error) {
	var ms []member
	i = skipSpace(src, i+1)
	if i < len(src) && src[i] == '}' {
		return ms, nil
	}
	for {
		if i >= len(src) || src[i] != '"' {
			return ms, &syntaxError{i, "want an object key"}
		}
		e, err := skipString(src, i)
		if err != nil {
			return ms, err
		}
		key, err := decodeString(src[i:e])
		if err != nil {
			return ms, &syntaxError{i, err.Error()}
		}
		i = skipSpace(src, e)
		if i >= len(src) || src[i] != ':' {
			return ms, &syntaxError{i, "want ':' after object key"}
		}
		vs := skipSpace(src, i+1)
		ve, err := skipValue(src, vs, 0)
		if err != nil {
			return ms, err
		}
		ms = append(ms, member{key: key, start: vs, end: ve})
		i = skipSpace(src, ve)
		if i >= len(src) {
			return ms, &syntaxError{i, "unterminated object"}
		}
		switch src[i] {
		case ',':
			i = skipSpace(src, i+1)
		case '}':
			return ms, nil
		default:
			return ms, &syntaxError{i, fmt.Sprintf("invalid character %q in object, want ',' or '}'", src[i])}
		}
	}
}

// A span is one array element's byte range.
type span struct{ start, end int }

func arrayElements(src []byte, i int) ([]span, error) {
	var es []span
	i = skipSpace(src, i+1)
	if i < len(src) && src[i] == ']' {
		return es, nil
	}
	for {
		e, err := skipValue(src, i, 0)
		if err != nil {
			return es, err
		}
		es = append(es, span{i, e})
		i = skipSpace(src, e)
		if i >= len(src) {
			return es, &syntaxError{i, "unterminated array"}
		}
		switch src[i] {
		case ',':
			i = skipSpace(src, i+1)
		case ']':
			return es, nil
		default:
			return es, &syntaxError{i, fmt.Sprintf("invalid character %q in array, want ',' or ']'", src[i])}
		}
	}
}

// decodeString turns a quoted JSON string into its value; the fast path has no escapes.
func decodeString(q []byte) (string, error) {
	body := q[1 : len(q)-1]
	plain := true
	for _, c := range body {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		if !utf8.Valid(body) {
			return "", fmt.Errorf("invalid UTF-8 in string")
		}
		return string(body), nil
	}
	// Escaped keys are rare in reports: let encoding/json handle the full escape grammar.
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return "", fmt.Errorf("invalid string %s", q)
	}
	return s, nil
}

// memberValue finds key in the object spanning s and returns its value span.
func memberValue(src []byte, s span, key string) (span, bool) {
	ms, err := objectMembers(src, s.start)
	if err != nil {
		return span{}, false
	}
	for _, m := range ms {
		if m.key == key {
			return span{m.start, m.end}, true
		}
	}
	return span{}, false
}
