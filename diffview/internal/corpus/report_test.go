package corpus

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"testing"

	fx "kvparity/diffview/difftest"
)

func TestEncodeKeepsTheCanonicalLine(t *testing.T) {
	line := fx.Encode(fx.Report(30, 4))
	r, err := decode(line)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Encode(); !bytes.Equal(got, line) {
		t.Fatalf("decode+encode changed the line:\n%s\n%s", line[:200], got[:200])
	}
	// Spelling is kept verbatim, and strings are written as serde_json writes them.
	odd := []byte(`{"a":4.0,"b":4,"c":1e3,"d":"tab\there \"q\" <&> é","e":[null,true,false]}` + "\n")
	r, err = decode(odd)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Encode(); !bytes.Equal(got, odd) {
		t.Fatalf("got %s, want %s", got, odd)
	}
}

func TestNumSpellsLikeSerde(t *testing.T) {
	for x, want := range map[float64]string{
		0: "0.0", 1: "1.0", 4: "4.0", -2.5: "-2.5", 0.123076: "0.123076", 683.293060079299: "683.293060079299",
		1e15: "1000000000000000.0", 1e16: "1e16", 1.5e17: "1.5e17", 0.00001: "0.00001", 1e-6: "1e-6",
		1.5e-7: "1.5e-7", 1796083200000: "1796083200000.0",
	} {
		if got := string(num(x)); got != want {
			t.Errorf("Num(%v) = %s, want %s", x, got, want)
		}
		if back, _ := strconv.ParseFloat(string(num(x)), 64); back != x {
			t.Errorf("Num(%v) does not round-trip", x)
		}
	}
}

func TestULPStep(t *testing.T) {
	for _, x := range []float64{1, 683.293060079299, 1e-3, 2011086.3700619137, -5.5} {
		for _, k := range []int{1, -1, 7, -64} {
			y := ulpStep(x, k)
			if got := ulps(x, y); got != uint64(max(k, -k)) {
				t.Errorf("ulpStep(%v, %d) = %v: %d ULP away", x, k, y, got)
			}
			if math.Signbit(x) != math.Signbit(y) {
				t.Errorf("ulpStep(%v, %d) changed the sign", x, k)
			}
		}
	}
}

func TestExponentSpellingKeepsTheValue(t *testing.T) {
	for _, s := range []string{"1000.0", "683.293060079299", "0.054178666217765015", "0.5", "12.0", "0.0001"} {
		e := exponentSpelling(json.Number(s))
		a, _ := strconv.ParseFloat(s, 64)
		b, err := strconv.ParseFloat(string(e), 64)
		if err != nil || a != b || string(e) == s {
			t.Errorf("%s spelled %s (%v)", s, e, err)
		}
	}
}
