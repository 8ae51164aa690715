package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/internal/jsonscan"
)

func mustCanon(t *testing.T, in string, p Profile) string {
	t.Helper()
	out, err := canonicalizeRecord([]byte(in), p)
	if err != nil {
		t.Fatalf("canonicalizeRecord(%q): %v", in, err)
	}
	return string(out)
}

func TestCanonicalizeSortsKeysAtEveryLevelBytewise(t *testing.T) {
	in := `{"b":1,"a":{"z":[{"y":1,"x":2}],"B":true,"é":null,"e":"s"},"A":[]}`
	want := `{"A":[],"a":{"B":true,"e":"s","z":[{"x":2,"y":1}],"é":null},"b":1}` + "\n"
	if got := mustCanon(t, in, Profile{}); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestCanonicalizeKeepsNumberLiteralsVerbatim(t *testing.T) {
	in := `{"a":4.0,"b":1e5,"c":-0,"d":1.50,"e":12345678901234567890123,"f":0.1e-999,"g":1E+2,"h":-0.0}`
	want := in + "\n"
	if got := mustCanon(t, in, Profile{}); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestCanonicalizeReencodesStringsTheSerdeWay(t *testing.T) {
	cases := map[string]string{
		`"\u00e9"`:       `"é"`,
		`"\/"`:           `"/"`,
		`"\u001F\u001f"`: `"\u001f\u001f"`,
		`"\ud83d\ude00"`: `"😀"`,
		`"a\"b\\c"`:      `"a\"b\\c"`,
		`"\b\f\n\r\t"`:   `"\b\f\n\r\t"`,
		`"\u0008\u000A"`: `"\b\n"`,
		`"raw é ✓"`:      `"raw é ✓"`,
		`"\u0000"`:       `"\u0000"`,
		`"\u007f"`:       "\"\x7f\"",
		`"\u2028"`:       "\"\u2028\"",
		`"<&>"`:          `"<&>"`,
		`"\u0041\u0042"`: `"AB"`,
	}
	for in, want := range cases {
		got := mustCanon(t, `{"k":`+in+`}`, Profile{})
		if got != `{"k":`+want+"}\n" {
			t.Errorf("%s: got %s want {\"k\":%s}", in, got, want)
		}
	}
	// Keys are compared after decoding: "\u0061" is "a" and sorts (and collides) as "a".
	if got := mustCanon(t, `{"b":1,"\u0061":2}`, Profile{}); got != `{"a":2,"b":1}`+"\n" {
		t.Fatalf("escaped key: got %s", got)
	}
}

func TestCanonicalizeRemovesExactlyTheProfileExclusions(t *testing.T) {
	in := `{"summary":{"wall_time_ms":9.5,"processed_tokens_per_s":1.0,"processed_output_tokens_per_s":2.0,"duration_ms":3.0,"wall_time_ms_other":1},` +
		`"planner":{"html_report_path":"/tmp/x"},"metadata":{"wall_time_ms":1}}`
	want := `{"metadata":{"wall_time_ms":1},"planner":{"html_report_path":"/tmp/x"},"summary":{"duration_ms":3.0,"wall_time_ms_other":1}}` + "\n"
	if got := mustCanon(t, in, DefaultProfile()); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// Pointers with escapes and array indices.
	p := Profile{Exclusions: []string{"/a~1b/x~0y", "/arr/1"}}
	got := mustCanon(t, `{"a/b":{"x~y":1,"k":2},"arr":[0,1,2]}`, p)
	if want := `{"a/b":{"k":2},"arr":[0,2]}` + "\n"; got != want {
		t.Fatalf("escaped pointers: got %s want %s", got, want)
	}
	// An exclusion that names nothing present is not an error.
	mustCanon(t, `{"summary":{}}`, DefaultProfile())
}

func TestCanonicalizeSortsPerRequestByUUIDOnly(t *testing.T) {
	in := `{"per_request":[{"uuid":"00000000-0000-0000-0000-000000000010","h":[3,1]},` +
		`{"uuid":"00000000-0000-0000-0000-000000000002","h":[2]},{"uuid":"00000000-0000-0000-0000-000000000001"}],` +
		`"coverage":{"pressure":{"records":[{"o":2},{"o":1}]}}}`
	want := `{"coverage":{"pressure":{"records":[{"o":2},{"o":1}]}},"per_request":[{"uuid":"00000000-0000-0000-0000-000000000001"},` +
		`{"h":[2],"uuid":"00000000-0000-0000-0000-000000000002"},{"h":[3,1],"uuid":"00000000-0000-0000-0000-000000000010"}]}` + "\n"
	if got := mustCanon(t, in, DefaultProfile()); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// Equal keys: ordered by canonical bytes, whatever the input order.
	a := mustCanon(t, `{"per_request":[{"uuid":"u","v":2},{"uuid":"u","v":1}]}`, DefaultProfile())
	b := mustCanon(t, `{"per_request":[{"v":1,"uuid":"u"},{"uuid":"u","v":2}]}`, DefaultProfile())
	if a != b || a != `{"per_request":[{"uuid":"u","v":1},{"uuid":"u","v":2}]}`+"\n" {
		t.Fatalf("tie-break not order independent:\n%s%s", a, b)
	}
}

func TestCanonicalizeTrailingNewlineAndWhitespace(t *testing.T) {
	want := `{"a":[1,2]}` + "\n"
	for _, in := range []string{`{"a":[1,2]}`, "{\"a\":[1,2]}\n", " { \"a\" : [ 1 , 2 ] } \r\n"} {
		if got := mustCanon(t, in, Profile{}); got != want {
			t.Errorf("%q: got %q", in, got)
		}
	}
}

func TestCanonicalizeErrorsNamePointerAndOffset(t *testing.T) {
	cases := []struct {
		name, in, pointer string
		offset            int64
		msg               string
	}{
		{"NaN", `{"a":{"b":NaN}}`, "/a/b", 10, "non-finite number NaN"},
		{"Infinity", `{"a":[1,Infinity]}`, "/a/1", 8, "non-finite number Infinity"},
		{"-Infinity", `{"a":-Infinity}`, "/a", 5, "non-finite number -Infinity"},
		{"overflow", `{"x":[0,1e999]}`, "/x/1", 8, "overflows float64"},
		{"overflow integer", `{"x":` + strings.Repeat("9", 400) + `}`, "/x", 5, "overflows float64"},
		{"overflow negative", `{"x":-1.5e309}`, "/x", 5, "overflows float64"},
		{"duplicate key", `{"a":{"k":1,"j":0,"k":2}}`, "/a/k", 18, `duplicate key "k"`},
		{"duplicate escaped key", `{"k":1,"\u006b":2}`, "/k", 7, `duplicate key "k"`},
		{"duplicate excluded key", `{"summary":{"wall_time_ms":1,"wall_time_ms":2}}`, "/summary/wall_time_ms", 29, "duplicate key"},
		{"invalid UTF-8", "{\"a\":\"x\xff\"}", "/a", 7, "invalid UTF-8 byte 0xff"},
		{"invalid UTF-8 in key", "{\"a\xc3\":1}", "", 3, "invalid UTF-8"},
		{"truncated", `{"a":{"b":[1,2`, "/a/b", 14, "unexpected end of input"},
		{"truncated string", `{"a":"abc`, "/a", 9, "unexpected end of input"},
		{"truncated number", `{"a":1.`, "/a", 7, "unexpected end of input"},
		{"truncated literal", `{"a":tr`, "/a", 7, "unexpected end of input"},
		{"trailing garbage", `{"a":1} x`, "", 8, "trailing data"},
		{"second object", "{\"a\":1}\n{\"a\":1}", "", 8, "trailing data"},
		{"lone surrogate", `{"a":"\ud800x"}`, "/a", 6, "lone leading surrogate"},
		{"lone trailing surrogate", `{"a":"\udc00"}`, "/a", 6, "lone trailing surrogate"},
		{"bad escape", `{"a":"\q"}`, "/a", 6, `invalid escape \q`},
		{"raw control", "{\"a\":\"x\ty\"}", "/a", 7, "raw control character U+0009"},
		{"not an object", `[1,2]`, "", 0, "not a JSON object"},
		{"empty", ``, "", 0, "empty record"},
		{"leading zero", `{"a":01}`, "/a", 5, "leading zero"},
		{"minus alone", `{"a":-}`, "/a", 5, "invalid number"},
		{"truncated after minus", `{"a":-`, "/a", 6, "unexpected end of input"},
		{"no fraction digits", `{"a":1.x}`, "/a", 5, "no digits after the decimal point"},
		{"no exponent digits", `{"a":1e+}`, "/a", 5, "no digits in the exponent"},
		{"truncated exponent", `{"a":2E-`, "/a", 8, "unexpected end of input"},
		{"overflowing number", `{"a":1e400}`, "/a", 5, "overflows float64"},
		{"missing colon", `{"a" 1}`, "/a", 5, "expected ':'"},
		{"bad literal", `{"a":nul}`, "/a", 5, "invalid literal"},
		{"per_request without uuid", `{"per_request":[{"uuid":"a"},{"id":1}]}`, "/per_request/1", 29, `no sort key "uuid"`},
		{"per_request uuid not a string", `{"per_request":[{"uuid":7}]}`, "/per_request/0/uuid", 24, "not a string"},
		{"per_request element not object", `{"per_request":[3]}`, "/per_request/0", 16, "not an object"},
		{"per_request is an object", `{"per_request":{"uuid":"a"}}`, "/per_request", 15, "but it is an object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := canonicalizeRecord([]byte(c.in), DefaultProfile())
			var ce *canonError
			if !errors.As(err, &ce) {
				t.Fatalf("want *canonError, got %v", err)
			}
			if ce.Pointer != c.pointer || ce.Offset != c.offset || !strings.Contains(ce.Msg, c.msg) {
				t.Fatalf("got pointer %q offset %d msg %q; want %q %d %q", ce.Pointer, ce.Offset, ce.Msg, c.pointer, c.offset, c.msg)
			}
			if !strings.Contains(err.Error(), "byte ") {
				t.Fatalf("error text does not name the offset: %v", err)
			}
		})
	}
}

func TestCanonErrorText(t *testing.T) {
	e := &canonError{Pointer: "/a/b", Offset: 12, Msg: "bad"}
	if got := e.Error(); got != `canonical report at "/a/b" (byte 12): bad` {
		t.Fatalf("got %q", got)
	}
	e = &canonError{Offset: -1, Msg: "bad"}
	if got := e.Error(); got != "canonical report at the record root: bad" {
		t.Fatalf("got %q", got)
	}
}

func TestCanonicalizeRejectsBadProfiles(t *testing.T) {
	for _, p := range []Profile{
		{Exclusions: []string{"summary/x"}},
		{Exclusions: []string{""}},
		{Exclusions: []string{"/a~2"}},
		{Unordered: map[string]string{"/per_request": ""}},
		{Unordered: map[string]string{"": "uuid"}},
	} {
		if _, err := canonicalizeRecord([]byte(`{}`), p); err == nil {
			t.Errorf("profile %+v accepted", p)
		}
	}
}

func TestCanonicalizeRejectsDeepNesting(t *testing.T) {
	in := `{"a":` + strings.Repeat("[", jsonscan.MaxDepth+5) + strings.Repeat("]", jsonscan.MaxDepth+5) + `}`
	if _, err := canonicalizeRecord([]byte(in), Profile{}); err == nil || !strings.Contains(err.Error(), "nesting deeper") {
		t.Fatalf("got %v", err)
	}
}

func TestCanonicalizeIsIdempotentOnSyntheticReports(t *testing.T) {
	for _, o := range []synthOpts{{Requests: 50, Pressure: 2}, {Requests: 40, Disagg: true, Engine: "sglang", Pressure: 14, QueueAfter: 30}} {
		line := synthLine(o)
		c1, err := canonicalizeRecord(line, DefaultProfile())
		if err != nil {
			t.Fatal(err)
		}
		c2, err := canonicalizeRecord(c1, DefaultProfile())
		if err != nil {
			t.Fatal(err)
		}
		if string(c1) != string(c2) {
			t.Fatal("canon(canon(x)) != canon(x)")
		}
		if string(c1) != string(line) {
			t.Fatal("a sorted, compact record without excluded fields must canonicalize to itself")
		}
	}
}

func TestDigestIsSHA256OfCanonicalBytes(t *testing.T) {
	// sha256sum of the two bytes "{}" plus newline.
	c := mustCanon(t, "{ }", Profile{})
	if got, want := Digest([]byte(c)), "ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356"; got != want {
		t.Fatalf("Digest = %s, want %s", got, want)
	}
}

func TestFixedPointBreak(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"canonical", `{"a":1,"b":[1,{"c":"x"}]}`, ""},
		{"canonical with newline", "{\"a\":1}\n", ""},
		{"excluded member still present", `{"summary":{"duration_ms":1.0,"wall_time_ms":3.5}}`, ""},
		{"unsorted keys", `{"a":{"c":1,"b":2}}`, "/a/b"},
		{"unsorted root keys", `{"b":1,"a":2}`, "/a"},
		{"space after colon", `{"a":{"b": 1}}`, "/a/b"},
		{"space before key", `{"a":{ "b":1}}`, "/a/b"},
		{"space before close", `{"a":[1,2 ]}`, "/a"},
		{"space in array", `{"a":[1, 2]}`, "/a/1"},
		{"non-serde escape", `{"a":[{"s":"caf\u00e9"}]}`, "/a/0/s"},
		{"escaped slash", `{"p":"a\/b"}`, "/p"},
		{"serde escapes are fine", `{"p":"a\"b\\c\n\u001f"}`, ""},
		{"non-serde key escape", `{"\u0061":1}`, "/a"},
		{"per_request out of order", `{"per_request":[{"uuid":"1"},{"uuid":"3"},{"uuid":"2"}]}`, "/per_request/2"},
		{"leading space", ` {"a":1}`, fixedPointRoot},
		{"CRLF", "{\"a\":1}\r\n", fixedPointRoot},
		{"space in empty root", `{ }`, fixedPointRoot},
		{"space before root close", `{"a":1 }`, fixedPointRoot},
		{"pointer escaping", `{"a/b":{"~":{"y":1,"x":2}}}`, "/a~1b/~0/x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := fixedPointBreak([]byte(c.in), DefaultProfile())
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("fixedPointBreak = %q, want %q", got, c.want)
			}
		})
	}
	if _, err := fixedPointBreak([]byte(`{"a":NaN}`), DefaultProfile()); err == nil {
		t.Fatal("bad input must be an error, not a break")
	}
}

func TestFixedPointOfSyntheticHarnessOutput(t *testing.T) {
	line := synthLine(synthOpts{Requests: 30, Disagg: true, Pressure: 3})
	c, brk, err := canonicalizeAndCheck(line, DefaultProfile())
	if err != nil || brk != "" || string(c) != string(line) {
		t.Fatalf("harness-shaped line: break %q err %v", brk, err)
	}
}

func TestCheckReplayBench(t *testing.T) {
	if err := CheckReplayBench([]byte(`{"metadata":{"replay_bench":true}}`)); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{`{"metadata":{"replay_bench":false}}`, `{"metadata":{}}`, `{"metadata":{"replay_bench":"true"}}`, `{}`} {
		err := CheckReplayBench([]byte(in))
		if !errors.Is(err, errReplayBench) || !strings.Contains(err.Error(), "/metadata/replay_bench") {
			t.Errorf("%s: got %v", in, err)
		}
	}
	if err := checkReplayBenchAt([]byte(`{"iteration":0,"replay_bench":true}`), "/replay_bench"); err != nil {
		t.Fatal(err)
	}
	// The 1.4.x release line writes replay_bench at the root and has no metadata (seed 000's
	// historical KVBM row); a report with metadata is read there only.
	if err := CheckReplayBench([]byte(`{"engine_type":"vllm","per_request":[],"replay_bench":true}`)); err != nil {
		t.Fatalf("a 1.4.x report: %v", err)
	}
	for in, ptr := range map[string]string{`{"per_request":[],"replay_bench":false}`: `/replay_bench is "false"`,
		`{"metadata":{},"replay_bench":true}`: "/metadata/replay_bench is missing", `{"schema_version":"x","replay_bench":true}`: "/metadata/replay_bench is missing"} {
		if err := CheckReplayBench([]byte(in)); !errors.Is(err, errReplayBench) || !strings.Contains(err.Error(), ptr) {
			t.Errorf("%s: got %v, want %q", in, err, ptr)
		}
	}
	if err := CheckReplayBench([]byte(`{"metadata":`)); err == nil || errors.Is(err, errReplayBench) {
		t.Fatalf("malformed input must be a parse error, got %v", err)
	}
}

func TestLookup(t *testing.T) {
	rec := []byte(`{"a":{"b":[10,{"c":"x\"y"}],"d/e":null},"n":4.0}`)
	cases := map[string]string{"/n": "4.0", "/a/b/0": "10", "/a/b/1/c": `"x\"y"`, "/a/d~1e": "null", "/a/b": `[10,{"c":"x\"y"}]`, "": string(rec)}
	for ptr, want := range cases {
		got, found, err := lookup(rec, ptr)
		if err != nil || !found || string(got) != want {
			t.Errorf("Lookup(%q) = %s %v %v, want %s", ptr, got, found, err, want)
		}
	}
	for _, ptr := range []string{"/x", "/a/b/2", "/a/b/01", "/a/b/-", "/n/x"} {
		if _, found, err := lookup(rec, ptr); found || err != nil {
			t.Errorf("Lookup(%q): found %v err %v", ptr, found, err)
		}
	}
	if _, _, err := lookup(rec, "n"); err == nil {
		t.Error("invalid pointer accepted")
	}
	if got, found, err := lookup([]byte(`{"x":"a,b]","\u0061":{"q":[1,{"z":"}"}]}}`), "/a/q/1/z"); string(got) != `"}"` || !found || err != nil {
		t.Errorf("escaped key: got %s %v %v", got, found, err)
	}
	for _, in := range []string{`{"a" 1}`, `{"b":[1,2`, `{"b":"x`, `{"b":1 "a":2}`, `{"b":,"a":1}`, `{"b":[1,2}`} {
		if _, _, err := lookup([]byte(in), "/a/5"); err == nil {
			t.Errorf("Lookup in %s: no error", in)
		}
	}
}

func TestLookupNamesTheMissingSeparator(t *testing.T) {
	cases := []struct {
		in     string
		offset int64
		msg    string
	}{
		{`{"b":1 "a":2}`, 7, "expected ',' or '}'"},
		{`{"a":[1 2]}`, 8, "expected ',' or ']'"},
		{`{"a":[1,2`, 9, "unexpected end of input"},
	}
	for _, c := range cases {
		_, _, err := lookup([]byte(c.in), "/a/5")
		var ce *canonError
		if !errors.As(err, &ce) || ce.Offset != c.offset || !strings.HasPrefix(ce.Msg, c.msg) {
			t.Errorf("Lookup in %s: got %v, want offset %d %q", c.in, err, c.offset, c.msg)
		}
	}
}

func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.jsonl", "{\"b\":1,\"a\":2}\n{\"a\":1}")
	recs, err := CheckFile(good, Profile{})
	if err != nil || len(recs) != 2 || string(recs[0].Canonical) != "{\"a\":2,\"b\":1}\n" || string(recs[1].Canonical) != "{\"a\":1}\n" {
		t.Fatalf("got %+v %v", recs, err)
	}
	if err != nil || recs[0].FixedPoint != "/a" || recs[1].FixedPoint != "" || recs[1].Digest != Digest([]byte("{\"a\":1}\n")) || recs[1].Line != 2 {
		t.Fatalf("CheckFile: %+v %v", recs, err)
	}
	for name, c := range map[string]struct{ body, want string }{
		"bad.jsonl":   {"{\"a\":1}\n{\"a\":NaN}\n", "bad.jsonl:2: canonical report at \"/a\" (byte 5): non-finite number NaN"},
		"blank.jsonl": {"{\"a\":1}\n\n{\"a\":1}\n", "blank.jsonl:2: blank line"},
		"empty.jsonl": {"", "empty.jsonl: empty file"},
		"trunc.jsonl": {"{\"a\":1}\n{\"a\":[1,", "trunc.jsonl:2: canonical report at \"/a/1\" (byte 8): unexpected end of input"},
	} {
		_, err := CheckFile(write(name, c.body), Profile{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want it to contain %q", name, err, c.want)
		}
	}
	if _, err := CheckFile(filepath.Join(dir, "missing.jsonl"), Profile{}); err == nil {
		t.Error("missing file accepted")
	}
}

func TestCanonicalizeConcurrently(t *testing.T) {
	// The determinism stage canonicalizes repetitions in parallel; pooled scanners must not leak
	// state between calls.
	inputs := [][]byte{
		synthLine(synthOpts{Requests: 30, Pressure: 2}),
		[]byte(` {"b":[3,2,1],"a":{"y":"\u00e9","x":1}} `),
		synthLine(synthOpts{Requests: 20, Disagg: true, Engine: "sglang", Pressure: 11}),
	}
	want := make([][]byte, len(inputs))
	for i, in := range inputs {
		want[i], _ = canonicalizeRecord(in, DefaultProfile())
	}
	errs := make(chan string, 80)
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for k := 0; k < 20; k++ {
				i := (g + k) % len(inputs)
				got, err := canonicalizeRecord(inputs[i], DefaultProfile())
				if err != nil || string(got) != string(want[i]) {
					errs <- fmt.Sprintf("goroutine %d input %d: %v", g, i, err)
				}
			}
			done <- true
		}(g)
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// The compiled profile a walk follows alongside a document (the diff's exclusions).
func TestProfileNodeFollowsThePointers(t *testing.T) {
	root, err := CompileProfile(DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	summary := root.Child("summary")
	if !summary.Names() || summary.Excluded() || !summary.Child("wall_time_ms").Excluded() || summary.Child("mean_ttft_ms").Excluded() {
		t.Errorf("summary: names %v excluded %v, wall_time_ms %v", summary.Names(), summary.Excluded(), summary.Child("wall_time_ms").Excluded())
	}
	if root.Child("metadata").Names() || root.Child("metadata").Child("x").Excluded() {
		t.Error("a member the profile never names has a node")
	}
	if _, err := CompileProfile(Profile{Exclusions: []string{"summary"}}); err == nil {
		t.Error("an invalid profile compiled")
	}
}
