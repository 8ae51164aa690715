package pointer

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"/", []string{""}},
		{"//", []string{"", ""}},
		{"/summary/wall_time_ms", []string{"summary", "wall_time_ms"}},
		{"/per_request/0/uuid", []string{"per_request", "0", "uuid"}},
		{"/a~1b/c~0d", []string{"a/b", "c~d"}},
		{"/~01", []string{"~1"}}, // ~0 first: "~01" is "~" then "1", never "/"
		{"/~10", []string{"/0"}},
		{"/ü/ a ", []string{"ü", " a "}},
	} {
		got, err := Parse(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Parse(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestParseRejectsBadPointers(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{"a", "must be empty or start with '/'"},
		{"~0", "must be empty or start with '/'"},
		{"/a~2", `invalid escape in JSON pointer token "a~2" (only ~0 and ~1)`},
		{"/x/a~", `token "a~"`},
		{"/~", `token "~"`},
		{"/ok/~~01", `token "~~01"`},
	} {
		toks, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Parse(%q) = %q, %v; want an error with %q", c.in, toks, err, c.msg)
		}
	}
}

func TestEscapeUnescapeJoin(t *testing.T) {
	for tok, want := range map[string]string{"": "", "plain": "plain", "a/b": "a~1b", "~": "~0", "~/": "~0~1", "/~1": "~1~01"} {
		if got := Escape(tok); got != want {
			t.Errorf("Escape(%q) = %q, want %q", tok, got, want)
		}
		if got := string(AppendEscaped([]byte("x"), []byte(tok))); got != "x"+want {
			t.Errorf("AppendEscaped(%q) = %q", tok, got)
		}
		if back, err := unescape(want); err != nil || back != tok {
			t.Errorf("unescape(%q) = %q, %v; want %q", want, back, err, tok)
		}
	}
	if _, err := unescape("a~x"); err == nil {
		t.Error("Unescape accepted ~x")
	}
	if got := Join([]string{"a/b", "0", "~"}); got != "/a~1b/0/~0" {
		t.Errorf("Join = %q", got)
	}
	if got := Join(nil); got != "" {
		t.Errorf("Join(nil) = %q, want the root pointer \"\"", got)
	}
}

func TestIndex(t *testing.T) {
	for tok, want := range map[string]int{"0": 0, "7": 7, "12031": 12031, "999999999": 999999999} {
		if got, ok := Index(tok); !ok || got != want {
			t.Errorf("Index(%q) = %d, %v; want %d", tok, got, ok, want)
		}
	}
	for _, tok := range []string{"", "-", "01", "+1", "-1", "1e3", " 1", "1234567890", "x"} {
		if got, ok := Index(tok); ok {
			t.Errorf("Index(%q) = %d, want no index", tok, got)
		}
	}
}

// FuzzParse: whatever Parse accepts joins back to the very same pointer, and whatever it
// rejects is not empty and either lacks the leading '/' or holds a '~' not followed by 0 or 1.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "/", "/a~1b/c~0d", "/per_request/0/uuid", "/a~2", "a", "/~", "/~01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		toks, err := Parse(p)
		if err != nil {
			if p == "" || (p[0] == '/' && !badTilde(p)) {
				t.Fatalf("Parse(%q) rejected a pointer: %v", p, err)
			}
			return
		}
		if back := Join(toks); back != p {
			t.Fatalf("Join(Parse(%q)) = %q", p, back)
		}
		again, err := Parse(Join(toks))
		if err != nil || !slices.Equal(again, toks) {
			t.Fatalf("Parse(Join(%q)) = %q, %v", toks, again, err)
		}
		for _, tok := range toks {
			if strings.Contains(Escape(tok), "/") {
				t.Fatalf("Escape(%q) left a '/'", tok)
			}
		}
	})
}

func badTilde(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 >= len(p) || (p[i+1] != '0' && p[i+1] != '1')) {
			return true
		}
	}
	return false
}
