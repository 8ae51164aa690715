package report

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// The fast path must agree byte for byte with the general path whenever it answers.

func canonicalSlow(t testing.TB, in []byte, p Profile) ([]byte, error) {
	t.Helper()
	root, err := compileProfile(p)
	if err != nil {
		t.Fatal(err)
	}
	return canonicalize(newScanner(), in, root)
}

// fastAgrees reports whether the fast path answered, failing the test if it disagrees.
func fastAgrees(t testing.TB, in []byte, p Profile) bool {
	t.Helper()
	root, err := compileProfile(p)
	if err != nil {
		t.Fatal(err)
	}
	fast, ok := canonicalFast(in, root)
	if !ok {
		return false
	}
	slow, err := canonicalSlow(t, in, p)
	if err != nil {
		t.Fatalf("fast path accepted %q but the general path says %v", in, err)
	}
	if !bytes.Equal(fast, slow) {
		t.Fatalf("fast and general paths disagree on %q:\nfast    %s\ngeneral %s", in, fast, slow)
	}
	return true
}

func TestFastPathCutsExclusions(t *testing.T) {
	p := Profile{Exclusions: []string{"/s/a", "/s/b", "/s/d", "/s/e", "/x"}}
	cases := map[string]string{
		`{"s":{"a":1,"b":2,"c":3,"d":4,"e":5}}`: `{"s":{"c":3}}`,
		`{"s":{"a":1,"b":2}}`:                   `{"s":{}}`,
		`{"s":{"c":3,"d":{"a":[1]},"e":5}}`:     `{"s":{"c":3}}`,
		`{"s":{"a":1,"c":3}}`:                   `{"s":{"c":3}}`,
		`{"s":{"c":3,"e":5},"x":1}`:             `{"s":{"c":3}}`,
		`{"a":{"s":1},"s":{"b":2,"c":{"a":1}}}`: `{"a":{"s":1},"s":{"c":{"a":1}}}`,
		`{"x":{"deep":[1,2]}}`:                  `{}`,
	}
	for in, want := range cases {
		if !fastAgrees(t, []byte(in), p) {
			t.Errorf("fast path declined canonical input %s", in)
			continue
		}
		if got := mustCanon(t, in, p); got != want+"\n" {
			t.Errorf("%s: got %s want %s", in, got, want)
		}
	}
}

func TestFastPathDeclinesWhatItCannotDecide(t *testing.T) {
	for _, in := range []string{
		`{"b":1,"a":2}`, `{"a":1,"a":2}`, `{"a": 1}`, `{"\u0061":1}`, `{"a":"\u00e9"}`, `{"a":"\/"}`,
		`{"a":"\u000a"}`, `{"a":"\u001F"}`, `{"a":1e999}`, `{"a":NaN}`, "{\"a\":\"\xff\"}", `{"a":01}`,
		`{"per_request":[{"uuid":"b"},{"uuid":"a"}]}`, `{"per_request":[{"uuid":"a"},{"uuid":"a"}]}`,
		`{"per_request":[{"id":1}]}`, `{"per_request":[{"uuid":1}]}`, `{"per_request":[1]}`, `{"per_request":[{}]}`,
		`{"a":[1,2]`, `{"a":1}x`, `[1]`, ``, "{\"a\":1}\r\n",
	} {
		if fastAgrees(t, []byte(in), DefaultProfile()) {
			t.Errorf("fast path answered %q", in)
		}
	}
	if fastAgrees(t, []byte(`{"arr":[1,2]}`), Profile{Exclusions: []string{"/arr/0"}}) {
		t.Error("fast path answered an index exclusion")
	}
}

func TestFastPathTakesHarnessShapedRecords(t *testing.T) {
	for _, in := range [][]byte{
		synthLine(synthOpts{Requests: 40, Disagg: true, Pressure: 3}),
		[]byte(`{"a":"x\"y\\z\n\u001f\u0000 é","n":[-0,4.0,0.5,-12],"per_request":[{"uuid":"1"},{"uuid":"2"}],"t":[true,false,null,{}]}`),
	} {
		if !fastAgrees(t, in, DefaultProfile()) {
			t.Fatalf("fast path declined a canonical record: %.200s", in)
		}
	}
}

func TestFastPathAgreesOnRandomCanonicalRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	p := DefaultProfile()
	answered, n := 0, randomRecords(3000)
	for i := 0; i < n; i++ {
		d := randDoc{r: r, plain: true}
		d.record()
		// Re-spelling the value compactly with sorted keys gives mostly fast-path input that
		// still carries excluded members.
		in := marshal(expected(decodeNumbers(t, []byte(d.b.String())), Profile{})) // per_request sorted
		if fastAgrees(t, in, p) {
			answered++
		}
	}
	t.Logf("fast path answered %d of %d", answered, n)
	if answered < n*5/6 {
		t.Fatalf("fast path answered only %d of %d compact sorted records", answered, n)
	}
}
