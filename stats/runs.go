package stats

import (
	"fmt"
	"math/big"
	"sync"
)

// runsTest is the Wald–Wolfowitz runs test about the sample median, with its exact null
// distribution: values equal to the median are dropped, n1 = #above, n2 = #below, R = number of
// runs. Breached when P(R ≤ r) ≤ α/2 or P(R ≥ r) ≤ α/2; for n1 = n2 = 30 at α = 0.01 that is
// R ≤ 20 or R ≥ 42.
func runsTest(d []float64, alpha float64) Diagnostic {
	const name = "runs about the median"
	med := Median(d)
	var signs []bool // true = above
	for _, x := range d {
		if x != med {
			signs = append(signs, x > med)
		}
	}
	n1, n2 := 0, 0
	for _, above := range signs {
		if above {
			n1++
		} else {
			n2++
		}
	}
	if n1 == 0 || n2 == 0 {
		return notComputable(name, alpha, "%d values above and %d below the median", n1, n2)
	}
	r := 1
	for i := 1; i < len(signs); i++ {
		if signs[i] != signs[i-1] {
			r++
		}
	}
	lo, hi := runsCritical(n1, n2, alpha)
	// The acceptance region is [lo+1, hi−1]; Low/High carry it so judge() applies unchanged.
	diag := Diagnostic{
		Name: name, Statistic: float64(r), Low: float64(lo + 1), High: float64(hi - 1), Alpha: alpha,
		Rule:   fmt.Sprintf("breach if R ≤ %d or R ≥ %d (exact)", lo, hi),
		Detail: fmt.Sprintf("n1 = %d above, n2 = %d below the median", n1, n2),
	}
	return diag.judge()
}

// runsCritical returns the exact two-sided critical values: lo is the largest R with
// P(R ≤ lo) ≤ α/2 (0 if none), hi the smallest R with P(R ≥ hi) ≤ α/2 (n1+n2+1 if none).
func runsCritical(n1, n2 int, alpha float64) (lo, hi int) {
	key := runsKey{n1, n2, alpha}
	if v, ok := runsCriticalCache.Load(key); ok {
		c := v.([2]int)
		return c[0], c[1]
	}
	lo, hi = exactRunsCritical(n1, n2, alpha)
	runsCriticalCache.Store(key, [2]int{lo, hi})
	return lo, hi
}

// The exact sums are big-integer work; the running diagnostics ask for the same few (n1, n2)
// after every pair, so the critical values are cached.
type runsKey struct {
	n1, n2 int
	alpha  float64
}

var runsCriticalCache sync.Map

func exactRunsCritical(n1, n2 int, alpha float64) (lo, hi int) {
	half := new(big.Rat).SetFloat64(alpha / 2)
	maxR := n1 + n2
	lo, hi = 0, maxR+1
	for r := 2; r <= maxR; r++ {
		if runsCDF(n1, n2, r).Cmp(half) <= 0 {
			lo = r
		} else {
			break
		}
	}
	for r := maxR; r >= 2; r-- {
		upper := new(big.Rat).Sub(big.NewRat(1, 1), runsCDF(n1, n2, r-1))
		if upper.Cmp(half) <= 0 {
			hi = r
		} else {
			break
		}
	}
	return lo, hi
}

// runsCDF returns P(R ≤ r) exactly for n1 and n2 values on each side, with T = C(n1+n2, n1):
// P(R = 2k) = 2·C(n1−1,k−1)·C(n2−1,k−1)/T and
// P(R = 2k+1) = [C(n1−1,k)·C(n2−1,k−1) + C(n1−1,k−1)·C(n2−1,k)]/T.
func runsCDF(n1, n2, r int) *big.Rat {
	count := new(big.Int)
	for x := 2; x <= r; x++ {
		count.Add(count, runsCount(n1, n2, x))
	}
	return new(big.Rat).SetFrac(count, binom(n1+n2, n1))
}

func runsCount(n1, n2, r int) *big.Int {
	k := r / 2
	if r%2 == 0 {
		c := new(big.Int).Mul(binom(n1-1, k-1), binom(n2-1, k-1))
		return c.Lsh(c, 1)
	}
	a := new(big.Int).Mul(binom(n1-1, k), binom(n2-1, k-1))
	b := new(big.Int).Mul(binom(n1-1, k-1), binom(n2-1, k))
	return a.Add(a, b)
}

func binom(n, k int) *big.Int {
	if k < 0 || n < 0 || k > n {
		return new(big.Int)
	}
	return new(big.Int).Binomial(int64(n), int64(k))
}
