package stats

import (
	"math"
	"math/big"
)

// binomialHalfCDF returns P(Bin(n, ½) ≤ k) exactly, as a rational with denominator 2^n. The gate's
// coverages are sums of binomial coefficients, so integer arithmetic gives them with no rounding.
func binomialHalfCDF(n, k int) *big.Rat {
	if k < 0 {
		return new(big.Rat)
	}
	if k >= n {
		return big.NewRat(1, 1)
	}
	sum := new(big.Int)
	c := big.NewInt(1) // C(n, 0)
	for i := 0; i <= k; i++ {
		sum.Add(sum, c)
		// C(n, i+1) = C(n, i) · (n−i) / (i+1), exact at every step.
		c.Mul(c, big.NewInt(int64(n-i)))
		c.Quo(c, big.NewInt(int64(i+1)))
	}
	den := new(big.Int).Lsh(big.NewInt(1), uint(n))
	return new(big.Rat).SetFrac(sum, den)
}

// binomialHalfCDFFloat is binomialHalfCDF rounded to the nearest float64.
func binomialHalfCDFFloat(n, k int) float64 {
	f, _ := binomialHalfCDF(n, k).Float64()
	return f
}

// binomialCDF returns P(Bin(n, p) ≤ k) in floating point, for operating characteristics (the
// chance of PASS or FAIL when a single pair falls below the threshold with probability p).
func binomialCDF(n, k int, p float64) float64 {
	if k < 0 {
		return 0
	}
	if k >= n {
		return 1
	}
	if p <= 0 {
		return 1
	}
	if p >= 1 {
		return 0
	}
	sum := 0.0
	lp, lq := math.Log(p), math.Log1p(-p)
	for i := 0; i <= k; i++ {
		sum += math.Exp(logChoose(n, i) + float64(i)*lp + float64(n-i)*lq)
	}
	return math.Min(sum, 1)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
