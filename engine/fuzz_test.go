package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseRow: the row parser never panics, and a row it accepts validates again after an
// encode/parse round trip (seed corpus: testdata/fuzz/FuzzParseRow, plus the shipped rows).
func FuzzParseRow(f *testing.F) {
	if rows, _ := filepath.Glob(filepath.Join("..", "rows", "*.toml")); len(rows) > 0 {
		for _, p := range rows {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(designRow))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRow(data, "row.toml")
		if err != nil {
			return
		}
		enc, err := r.Encode()
		if err != nil {
			t.Fatalf("accepted row does not encode: %v", err)
		}
		if _, err := ParseRow(enc, "row.toml"); err != nil {
			t.Fatalf("accepted row does not parse back: %v\n%s", err, enc)
		}
	})
}
