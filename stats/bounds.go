package stats

import (
	"fmt"
	"math"
	"math/big"
)

// MedianOrders are the order statistics that bound the population median of n exchangeable
// values: X(Lower) is a one-sided lower confidence bound and X(Upper) the matching upper bound.
// Orders are 1-based, as in the protocol ("the 24th order statistic").
type MedianOrders struct {
	N          int     `json:"n"`
	Confidence float64 `json:"confidence"` // requested one-sided confidence
	Lower      int     `json:"lower_order"`
	Upper      int     `json:"upper_order"`
	// OneSidedCoverage = P(X(Lower) ≤ m) = P(X(Upper) ≥ m) = 1 − P(Bin(n,½) ≤ Lower−1), exact.
	OneSidedCoverage float64 `json:"one_sided_coverage"`
	// TwoSidedCoverage = P(X(Lower) ≤ m ≤ X(Upper)) = 1 − 2·P(Bin(n,½) ≤ Lower−1), exact.
	TwoSidedCoverage float64 `json:"two_sided_coverage"`
}

// ordersForMedian returns the tightest one-sided bounds at the requested confidence: Lower is
// the largest k with P(Bin(n,½) ≤ k−1) ≤ 1−confidence, and Upper = n+1−Lower by symmetry.
// For n = 60 at 0.95 that is X(24) and X(37), each with coverage 0.953770.
func ordersForMedian(n int, confidence float64) (MedianOrders, error) {
	if !(confidence > 0 && confidence < 1) {
		return MedianOrders{}, fmt.Errorf("stats: confidence must lie in (0, 1), got %v", confidence)
	}
	if n < 1 {
		return MedianOrders{}, fmt.Errorf("stats: need at least 1 value for median bounds, got %d", n)
	}
	// Compare exactly: 1 − confidence as a rational of the float the caller passed.
	alpha := new(big.Rat).Sub(big.NewRat(1, 1), new(big.Rat).SetFloat64(confidence))
	lower := 0
	for k := 1; k <= (n+1)/2; k++ {
		if binomialHalfCDF(n, k-1).Cmp(alpha) <= 0 {
			lower = k
		} else {
			break
		}
	}
	if lower == 0 {
		return MedianOrders{}, fmt.Errorf("stats: %d values cannot give a one-sided %.4g%% bound for the median (need at least %d)",
			n, 100*confidence, minNForConfidence(confidence))
	}
	tail := binomialHalfCDFFloat(n, lower-1)
	return MedianOrders{
		N: n, Confidence: confidence, Lower: lower, Upper: n + 1 - lower,
		OneSidedCoverage: 1 - tail,
		TwoSidedCoverage: 1 - 2*tail,
	}, nil
}

// minNForConfidence is the smallest n for which X(1) is a bound at this confidence:
// 2^−n ≤ 1 − confidence.
func minNForConfidence(confidence float64) int {
	return int(math.Ceil(math.Log2(1 / (1 - confidence))))
}
