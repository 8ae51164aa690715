package stats

import (
	"math"
	"math/big"
	"testing"
)

func TestBinomialHalfCDFExactAtTwentyThree(t *testing.T) {
	got := binomialHalfCDF(60, 23)
	want := new(big.Rat).SetFrac(big.NewInt(26650063354005107), new(big.Int).Lsh(big.NewInt(1), 59))
	if got.Cmp(want) != 0 {
		t.Fatalf("P(Bin(60,½) ≤ 23) = %v, want %v", got, want)
	}
	if f := binomialHalfCDFFloat(60, 23); math.Abs(f-0.0462304905) > 1e-10 {
		t.Fatalf("float = %.10f, want 0.0462304905", f)
	}
}

// The lower-tail table of spec §1.1, to its six printed decimals.
func TestBinomialHalfCDFTable(t *testing.T) {
	table := map[int]float64{
		19: 0.003109, 20: 0.006745, 21: 0.013670, 22: 0.025947, 23: 0.046230,
		24: 0.077501, 25: 0.122530, 29: 0.448711, 30: 0.551289,
	}
	for k, want := range table {
		if got := binomialHalfCDFFloat(60, k); math.Abs(got-want) > 5e-7 {
			t.Errorf("P(Bin(60,½) ≤ %d) = %.6f, want %.6f", k, got, want)
		}
	}
	pmf23 := binomialHalfCDFFloat(60, 23) - binomialHalfCDFFloat(60, 22)
	if math.Abs(pmf23-0.020284) > 5e-7 {
		t.Errorf("P(X = 23) = %.6f, want 0.020284", pmf23)
	}
	if binomialHalfCDFFloat(60, -1) != 0 || binomialHalfCDFFloat(60, 60) != 1 {
		t.Error("CDF outside the support is not 0/1")
	}
}

// Operating characteristic table of spec §1.1: P(PASS) = P(Bin(60,p) ≥ 37), P(FAIL) = P(Bin(60,p) ≤ 23).
func TestOperatingCharacteristic(t *testing.T) {
	rows := []struct{ p, pass, fail float64 }{
		{0.40, 0.000570, 0.451106},
		{0.45, 0.006933, 0.182141},
		{0.50, 0.046230, 0.046230},
		{0.55, 0.182141, 0.006933},
		{0.60, 0.451106, 0.000570},
		{0.65, 0.752884, 0.000023},
		{0.70, 0.936762, 0},
		{0.75, 0.992506, 0},
		{0.80, 0.999699, 0},
	}
	for _, r := range rows {
		pass := 1 - binomialCDF(60, 36, r.p)
		fail := binomialCDF(60, 23, r.p)
		if math.Abs(pass-r.pass) > 5e-7 || math.Abs(fail-r.fail) > 5e-7 {
			t.Errorf("p=%.2f: P(PASS)=%.6f P(FAIL)=%.6f, want %.6f %.6f", r.p, pass, fail, r.pass, r.fail)
		}
	}
}
