package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// lognormalRatios draws n ratios exp(N(ln median, sigma²)) from a fixed seed.
func lognormalRatios(seed uint64, n int, median, sigma float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]float64, n)
	for i := range out {
		out[i] = median * math.Exp(sigma*rng.NormFloat64())
	}
	return out
}

// ratiosWithK returns 60 ratios of which exactly k are ≤ 1.05 (1.00 below, 1.10 above), shuffled.
func ratiosWithK(k int) []float64 {
	out := make([]float64, 60)
	for i := range out {
		if i < k {
			out[i] = 1.00 + float64(i)*1e-4
		} else {
			out[i] = 1.10 + float64(i)*1e-4
		}
	}
	rand.New(rand.NewPCG(uint64(k), 1)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// Spec §1.1: PASS ⇔ K ≥ 37, FAIL ⇔ K ≤ 23, INCONCLUSIVE otherwise.
func TestGateBoundsCountRule(t *testing.T) {
	for k := 0; k <= 60; k++ {
		b, err := gateBounds(ratiosWithK(k), 1.05, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		want := inconclusive
		switch {
		case k >= 37:
			want = pass
		case k <= 23:
			want = fail
		}
		if b.Verdict != want || b.K != k {
			t.Errorf("K=%d: verdict %s (K=%d), want %s", k, b.Verdict, b.K, want)
		}
	}
}

func TestGateBoundsReadsOrders24And37(t *testing.T) {
	r := make([]float64, 60)
	for i := range r {
		r[59-i] = float64(100+i) / 100 // reversed so the function must sort
	}
	b, err := gateBounds(r, 1.05, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if b.Lower != float64(123)/100 || b.Upper != float64(136)/100 || b.MedianOrders.Lower != 24 || b.MedianOrders.Upper != 37 {
		t.Fatalf("bounds %+v, want X(24)=1.23 X(37)=1.36", b)
	}
	if b.Median != (float64(129)/100+float64(130)/100)/2 {
		t.Fatalf("median %v", b.Median)
	}
	if b.Verdict != fail || !strings.Contains(b.Reason, "X(24)") {
		t.Fatalf("verdict %s (%s)", b.Verdict, b.Reason)
	}
	if len(b.Warnings) != 0 {
		t.Fatalf("warnings on untied data: %v", b.Warnings)
	}
}

func TestGateBoundsBadInput(t *testing.T) {
	good := ratiosWithK(30)
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		r := append([]float64(nil), good...)
		r[7] = bad
		if _, err := gateBounds(r, 1.05, 0.95); err == nil || !strings.Contains(err.Error(), "ratio 8") {
			t.Errorf("ratio %v: err = %v, want one naming ratio 8", bad, err)
		}
	}
	if _, err := gateBounds(good, 0, 0.95); err == nil {
		t.Error("threshold 0 accepted")
	}
	if _, err := gateBounds(good[:3], 1.05, 0.95); err == nil {
		t.Error("3 ratios accepted at 95%")
	}
}

func TestGateBoundsWarnsOnTies(t *testing.T) {
	r := ratiosWithK(30)
	r[1] = r[0]
	b, err := gateBounds(r, 1.05, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0], "conservative") {
		t.Fatalf("warnings %v", b.Warnings)
	}
}

// §1.1 property 1: working on ln r changes nothing (order statistics commute with monotone maps).
func TestPropertyLogInvariance(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		r := lognormalRatios(seed, 60, 1+float64(seed%10)/100, 0.03)
		b, _ := gateBounds(r, 1.05, 0.95)
		l, _ := gateBounds(LogRatiosShifted(r), math.Log(1.05)+10, 0.95)
		if b.Verdict != l.Verdict || math.Abs(math.Exp(l.Lower-10)-b.Lower) > 1e-12 || math.Abs(math.Exp(l.Upper-10)-b.Upper) > 1e-12 {
			t.Fatalf("seed %d: ratio bounds [%v,%v] %s, log bounds exp → [%v,%v] %s", seed,
				b.Lower, b.Upper, b.Verdict, math.Exp(l.Lower-10), math.Exp(l.Upper-10), l.Verdict)
		}
	}
}

// LogRatiosShifted is ln r + 10: positive, so it passes gateBounds' positivity check.
func LogRatiosShifted(r []float64) []float64 {
	d := LogRatios(r)
	for i := range d {
		d[i] += 10
	}
	return d
}

// §1.1 property 2: swapping baseline and candidate maps X(24) of r to 1/X(37) of 1/r.
func TestPropertySwapSymmetry(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		r := lognormalRatios(seed, 60, 1.03, 0.05)
		inv := make([]float64, len(r))
		for i := range r {
			inv[i] = 1 / r[i]
		}
		b, _ := gateBounds(r, 1.05, 0.95)
		s, _ := gateBounds(inv, 1/1.05, 0.95)
		if s.Upper != 1/b.Lower || s.Lower != 1/b.Upper {
			t.Fatalf("seed %d: swapped bounds [%v,%v], want [1/%v, 1/%v]", seed, s.Lower, s.Upper, b.Upper, b.Lower)
		}
	}
}

// §1.1 property 3: permuting the pair order never changes the verdict (the diagnostics may change).
func TestPropertyPermutationInvariance(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		r := lognormalRatios(seed, 60, 1.05+float64(int(seed%7)-3)/100, 0.03)
		b, _ := gateBounds(r, 1.05, 0.95)
		rng := rand.New(rand.NewPCG(seed, 99))
		for p := 0; p < 20; p++ {
			rng.Shuffle(len(r), func(i, j int) { r[i], r[j] = r[j], r[i] })
			q, _ := gateBounds(r, 1.05, 0.95)
			if q.Verdict != b.Verdict || q.Lower != b.Lower || q.Upper != b.Upper || q.K != b.K {
				t.Fatalf("seed %d permutation %d: %s [%v,%v] vs %s [%v,%v]", seed, p, q.Verdict, q.Lower, q.Upper, b.Verdict, b.Lower, b.Upper)
			}
		}
	}
}

// §1.1 property 4: scaling every candidate time by c scales both bounds by c.
func TestPropertyScaleEquivariance(t *testing.T) {
	for _, c := range []float64{0.5, 0.97, 1.25, 2, 4} { // powers of two and others
		r := lognormalRatios(11, 60, 1.0, 0.04)
		scaled := make([]float64, len(r))
		for i := range r {
			scaled[i] = r[i] * c
		}
		b, _ := gateBounds(r, 1.05, 0.95)
		s, _ := gateBounds(scaled, 1.05, 0.95)
		if s.Lower != b.Lower*c || s.Upper != b.Upper*c {
			t.Fatalf("c=%v: scaled bounds [%v,%v], want [%v,%v]", c, s.Lower, s.Upper, b.Lower*c, b.Upper*c)
		}
	}
}
