package jsonscan

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func scan(t *testing.T, in string) *Scanner {
	t.Helper()
	s := new(Scanner)
	end, err := s.ScanAt([]byte(in), 0)
	if err != nil {
		t.Fatalf("ScanAt(%q): %v", in, err)
	}
	if rest := SkipSpace([]byte(in), end); rest != len(in) {
		t.Fatalf("ScanAt(%q) stopped at %d", in, end)
	}
	return s
}

func TestTapeWalk(t *testing.T) {
	in := ` {"a":[1,-2.50e+3,{"b":null}],"k\u00e9y":"x\"y\ud83d\ude00","t":true,"f":false,"e":{}} `
	s := scan(t, in)
	root := &s.Tape[0]
	if root.Kind != Object || root.N != 5 || int(root.Next) != len(s.Tape) || root.Flags&SpaceBefore == 0 {
		t.Fatalf("root token %+v (tape of %d)", *root, len(s.Tape))
	}
	var keys, raws []string
	for k, v := range s.Members(0) {
		keys = append(keys, string(s.Str(&s.Tape[k])))
		raws = append(raws, string(s.Raw(v)))
	}
	if got := strings.Join(keys, "|"); got != "a|kéy|t|f|e" {
		t.Errorf("keys %q", got)
	}
	if got := strings.Join(raws, "|"); got != `[1,-2.50e+3,{"b":null}]|"x\"y\ud83d\ude00"|true|false|{}` {
		t.Errorf("raw values %q", got)
	}
	a, ok := s.Member(0, "a")
	if !ok || s.Tape[a].Kind != Array || s.Tape[a].N != 3 {
		t.Fatalf("member a: %v %+v", ok, s.Tape[a])
	}
	// Numbers stay verbatim.
	if el, ok := s.Element(a, 1); !ok || string(s.Raw(el)) != "-2.50e+3" || s.Tape[el].Kind != Number {
		t.Errorf("element 1: %q", s.Raw(el))
	}
	el, _ := s.Element(a, 2)
	if b, ok := s.Member(el, "b"); !ok || s.Tape[b].Kind != Null {
		t.Error("a/2/b is not null")
	}
	if _, ok := s.Element(a, 3); ok {
		t.Error("element 3 of a 3-element array")
	}
	if _, ok := s.Member(0, "missing"); ok {
		t.Error("found a missing member")
	}
	v, _ := s.Member(0, "kéy")
	if got := string(s.Str(&s.Tape[v])); got != "x\"y😀" || s.Tape[v].Flags&Escaped == 0 {
		t.Errorf("decoded %q", got)
	}
	if start, end := s.Span(v); in[start] != '"' || in[end-1] != '"' {
		t.Errorf("span %d..%d of a string does not include its quotes", start, end)
	}
	if e, _ := s.Member(0, "e"); s.Tape[e].N != 0 || s.Tape[e].Next != e+1 {
		t.Errorf("empty object %+v", s.Tape[e])
	}
	if got := s.Pointer([]Step{{Key: 1}, {Key: -1, Index: 2}}); got != "/a/2" {
		t.Errorf("pointer %q", got)
	}
}

func TestWhitespaceFlags(t *testing.T) {
	s := scan(t, `{"a" : [ 1 ] }`)
	if s.Tape[0].Flags&SpaceBefore != 0 || s.Tape[0].Flags&SpaceClose == 0 {
		t.Errorf("root flags %b", s.Tape[0].Flags)
	}
	if s.Tape[2].Flags&SpaceBefore == 0 || s.Tape[2].Flags&SpaceClose == 0 || s.Tape[3].Flags&SpaceBefore == 0 {
		t.Errorf("array flags %b, element flags %b", s.Tape[2].Flags, s.Tape[3].Flags)
	}
	s = scan(t, `{"a":[1]}`)
	for i, tok := range s.Tape {
		if tok.Flags&(SpaceBefore|SpaceClose) != 0 {
			t.Errorf("compact token %d flagged %b", i, tok.Flags)
		}
	}
}

func TestMalformedInputNamesOffsetAndPointer(t *testing.T) {
	for _, c := range []struct {
		name, in, pointer string
		offset            int
		msg               string
	}{
		{"empty", ``, "", 0, "unexpected end of input while reading a value"},
		{"truncated array", `{"a":{"b":[1,2`, "/a/b", 14, "unexpected end of input while reading an array"},
		{"truncated object", `{"a":1`, "", 6, "unexpected end of input while reading an object"},
		{"truncated key", `{"a":1,`, "", 7, "while reading an object key"},
		{"truncated before colon", `{"a"`, "/a", 4, "while reading a colon"},
		{"truncated string", `{"a":"abc`, "/a", 9, "while reading a string"},
		{"truncated number", `{"a":1.`, "/a", 7, "while reading a number"},
		{"truncated literal", `{"a":tr`, "/a", 7, "while reading true"},
		{"missing colon", `{"a" 1}`, "/a", 5, "expected ':' after the key, found '1'"},
		{"key not a string", `{"summary":{"x":1,}}`, "/summary", 18, "expected a string key, found '}'"},
		{"bad object separator", `{"b":1 "a":2}`, "", 7, `expected ',' or '}' in object, found '"'`},
		{"bad array separator", `{"a":[1 2]}`, "/a/0", 8, "expected ',' or ']' in array, found '2'"},
		{"bad value", `[1,?]`, "/1", 3, "unexpected '?' where a value was expected"},
		{"NaN", `{"a":{"b":NaN}}`, "/a/b", 10, "non-finite number NaN"},
		{"-Infinity", `{"a":-Infinity}`, "/a", 5, "non-finite number -Infinity"},
		{"leading zero", `{"a":01}`, "/a", 5, "number with a leading zero"},
		{"minus alone", `{"a":-}`, "/a", 5, "invalid number"},
		{"no fraction digits", `[1.x]`, "/0", 1, "no digits after the decimal point"},
		{"no exponent digits", `[1e+]`, "/0", 1, "no digits in the exponent"},
		{"bad literal", `{"a":nul}`, "/a", 5, "invalid literal"},
		{"invalid UTF-8", "{\"a\":\"x\xff\"}", "/a", 7, "invalid UTF-8 byte 0xff"},
		{"invalid UTF-8 in key", "{\"a\xc3\":1}", "", 3, "invalid UTF-8"},
		{"raw control", "[\"x\ty\"]", "/0", 3, "raw control character U+0009"},
		{"bad escape", `["\q"]`, "/0", 2, `invalid escape \q`},
		{"short unicode escape", `["\u12"]`, "/0", 2, `invalid \u escape`},
		{"lone leading surrogate", `{"a":"\ud800x"}`, "/a", 6, "lone leading surrogate"},
		{"lone trailing surrogate", `{"a":"\udc00"}`, "/a", 6, "lone trailing surrogate"},
		{"escaped key in pointer", `{"a\/b":[x]}`, "/a~1b/0", 9, "unexpected 'x'"},
		{"too deep", strings.Repeat("[", MaxDepth+1), strings.Repeat("/0", MaxDepth), MaxDepth + 1, "nesting deeper than 512 levels"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := new(Scanner).ScanAt([]byte(c.in), 0)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("want *Error, got %v", err)
			}
			if e.Pointer != c.pointer || e.Offset != c.offset || !strings.Contains(e.Msg, c.msg) {
				t.Fatalf("got pointer %q offset %d msg %q; want %q %d %q", e.Pointer, e.Offset, e.Msg, c.pointer, c.offset, c.msg)
			}
			if !strings.Contains(err.Error(), "byte ") {
				t.Fatalf("error text does not name the offset: %v", err)
			}
		})
	}
}

func TestScanAtStopsAfterTheValue(t *testing.T) {
	in := []byte(`xx  {"a":1} trailing`)
	end, err := new(Scanner).ScanAt(in, 2)
	if err != nil || end != 11 {
		t.Fatalf("end %d err %v", end, err)
	}
}

func TestFiniteRejectsOverflowingLiterals(t *testing.T) {
	for _, in := range []string{`[1e400]`, `[-1.5e309]`, "[" + strings.Repeat("9", 400) + "]"} {
		if _, err := new(Scanner).ScanAt([]byte(in), 0); err != nil {
			t.Errorf("%.20s: a plain scanner rejected a grammatical literal: %v", in, err)
		}
		_, err := (&Scanner{Finite: true}).ScanAt([]byte(in), 0)
		if err == nil || !strings.Contains(err.Error(), "overflows float64") {
			t.Errorf("%.20s: Finite scanner: %v", in, err)
		}
	}
	if _, err := (&Scanner{Finite: true}).ScanAt([]byte(`[1e300,1.7976931348623157e308,0.1e-400]`), 0); err != nil {
		t.Errorf("finite literals rejected: %v", err)
	}
}

func TestScanNumberGrammar(t *testing.T) {
	for _, c := range []struct {
		in               string
		from             int // just past any '-'
		end, digits, exp int
		fault            NumberFault
	}{
		{"0,", 0, 1, 1, 0, NumberOK},
		{"-12.50e+3]", 1, 9, 2, 3, NumberOK},
		{"4.0}", 0, 3, 1, 0, NumberOK},
		{"7E-2", 0, 4, 1, -2, NumberOK},
		{"01", 0, 1, 0, 0, numberLeadingZero},
		{"-", 1, 1, 0, 0, numberNoDigits},
		{".5", 0, 0, 0, 0, numberNoDigits},
		{"1.", 0, 2, 1, 0, numberNoFraction},
		{"2e+", 0, 3, 1, 0, numberNoExponent},
	} {
		end, digits, exp, fault := ScanNumber([]byte(c.in), c.from)
		if fault != c.fault || end != c.end || (fault == NumberOK && (digits != c.digits || exp != c.exp)) {
			t.Errorf("%q: end %d digits %d exp %d fault %d; want %d %d %d %d", c.in, end, digits, exp, fault, c.end, c.digits, c.exp, c.fault)
		}
	}
}

func TestPlainRun(t *testing.T) {
	for in, want := range map[string]int{"abc": 3, `ab"c`: 2, `a\b`: 1, "a\nb": 1, "aé": 1, "": 0} {
		if got := PlainRun([]byte(in), 0); got != want {
			t.Errorf("PlainRun(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestFind(t *testing.T) {
	rec := []byte(`{"a":{"b":[10,{"c":"x\"y"}],"d/e":null},"n":4.0,"n":5}`)
	for _, c := range []struct {
		toks []string
		want string
	}{
		{nil, string(rec)},
		{[]string{"n"}, "4.0"}, // the first of duplicate keys
		{[]string{"a", "b", "0"}, "10"},
		{[]string{"a", "b", "1", "c"}, `"x\"y"`},
		{[]string{"a", "d/e"}, "null"},
	} {
		start, end, found, err := Find(rec, c.toks)
		if err != nil || !found || string(rec[start:end]) != c.want {
			t.Errorf("Find(%q) = %q %v %v, want %s", c.toks, rec[start:end], found, err, c.want)
		}
	}
	for _, toks := range [][]string{{"x"}, {"a", "b", "2"}, {"a", "b", "01"}, {"a", "b", "-"}, {"n", "x"}} {
		if _, _, found, err := Find(rec, toks); found || err != nil {
			t.Errorf("Find(%q): found %v err %v", toks, found, err)
		}
	}
	// It validates what it passes over, and names where it broke.
	for _, c := range []struct {
		in     string
		offset int
		msg    string
	}{
		{`{"b":1 "a":2}`, 7, "expected ',' or '}'"},
		{`{"a":[1 2]}`, 8, "expected ',' or ']'"},
		{`{"a":[1,2`, 9, "unexpected end of input"},
		{`{"b":[1,2},"a":{}}`, 9, "expected ',' or ']'"},
		{`{"b":"\x","a":{}}`, 6, `invalid escape \x`},
		{`{"a" 1}`, 5, "expected ':'"},
	} {
		_, _, _, err := Find([]byte(c.in), []string{"a", "5"})
		var e *Error
		if !errors.As(err, &e) || e.Offset != c.offset || !strings.HasPrefix(e.Msg, c.msg) {
			t.Errorf("Find in %s: got %v, want offset %d %q", c.in, err, c.offset, c.msg)
		}
	}
	// ...but not what it does not need.
	if _, _, found, err := Find([]byte(`{"a":1,"b":[}`), []string{"a"}); !found || err != nil {
		t.Errorf("Find looked past its member: %v %v", found, err)
	}
}

// FuzzScan: the scanner never panics, accepts only what encoding/json accepts too, and when
// it accepts, its tape is consistent: links stay inside the tape, spans inside the input,
// strings decode to what encoding/json decodes, Find reaches every member it lists, and
// MaxTokens bounds the tape.
func FuzzScan(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,2.5e-3,{"b":null}],"c":"\u00e9\ud83d\ude00"}`, `[1 2]`, `{"a":NaN}`, `"x`, ` [ true , false ] `, `{"a\/b":{"~":-0.0}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := new(Scanner)
		end, err := s.ScanAt(in, 0)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > len(in) {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		if !json.Valid(in[:end]) {
			t.Fatalf("accepted %q, which encoding/json rejects", in[:end])
		}
		if n := MaxTokens(in[:end]); len(s.Tape) > n {
			t.Fatalf("%q has %d tokens, more than MaxTokens's %d", in[:end], len(s.Tape), n)
		}
		for i, tok := range s.Tape {
			if tok.Next <= int32(i) || int(tok.Next) > len(s.Tape) || tok.Start < 0 || int(tok.End) > end || tok.Start > tok.End {
				t.Fatalf("token %d %+v out of bounds (tape %d, end %d)", i, tok, len(s.Tape), end)
			}
			if tok.Kind == String {
				var want string
				if err := json.Unmarshal(s.Raw(int32(i)), &want); err != nil || want != string(s.Str(&s.Tape[i])) {
					t.Fatalf("string %s decoded as %q, encoding/json says %q (%v)", s.Raw(int32(i)), s.Str(&s.Tape[i]), want, err)
				}
			}
		}
		if s.Tape[0].Kind == Object {
			for k, v := range s.Members(0) {
				key := string(s.Str(&s.Tape[k]))
				first, _ := s.Member(0, key)
				start, stop, found, err := Find(in, []string{key})
				if err != nil || !found || string(in[start:stop]) != string(s.Raw(first)) {
					t.Fatalf("Find(%q) = %q %v %v, tape says %q", key, in[start:stop], found, err, s.Raw(v))
				}
			}
		}
	})
}

// MaxTokens is exact on dense input (a token per 2 bytes), the case it sizes tapes for.
func TestMaxTokensOfADenseArray(t *testing.T) {
	in := []byte(`{"events":[0,1,0,1,0],"n":{"m":[]}}`)
	s := new(Scanner)
	if _, err := s.ScanAt(in, 0); err != nil {
		t.Fatal(err)
	}
	if got := MaxTokens(in); got != len(s.Tape)+1 { // the empty array's '[' counts one more
		t.Fatalf("MaxTokens %d, tape %d", got, len(s.Tape))
	}
}
