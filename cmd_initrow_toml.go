package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tomlString is s as a TOML basic string: quotes, backslashes and every control character
// escaped, so any path or ref init-row writes reads back as itself, and none can end a line —
// in a value or in a comment, where init-row quotes what the user typed the same way. TOML is
// UTF-8 text: a string that is not (a path of arbitrary bytes) cannot be written and is refused.
func tomlString(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("%q is not UTF-8 text, which a TOML row cannot hold", s)
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}

// tomlQuoter quotes several strings with tomlString, keeping the first refusal, so a row's
// text is assembled first and checked once.
type tomlQuoter struct{ err error }

// q quotes s; what names s for an error ("--checkout", "the trace path").
func (t *tomlQuoter) q(what, s string) string {
	v, err := tomlString(s)
	if err != nil && t.err == nil {
		t.err = fmt.Errorf("%s: %w", what, err)
	}
	return v
}
