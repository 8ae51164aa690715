package journal

import "testing"

// FuzzParseJournal: the journal reader never panics; what it accepts has seq 1, 2, 3, ... and
// spans whole lines.
func FuzzParseJournal(f *testing.F) {
	var good []byte
	for i, rec := range []testRecord{{Type: "campaign"}, {Type: "run_start", Run: "det/baseline-1"}, {Type: "run_end", Run: "det/baseline-1"}} {
		rec.Seq = int64(i + 1)
		line, _ := encodeLine(&rec)
		good = append(good, line...)
	}
	f.Add(good)
	f.Add(append(append([]byte(nil), good...), good[:20]...))
	f.Add([]byte("00000000 {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, n, err := parse[testRecord](data, "journal.jsonl", RefuseDamage)
		if err != nil {
			return
		}
		if n > len(data) || (n > 0 && data[n-1] != '\n') {
			t.Fatalf("span %d of %d bytes does not end a line", n, len(data))
		}
		for i, r := range recs {
			if r.Seq != int64(i+1) {
				t.Fatalf("record %d has seq %d", i, r.Seq)
			}
		}
	})
}
