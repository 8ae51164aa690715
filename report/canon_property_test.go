package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kvparity/internal/pointer"
)

// Property tests: whatever the spelling of a record (key order, whitespace, escapes), its
// canonical form decodes with encoding/json to the same value as the record itself, minus
// exactly the excluded pointers and with /per_request sorted by uuid; it is a fixed point; and
// it depends only on that value.

// randDoc writes a random JSON value as text, spelled with random whitespace and escapes.
type randDoc struct {
	r     *rand.Rand
	b     strings.Builder
	plain bool // only keys and strings that encoding/json spells the serde way once re-encoded
}

var propKeys = []string{"a", "b", "B", "uuid", "wall_time_ms", "é", "ü", "a/b", "~x", "", "k\"q", "tab\t", "✓", "z"}

func (d *randDoc) ws() {
	if d.r.IntN(4) == 0 {
		d.b.WriteString([]string{" ", "\n", "\t", "\r\n  "}[d.r.IntN(4)])
	}
}

func (d *randDoc) str(s string) {
	d.b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			d.b.WriteByte('\\')
			d.b.WriteRune(r)
		case r < 0x20 || d.r.IntN(5) == 0:
			if r > 0xFFFF {
				d.b.WriteString(fmt.Sprintf("\\u%04X\\u%04x", 0xD800+((r-0x10000)>>10), 0xDC00+((r-0x10000)&0x3FF)))
			} else if d.r.IntN(2) == 0 {
				d.b.WriteString(fmt.Sprintf("\\u%04x", r))
			} else {
				d.b.WriteString(fmt.Sprintf("\\u%04X", r))
			}
		case r == '/' && d.r.IntN(2) == 0:
			d.b.WriteString(`\/`)
		default:
			d.b.WriteRune(r)
		}
	}
	d.b.WriteByte('"')
}

var propNumbers = []string{"0", "-0", "4.0", "1.50", "1e5", "-2.5E-7", "123456789012345678901234567890", "9007199254740993", "0.1", "17"}
var propStrings = []string{"", "plain", "café", "a\"b\\c", "line\nbreak\u0001", "😀 emoji", "slash/y", "\u2028"}

func (d *randDoc) value(depth int) {
	d.ws()
	k := d.r.IntN(7)
	if depth > 3 && k < 2 {
		k = 2 + d.r.IntN(5)
	}
	switch k {
	case 0:
		d.object(depth, d.r.IntN(5))
	case 1:
		d.b.WriteByte('[')
		n := d.r.IntN(4)
		for i := 0; i < n; i++ {
			if i > 0 {
				d.ws()
				d.b.WriteByte(',')
			}
			d.value(depth + 1)
		}
		d.ws()
		d.b.WriteByte(']')
	case 2:
		d.b.WriteString(propNumbers[d.r.IntN(len(propNumbers))])
	case 3:
		str := propStrings[d.r.IntN(len(propStrings))]
		if d.plain && str == "\u2028" {
			str = "plain"
		}
		d.str(str)
	case 4:
		d.b.WriteString([]string{"true", "false", "null"}[d.r.IntN(3)])
	default:
		d.object(depth, 1+d.r.IntN(3))
	}
	d.ws()
}

func (d *randDoc) object(depth, n int) {
	keys := slices.Clone(propKeys)
	if d.plain {
		keys = slices.DeleteFunc(keys, func(k string) bool { return strings.ContainsAny(k, "\"\t") })
	}
	d.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	d.b.WriteByte('{')
	for i := 0; i < n; i++ {
		if i > 0 {
			d.b.WriteByte(',')
		}
		d.ws()
		d.str(keys[i])
		d.ws()
		d.b.WriteByte(':')
		d.value(depth + 1)
	}
	d.ws()
	d.b.WriteByte('}')
}

// record writes a report-like root: summary with excluded members, a shuffled per_request
// with unique uuids, and random other members.
func (d *randDoc) record() {
	parts := []func(){
		func() {
			d.str("summary")
			d.b.WriteString(":{")
			d.str("wall_time_ms")
			d.b.WriteString(":1.5,")
			d.str("duration_ms")
			d.b.WriteString(": 2.0 ,")
			d.str("processed_tokens_per_s")
			d.b.WriteString(":3}")
		},
		func() {
			d.str("per_request")
			d.b.WriteString(":[")
			n := d.r.IntN(6)
			perm := d.r.Perm(n)
			for i, u := range perm {
				if i > 0 {
					d.b.WriteByte(',')
				}
				d.b.WriteByte('{')
				d.str("uuid")
				d.b.WriteByte(':')
				d.str(uuidOf(u))
				d.b.WriteByte(',')
				d.str("v")
				d.b.WriteByte(':')
				d.value(2)
				d.b.WriteByte('}')
			}
			d.b.WriteByte(']')
		},
		func() { d.str("other"); d.b.WriteByte(':'); d.value(1) },
		func() { d.str("meta"); d.b.WriteByte(':'); d.object(1, 3) },
	}
	d.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	d.ws()
	d.b.WriteByte('{')
	for i, p := range parts {
		if i > 0 {
			d.b.WriteByte(',')
		}
		d.ws()
		p()
	}
	d.b.WriteByte('}')
	d.ws()
}

func decodeNumbers(t testing.TB, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("encoding/json cannot decode %q: %v", b, err)
	}
	return v
}

// expected applies the profile to a decoded value the slow, obvious way.
func expected(v any, p Profile) any {
	for _, ex := range p.Exclusions {
		toks, _ := pointer.Parse(ex)
		removePointer(v, toks)
	}
	if m, ok := v.(map[string]any); ok {
		if arr, ok := m["per_request"].([]any); ok {
			slices.SortStableFunc(arr, func(a, b any) int {
				return strings.Compare(a.(map[string]any)["uuid"].(string), b.(map[string]any)["uuid"].(string))
			})
		}
	}
	return v
}

func removePointer(v any, toks []string) {
	for i, tok := range toks {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if i == len(toks)-1 {
			delete(m, tok)
			return
		}
		v = m[tok]
	}
}

func checkAgainstEncodingJSON(t testing.TB, in []byte, p Profile) []byte {
	t.Helper()
	c, err := canonicalizeRecord(in, p)
	if err != nil {
		t.Fatalf("canonicalizeRecord(%q): %v", in, err)
	}
	if !json.Valid(c) || !bytes.HasSuffix(c, []byte("}\n")) || bytes.Count(c, []byte("\n")) != 1 {
		t.Fatalf("canonical output is not one compact JSON line: %q", c)
	}
	if got, want := decodeNumbers(t, c), expected(decodeNumbers(t, in), p); !reflect.DeepEqual(got, want) {
		t.Fatalf("value changed:\n in  %s\n out %s", in, c)
	}
	if brk, err := fixedPointBreak(c, p); err != nil || brk != "" {
		t.Fatalf("canonical output is not a fixed point (break %q, err %v): %s", brk, err, c)
	}
	return c
}

// randomRecords is how many random records a property test draws: n, or a sixth of n under
// -short (the same seeded prefix).
func randomRecords(n int) int {
	if testing.Short() {
		return n / 6
	}
	return n
}

func TestCanonicalizeMatchesEncodingJSONOnRandomSpellings(t *testing.T) {
	r := rand.New(rand.NewPCG(20261129, 1))
	p := DefaultProfile()
	for range randomRecords(3000) {
		d := randDoc{r: r}
		d.record()
		in := []byte(d.b.String())
		c := checkAgainstEncodingJSON(t, in, p)
		// The canonical form depends only on the value: re-spell it and compare bytes.
		var v any = decodeNumbers(t, in)
		again, err := canonicalizeRecord(marshal(v), p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, c) {
			t.Fatalf("two spellings of one value gave different canonical bytes:\n%s%s", c, again)
		}
		checkFixedPointIff(t, in)
		checkFixedPointIff(t, marshal(expected(v, Profile{})))
	}
}

func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"b":1,"a":[1,2,{"d":null,"c":true}]}`, `{"summary":{"wall_time_ms":1.0,"x":2}}`,
		`{"per_request":[{"uuid":"b"},{"uuid":"a"}]}`, `{"s":"\u00e9\/\ud83d\ude00\n"}`, `{"n":[4.0,-0,1e308,1e999]}`,
		`{"a":NaN}`, `{"a":1,"a":2}`, "{\"a\":\"\xff\"}", `{"a":[1,`, `{"a":1} x`,
	} {
		f.Add([]byte(s))
	}
	f.Add(synthLine(synthOpts{Requests: 3, Disagg: true, Pressure: 1}))
	p := DefaultProfile()
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := canonicalizeRecord(in, p)
		if err != nil {
			var ce *canonError
			if !strings.Contains(err.Error(), "canonical report") || !asCanonError(err, &ce) {
				t.Fatalf("error is not a *canonError: %v", err)
			}
			return
		}
		// Whatever the canonicalizer accepts, encoding/json accepts and decodes to the same value.
		if !json.Valid(in) {
			t.Fatalf("accepted input that encoding/json rejects: %q", in)
		}
		again, err := canonicalizeRecord(c, p)
		if err != nil || !bytes.Equal(again, c) {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", in, c, again, err)
		}
		if m, ok := decodeNumbers(t, in).(map[string]any); ok {
			if arr, ok := m["per_request"].([]any); ok {
				// Equal uuids are tie-broken by canonical bytes, which the slow oracle does not
				// model; only compare when they are unique.
				seen := map[string]bool{}
				for _, e := range arr {
					u := e.(map[string]any)["uuid"].(string)
					if seen[u] {
						return
					}
					seen[u] = true
				}
			}
		}
		checkAgainstEncodingJSON(t, in, p)
		fastAgrees(t, in, p)
		fastAgrees(t, c, p)
		checkFixedPointIff(t, in)
	})
}

// checkFixedPointIff: without exclusions, a record is reported as a fixed point exactly when
// canonicalizing it changes nothing (up to the one trailing newline).
func checkFixedPointIff(t testing.TB, in []byte) {
	t.Helper()
	p := Profile{Unordered: DefaultProfile().Unordered}
	c, brk, err := canonicalizeAndCheck(in, p)
	if err != nil {
		return
	}
	same := bytes.Equal(append(bytes.TrimSuffix(bytes.Clone(in), []byte("\n")), '\n'), c)
	if same != (brk == "") {
		t.Fatalf("fixed point %q but canonical form equal to input = %v:\n in  %q\n out %q", brk, same, in, c)
	}
}

func asCanonError(err error, target **canonError) bool {
	ce, ok := err.(*canonError)
	if ok {
		*target = ce
	}
	return ok
}
