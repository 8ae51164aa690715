package report

import "testing"

func TestAppendJSONStringSpellsLikeSerde(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{"q\"b\\s/", `"q\"b\\s/"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1f\x7f", "\"\\u0000\\u0001\\u001f\x7f\""},
		{"é€😀\u2028", "\"é€😀\u2028\""},
		{"a\xffb", "\"a\ufffdb\""},                 // each invalid byte becomes U+FFFD
		{"\xe2\x82", "\"\ufffd\ufffd\""},           // truncated sequence: one per byte
		{"\xed\xa0\x80", "\"\ufffd\ufffd\ufffd\""}, // UTF-8-encoded surrogate is not UTF-8
		{"x\n\xc3\xa9\xc3", "\"x\\n\u00e9\ufffd\""},
	}
	for _, c := range cases {
		if got := string(AppendJSONString([]byte("pre"), c.in)); got != "pre"+c.want {
			t.Errorf("string %q: got %s, want pre%s", c.in, got, c.want)
		}
		if got := string(AppendJSONString(nil, []byte(c.in))); got != c.want {
			t.Errorf("bytes %q: got %s, want %s", c.in, got, c.want)
		}
	}
}
