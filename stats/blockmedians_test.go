package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestOddBlocksCoverEveryPair(t *testing.T) {
	for n := 6; n <= 200; n++ {
		for auto := 1; auto <= 30; auto++ {
			sizes := oddBlocks(n, auto, 5)
			if sizes == nil {
				if n >= 3*6 { // six blocks of 3 always fit from 18 pairs on
					t.Fatalf("n=%d auto=%d: no partition", n, auto)
				}
				continue
			}
			sum := 0
			for _, s := range sizes {
				if s%2 == 0 || s < 3 {
					t.Fatalf("n=%d auto=%d: block of %d pairs in %v", n, auto, s, sizes)
				}
				sum += s
			}
			if sum != n || len(sizes) < 5 {
				t.Fatalf("n=%d auto=%d: %v covers %d pairs in %d blocks", n, auto, sizes, sum, len(sizes))
			}
			if sizes[len(sizes)-1]-sizes[0] > 2 {
				t.Fatalf("n=%d auto=%d: uneven blocks %v", n, auto, sizes)
			}
		}
	}
	// 60 pairs, auto 4 → odd length 5: 12 blocks of 5; auto 7: 8 blocks of 7, the 4 left over
	// as +2 on two blocks.
	if got := oddBlocks(60, 4, 5); len(got) != 12 || got[0] != 5 || got[11] != 5 {
		t.Fatalf("auto 4: %v", got)
	}
	if got := oddBlocks(60, 7, 5); len(got) != 8 || got[0] != 7 || got[6] != 9 || got[7] != 9 || got[5] != 7 {
		t.Fatalf("auto 7: %v", got)
	}
	// A length leaving fewer than 5 blocks shrinks: 60 pairs at auto 20 → blocks of 9 (6 blocks).
	if got := oddBlocks(60, 20, 5); len(got) != 6 || got[0] != 9 {
		t.Fatalf("auto 20: %v", got)
	}
}

func TestPolitisWhiteBlockLengthGrowsWithDependence(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	mean := func(phi float64) float64 {
		s := 0.0
		for range 200 {
			x := make([]float64, 60)
			for i := range x {
				x[i] = rng.NormFloat64()
				if i > 0 {
					x[i] += phi * x[i-1]
				}
			}
			s += float64(politisWhiteBlockLength(x))
		}
		return s / 200
	}
	iid, strong := mean(0), mean(0.6)
	if iid > 2.5 || strong < 2*iid || strong > 24 {
		t.Fatalf("mean block length %.2f at φ=0, %.2f at φ=0.6", iid, strong)
	}
	if politisWhiteBlockLength([]float64{1, 1, 1, 1, 1, 1}) != 1 {
		t.Fatal("constant series")
	}
}

func TestBlockMedianBoundsDecide(t *testing.T) {
	ar := func(seed uint64, median, sigma, phi float64) []float64 {
		rng := rand.New(rand.NewPCG(seed, 9))
		out := make([]float64, 60)
		x := rng.NormFloat64()
		for i := range out {
			if i > 0 {
				x = phi*x + math.Sqrt(1-phi*phi)*rng.NormFloat64()
			}
			out[i] = median * math.Exp(sigma*x)
		}
		return out
	}
	for _, c := range []struct {
		median float64
		want   string
	}{{1.00, "PASS"}, {1.20, "FAIL"}} {
		b, err := blockMedianBounds(ar(1, c.median, 0.02, 0.6), 1.05, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if string(b.Verdict) != c.want || b.Method != MethodBlockMedians {
			t.Fatalf("median %v: %s (%s)", c.median, b.Verdict, b.Reason)
		}
		sum := 0
		for _, s := range b.BlockSizes {
			sum += s
		}
		if sum != 60 || len(b.BlockMedians) != b.Blocks || b.Orders.N != b.Blocks || b.Orders.OneSidedCoverage < 0.95 {
			t.Fatalf("blocks %v, %d medians, orders %+v", b.BlockSizes, len(b.BlockMedians), b.Orders)
		}
		if !(b.Lower <= b.Upper) || !strings.Contains(b.Reason, "block medians") {
			t.Fatalf("bounds [%v, %v], reason %q", b.Lower, b.Upper, b.Reason)
		}
	}
	// Straddling the threshold: INCONCLUSIVE.
	b, err := blockMedianBounds(ar(2, 1.05, 0.05, 0.4), 1.05, 0.95)
	if err != nil || b.Verdict != inconclusive {
		t.Fatalf("at the threshold: %s (%v)", b.Verdict, err)
	}
}

// Odd blocks make every block median a sample ratio, so the bounds commute with monotone maps
// (§1.1 property 1 for the order statistics) and scale with the candidate's times (property 4).
func TestBlockMedianBoundsEquivariant(t *testing.T) {
	r := lognormalRatios(5, 60, 1.02, 0.03)
	base, err := blockMedianBounds(r, 1.05, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, m := range base.BlockMedians {
		for _, x := range r {
			if x == m {
				found++
				break
			}
		}
	}
	if found != base.Blocks {
		t.Fatalf("%d of %d block medians are sample ratios", found, base.Blocks)
	}
	scaled := make([]float64, len(r))
	for i, x := range r {
		scaled[i] = 1.1 * x
	}
	s, err := blockMedianBounds(scaled, 1.05, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "scaled lower", s.Lower, 1.1*base.Lower, 1e-12)
	near(t, "scaled upper", s.Upper, 1.1*base.Upper, 1e-12)
}

func TestBlockMedianBoundsBadInput(t *testing.T) {
	good := lognormalRatios(6, 60, 1, 0.02)
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		r := append([]float64(nil), good...)
		r[11] = bad
		if _, err := blockMedianBounds(r, 1.05, 0.95); err == nil || !strings.Contains(err.Error(), "ratio 12") {
			t.Errorf("ratio %v: err = %v, want one naming ratio 12", bad, err)
		}
	}
	if _, err := blockMedianBounds(good, math.Inf(1), 0.95); err == nil {
		t.Error("infinite threshold accepted")
	}
	if _, err := blockMedianBounds(good, 1.05, 1); err == nil {
		t.Error("confidence 1 accepted")
	}
	if _, err := blockMedianBounds(good[:12], 1.05, 0.95); err == nil || !strings.Contains(err.Error(), "at least 18") {
		t.Errorf("12 ratios: err = %v", err)
	}
}

func TestParseDependenceMethod(t *testing.T) {
	for _, m := range dependenceMethods {
		if got, err := ParseDependenceMethod(string(m)); err != nil || got != m {
			t.Fatalf("%q: %v %v", m, got, err)
		}
	}
	if _, err := ParseDependenceMethod("bootstrap"); err == nil || !strings.Contains(err.Error(), `"block-medians"`) {
		t.Fatalf("bad method: %v", err)
	}
}

func TestAnalyzeDependenceMethod(t *testing.T) {
	sched, _ := BalancedSchedule(20261129, 60)
	cfg := DefaultConfig(20261129)
	cfg.Bootstrap.Resamples = 0
	// An unchanged build on a drifting machine: strong AR(1) around 1.00, well inside 1.05.
	rng := rand.New(rand.NewPCG(11, 11))
	r := make([]float64, 60)
	x := 0.0
	for i := range r {
		x = 0.9*x + 0.3*rng.NormFloat64()
		r[i] = math.Exp(0.01 * x)
	}

	cfg.Dependence = MethodInconclusive
	lit, err := Analyze(r, sched.Pairs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if lit.Battery.Valid || lit.Verdict != inconclusive || lit.DecidedBy != DecidedByNone || lit.Dependent != nil {
		t.Fatalf("literal rule: valid=%v %s by %s", lit.Battery.Valid, lit.Verdict, lit.DecidedBy)
	}

	cfg.Dependence = MethodBlockMedians
	a, err := Analyze(r, sched.Pairs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a.Verdict != pass || a.DecidedBy != DecidedByBlockMedians || a.Dependent == nil || a.Dependent.Verdict != pass {
		t.Fatalf("block medians: %s by %s (%s)", a.Verdict, a.DecidedBy, a.Reason)
	}
	for _, want := range []string{"PASS by the dependence-aware bound", "block medians", "the order-statistic gate was not applied because the dependence diagnostics breached", "the bounds alone would say PASS"} {
		if !strings.Contains(a.Reason, want) {
			t.Fatalf("reason %q lacks %q", a.Reason, want)
		}
	}

	// A valid battery: the order statistics decide whatever the method.
	iid := lognormalRatios(12, 60, 1.0, 0.02)
	v, _ := Analyze(iid, sched.Pairs, cfg)
	if !v.Battery.Valid || v.DecidedBy != DecidedByOrderStatistics || v.Dependent != nil {
		t.Fatalf("valid battery: %s by %s", v.Verdict, v.DecidedBy)
	}

	// Carry-over (the second run of a pair is faster) is not serial dependence: not applied.
	co := make([]float64, 60)
	for i, o := range sched.Pairs {
		co[i] = iid[i] * 0.97
		if o == CandidateFirst {
			co[i] = iid[i] * 1.03
		}
	}
	c, _ := Analyze(co, sched.Pairs, cfg)
	if c.Battery.Valid || c.Battery.serialDependenceOnly() || c.Verdict != inconclusive || c.DecidedBy != DecidedByNone ||
		!strings.Contains(c.Reason, "not applied either") {
		t.Fatalf("order effect: valid=%v %s by %s (%s)", c.Battery.Valid, c.Verdict, c.DecidedBy, c.Reason)
	}
}
