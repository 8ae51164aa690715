package main

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// tomlString's output reads back as the string it quoted, for any UTF-8 text, and holds no
// character that could end a line or a comment.
func TestTOMLStringRoundTrips(t *testing.T) {
	for _, s := range []string{"", "plain", "a\nb", "q\"uote", `back\slash`, "tab\tcr\rff\fbs\bnul\x00del\x7f", "ünïcødé ✓", "\u2028\U0001F600"} {
		v, err := tomlString(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Errorf("%q: quoted as %q, which holds a control character", s, v)
		}
		var m map[string]string
		if _, err := toml.Decode("v = "+v+" # "+v+"\n", &m); err != nil || m["v"] != s {
			t.Errorf("%q: quoted as %s, read back %q, %v", s, v, m["v"], err)
		}
	}
	if _, err := tomlString("bad\xffutf8"); err == nil {
		t.Error("a string that is not UTF-8 was quoted")
	}
}
