package report

import (
	"sync"
	"testing"

	"kvparity/internal/jsonscan"
)

// The speed target (DESIGN, issue 3): canonicalize + digest a ~29 MB report at least 10x
// faster than `jq -S -c . FILE | sha256sum`. scripts/bench-canon.sh measures the ratio on a
// real replay report; these benchmarks track the library's throughput on a synthetic report of
// the full conversation trace's size (12,031 disaggregated requests).

var benchReport = sync.OnceValue(func() []byte {
	return synthLine(synthOpts{Requests: 12031, Disagg: true, Pressure: 14, Seed: 1})
})

func BenchmarkCanonicalize(b *testing.B) {
	in := benchReport()
	p := DefaultProfile()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		c, err := canonicalizeRecord(in, p)
		if err != nil {
			b.Fatal(err)
		}
		_ = Digest(c)
	}
}

// BenchmarkCanonicalizeUnsorted measures the slow path: every object's keys reversed and
// /per_request shuffled, so everything must be sorted.
func BenchmarkCanonicalizeUnsorted(b *testing.B) {
	rec := synthRecord(synthOpts{Requests: 12031, Disagg: true, Pressure: 14, Seed: 1})
	pr := rec["per_request"].([]any)
	for i := range pr {
		j := (i * 7919) % len(pr)
		pr[i], pr[j] = pr[j], pr[i]
	}
	in := reverseKeys(marshal(rec))
	p := DefaultProfile()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := canonicalizeRecord(in, p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCanonicalizeAndCheck(b *testing.B) {
	in := benchReport()
	p := DefaultProfile()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, _, err := canonicalizeAndCheck(in, p); err != nil {
			b.Fatal(err)
		}
	}
}

// reverseKeys re-spells a compact record with every object's members in reverse order.
func reverseKeys(in []byte) []byte {
	s := newScanner()
	if err := parseRecord(s, in); err != nil {
		panic(err)
	}
	var out []byte
	var walk func(ti int32)
	walk = func(ti int32) {
		switch s.Tape[ti].Kind {
		case jsonscan.Object:
			var mem []int32
			for k := range s.Members(ti) {
				mem = append(mem, k)
			}
			out = append(out, '{')
			for i := len(mem) - 1; i >= 0; i-- {
				if i != len(mem)-1 {
					out = append(out, ',')
				}
				out = append(out, s.Raw(mem[i])...)
				out = append(out, ':')
				walk(mem[i] + 1)
			}
			out = append(out, '}')
		case jsonscan.Array:
			out = append(out, '[')
			for i, el := range s.Elements(ti) {
				if i > 0 {
					out = append(out, ',')
				}
				walk(el)
			}
			out = append(out, ']')
		default:
			out = append(out, s.Raw(ti)...)
		}
	}
	walk(0)
	return out
}
