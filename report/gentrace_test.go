package report

import (
	"bytes"
	"sort"
	"testing"
)

func TestGenerateConversationTraceDeterministicAndParseable(t *testing.T) {
	var a, b, c bytes.Buffer
	if err := GenerateConversationTrace(&a, 300, 7); err != nil {
		t.Fatal(err)
	}
	_ = GenerateConversationTrace(&b, 300, 7)
	_ = GenerateConversationTrace(&c, 300, 8)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("same seed gave different bytes")
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Fatal("different seeds gave the same bytes")
	}
	rows, err := ReadMooncake(&a, "gen.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 300 {
		t.Fatalf("got %d rows", len(rows))
	}
}

// The generator is fitted to the published conversation trace: input median about 6,900
// with a tail towards 120k, output median about 350, about 35% of hash ids reused,
// non-decreasing timestamps, and len(hash_ids) == ceil(input/512).
func TestGenerateConversationTraceShape(t *testing.T) {
	var buf bytes.Buffer
	if err := GenerateConversationTrace(&buf, 5000, 7); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadMooncake(&buf, "gen.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var in, out []int
	seen := map[uint64]bool{}
	total, reused := 0, 0
	for i, r := range rows {
		if i > 0 && r.Timestamp < rows[i-1].Timestamp {
			t.Fatalf("row %d: timestamp decreases", i)
		}
		if want := (*r.InputLength + 511) / 512; len(r.HashIDs) != want {
			t.Fatalf("row %d: %d hash ids for %d tokens", i, len(r.HashIDs), *r.InputLength)
		}
		in = append(in, *r.InputLength)
		out = append(out, r.OutputLength)
		for _, h := range r.HashIDs {
			total++
			if seen[h] {
				reused++
			}
			seen[h] = true
		}
	}
	sort.Ints(in)
	sort.Ints(out)
	med := func(v []int) int { return v[len(v)/2] }
	if m := med(in); m < 6000 || m > 7800 {
		t.Errorf("input median %d, want about 6,900", m)
	}
	if mx := in[len(in)-1]; mx < 60000 || mx > 125000 {
		t.Errorf("input max %d, want a long tail below 125k", mx)
	}
	if m := med(out); m < 300 || m > 400 {
		t.Errorf("output median %d, want about 350", m)
	}
	if r := float64(reused) / float64(total); r < 0.28 || r > 0.42 {
		t.Errorf("reused hash-id share %.3f, want about 0.35", r)
	}
}
