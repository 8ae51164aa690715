package report

import (
	"math/rand/v2"
	"testing"
)

// CanonicalizeAndDigest hashes on a second goroutine; whatever path it takes, its answer must
// be canonicalizeRecord + Digest.
func TestCanonicalizeAndDigestMatchesSequential(t *testing.T) {
	oldMin, oldChunk := parallelDigestMin, feedChunk
	parallelDigestMin, feedChunk = 0, 16 // exercise the pipeline on small records, many sends
	t.Cleanup(func() { parallelDigestMin, feedChunk = oldMin, oldChunk })

	check := func(in []byte, p Profile) {
		t.Helper()
		c, sum, brk, err := CanonicalizeAndDigest(in, p)
		want, wantBrk, wantErr := canonicalizeAndCheck(in, p)
		if (err == nil) != (wantErr == nil) || string(c) != string(want) || brk != wantBrk {
			t.Fatalf("%q: got %q %q %v, want %q %q %v", in, c, brk, err, want, wantBrk, wantErr)
		}
		if err == nil && sum != Digest(want) {
			t.Fatalf("%q: digest %s, want %s", in, sum, Digest(want))
		}
	}
	r := rand.New(rand.NewPCG(3, 5))
	p := DefaultProfile()
	for range randomRecords(2000) {
		d := randDoc{r: r, plain: true}
		d.record()
		check([]byte(d.b.String()), p)                                                 // mostly the general path
		check(marshal(expected(decodeNumbers(t, []byte(d.b.String())), Profile{})), p) // fast path, with cuts
	}
	check(synthLine(synthOpts{Requests: 60, Disagg: true, Pressure: 12}), p)
	// Cuts inside nested cutting objects, and a trailing run.
	q := Profile{Exclusions: []string{"/a/x", "/a/b/y", "/a/b/z", "/z"}}
	check([]byte(`{"a":{"b":{"w":[1,2,3],"y":"yyyyyyyyyyyyyyyyyyyyyyyy","z":{"q":"qqqqqqqqqqqqqqqqqqqq"}},"c":"cccccccccccccccccc","x":1},"z":2}`), q)
	check([]byte(`{"a":NaN}`), p)
	check([]byte("{\"a\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]"), p)
}

func BenchmarkCanonicalizeAndDigest(b *testing.B) {
	in := benchReport()
	p := DefaultProfile()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, _, _, err := CanonicalizeAndDigest(in, p); err != nil {
			b.Fatal(err)
		}
	}
}
