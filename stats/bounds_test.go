package stats

import (
	"math"
	"strings"
	"testing"
)

func TestOrdersForMedianSixty(t *testing.T) {
	cases := []struct {
		conf         float64
		lower, upper int
		one, two     float64
	}{
		{0.95, 24, 37, 0.953770, 0.907539},  // the protocol's X(24)/X(37)
		{0.975, 22, 39, 0.986330, 0.972660}, // one-sided 97.5% = symmetric two-sided 95%
		{0.99, 21, 40, 0.993255, 0.986511},
		{0.995, 20, 41, 0.996891, 0.993782}, // two-sided 99%
	}
	for _, c := range cases {
		o, err := ordersForMedian(60, c.conf)
		if err != nil {
			t.Fatal(err)
		}
		if o.Lower != c.lower || o.Upper != c.upper {
			t.Errorf("confidence %v: orders %d/%d, want %d/%d", c.conf, o.Lower, o.Upper, c.lower, c.upper)
		}
		if math.Abs(o.OneSidedCoverage-c.one) > 5e-7 || math.Abs(o.TwoSidedCoverage-c.two) > 5e-7 {
			t.Errorf("confidence %v: coverage %.6f/%.6f, want %.6f/%.6f", c.conf, o.OneSidedCoverage, o.TwoSidedCoverage, c.one, c.two)
		}
	}
}

// X(25)/X(36) reach only 0.922499, so they must never be chosen at 95%; the chosen order is
// always the tightest that meets the confidence, for any n.
func TestOrdersForMedianTightestForAnyN(t *testing.T) {
	for n := 5; n <= 200; n++ {
		o, err := ordersForMedian(n, 0.95)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if o.OneSidedCoverage < 0.95 {
			t.Fatalf("n=%d: coverage %.6f < 0.95", n, o.OneSidedCoverage)
		}
		if o.Upper != n+1-o.Lower {
			t.Fatalf("n=%d: orders not symmetric: %d/%d", n, o.Lower, o.Upper)
		}
		if next := 1 - binomialHalfCDFFloat(n, o.Lower); o.Lower+1 <= o.Upper && next >= 0.95 {
			t.Fatalf("n=%d: X(%d) already has coverage %.6f", n, o.Lower+1, next)
		}
	}
}

func TestOrdersForMedianTooFew(t *testing.T) {
	if _, err := ordersForMedian(4, 0.95); err == nil || !strings.Contains(err.Error(), "need at least 5") {
		t.Fatalf("n=4 at 95%%: err = %v, want 'need at least 5'", err)
	}
	if o, err := ordersForMedian(5, 0.95); err != nil || o.Lower != 1 || o.Upper != 5 {
		t.Fatalf("n=5: %+v %v, want X(1)/X(5)", o, err)
	}
	for _, c := range []float64{0, 1, -0.5, math.NaN()} {
		if _, err := ordersForMedian(60, c); err == nil {
			t.Errorf("confidence %v accepted", c)
		}
	}
}
