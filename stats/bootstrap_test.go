package stats

import (
	"math"
	"strings"
	"testing"
)

func TestPercentileIndices(t *testing.T) {
	if lo, hi := percentileIndices(10000, 0.90); lo != 499 || hi != 9500 {
		t.Fatalf("B=10000 90%%: %d/%d, want the 500th/9501st smallest (499/9500)", lo, hi)
	}
	if lo, hi := percentileIndices(10, 0.99); lo != 0 || hi != 9 {
		t.Fatalf("tiny B: %d/%d", lo, hi)
	}
}

func TestTrimmedMean(t *testing.T) {
	// 10 values, 20% trim drops 2 from each end.
	xs := []float64{100, 1, 2, 3, 4, 5, 6, 7, -50, 8}
	if got := trimmedMean(xs, 0.2); got != (2+3+4+5+6+7)/6.0 {
		t.Fatalf("trimmed mean %v", got)
	}
}

func TestPairedBootstrapSeededAndSecondary(t *testing.T) {
	r := lognormalRatios(3, 60, 1.10, 0.02)
	d := LogRatios(r)
	cfg := defaultBootstrap(20261129)
	a := pairedBootstrap(d, 1.05, cfg, fail)
	b := pairedBootstrap(d, 1.05, cfg, fail)
	if a != b {
		t.Fatalf("same seed, different results: %+v vs %+v", a, b)
	}
	if !(a.Lower < a.Median && a.Median < a.Upper) || a.Lower < 1.08 || a.Upper > 1.12 {
		t.Fatalf("interval [%v, %v] around %v", a.Lower, a.Upper, a.Median)
	}
	if a.Verdict != fail || a.Disagrees {
		t.Fatalf("verdict %s disagrees=%v", a.Verdict, a.Disagrees)
	}
	if c := pairedBootstrap(d, 1.05, cfg, pass); !c.Disagrees {
		t.Fatal("disagreement with a PASS gate not flagged")
	}
	other := pairedBootstrap(d, 1.05, defaultBootstrap(1), fail)
	if other.Lower == a.Lower && other.Upper == a.Upper {
		t.Fatal("seed has no effect")
	}
	if a.BlockLength != 4 {
		t.Fatalf("block length %d, want ⌈60^⅓⌉ = 4", a.BlockLength)
	}
	if a.BlockWidthRatio < 0.6 || a.BlockWidthRatio > 1.6 {
		t.Fatalf("i.i.d. block width ratio %v, spec median 0.97", a.BlockWidthRatio)
	}
	near(t, "mean ratio", a.MeanRatio, math.Exp(mean(d)), 0)
}

func TestAnalyzeCombinesBatteryAndBounds(t *testing.T) {
	sched, _ := BalancedSchedule(20261129, 60)
	cfg := DefaultConfig(20261129)

	// Clearly slower, i.i.d.: FAIL with the battery valid.
	r := lognormalRatios(8, 60, 1.30, 0.02)
	a, err := Analyze(r, sched.Pairs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Battery.Valid || a.Verdict != fail || a.Bootstrap == nil || a.Bootstrap.Verdict != fail {
		t.Fatalf("slowdown: valid=%v verdict %s (%s)", a.Battery.Valid, a.Verdict, a.Reason)
	}

	// The same ratios sorted (a perfect trend): the gate is not applied.
	trend := sortedCopy(r)
	a, err = Analyze(trend, sched.Pairs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a.Battery.Valid || a.Verdict != inconclusive || a.Bounds.Verdict != fail {
		t.Fatalf("trend: valid=%v verdict %s bounds %s", a.Battery.Valid, a.Verdict, a.Bounds.Verdict)
	}
	if want := "the bounds alone would say FAIL"; !strings.Contains(a.Reason, want) || !strings.Contains(a.Reason, "Mann–Kendall") {
		t.Fatalf("reason %q", a.Reason)
	}

	// Identical arms: never FAIL.
	aa := lognormalRatios(9, 60, 1.0, 0.02)
	a, _ = Analyze(aa, sched.Pairs, cfg)
	if a.Verdict == fail {
		t.Fatalf("A/A ended in FAIL: %s", a.Reason)
	}

	if _, err := Analyze(aa, sched.Pairs[:59], cfg); err == nil {
		t.Fatal("order length mismatch accepted")
	}
}
