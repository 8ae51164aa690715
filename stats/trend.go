package stats

import (
	"fmt"
	"math"
	"sort"
)

// mannKendall is the Mann–Kendall trend test of d against its index: S = Σ_{i<j} sgn(d_j − d_i),
// Var(S) = [n(n−1)(2n+5) − Σ_g t_g(t_g−1)(2t_g+5)]/18 over tie groups, and the
// continuity-corrected Z = (S∓1)/√Var, two-sided at α. For n = 60 without ties this breaches
// exactly when |S| ≥ 406.
func mannKendall(d []float64, alpha float64) Diagnostic {
	const name = "Mann–Kendall trend"
	n := len(d)
	if n < 3 {
		return notComputable(name, alpha, "needs ≥ 3 values, have %d", n)
	}
	s := kendallS(d)
	v := kendallVar(d)
	if v == 0 {
		return notComputable(name, alpha, "all %d values are tied", n)
	}
	z := mkZ(s, v)
	crit := normalQuantile(1 - alpha/2)
	pairs := n * (n - 1) / 2
	diag := Diagnostic{
		Name: name, Statistic: z, Low: -crit, High: crit, Alpha: alpha,
		Rule:   fmt.Sprintf("breach if |Z| > %.4f", crit),
		Detail: fmt.Sprintf("S = %d, Var(S) = %.3f, τ = %.4f over %d pairs", s, v, float64(s)/float64(pairs), pairs),
	}
	return diag.judge()
}

// mannKendallCriticalS is the smallest |S| that breaches at α for n untied values (S has the
// parity of n(n−1)/2 then). n = 60, α = 0.01 gives 406.
func mannKendallCriticalS(n int, alpha float64) int {
	v := float64(n) * float64(n-1) * float64(2*n+5) / 18
	crit := normalQuantile(1 - alpha/2)
	parity := (n * (n - 1) / 2) % 2
	for s := 1; ; s++ {
		if s%2 == parity && mkZ(s, v) > crit {
			return s
		}
	}
}

func mkZ(s int, v float64) float64 {
	switch {
	case s > 0:
		return float64(s-1) / math.Sqrt(v)
	case s < 0:
		return float64(s+1) / math.Sqrt(v)
	}
	return 0
}

func kendallS(d []float64) int {
	s := 0
	for i := range d {
		for j := i + 1; j < len(d); j++ {
			switch {
			case d[j] > d[i]:
				s++
			case d[j] < d[i]:
				s--
			}
		}
	}
	return s
}

func kendallVar(d []float64) float64 {
	n := float64(len(d))
	v := n * (n - 1) * (2*n + 5)
	for _, t := range tieGroups(d) {
		ft := float64(t)
		v -= ft * (ft - 1) * (2*ft + 5)
	}
	return v / 18
}

// tieGroups returns the sizes (>1) of groups of equal values.
func tieGroups(xs []float64) []int {
	s := sortedCopy(xs)
	var out []int
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, j-i)
		}
		i = j
	}
	return out
}

// ranks returns 1-based ranks with average ranks for ties.
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	r := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && xs[idx[j]] == xs[idx[i]] {
			j++
		}
		avg := float64(i+1+j) / 2 // mean of ranks i+1 .. j
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		i = j
	}
	return r
}

// Spearman returns Spearman's ρ of x and y: the Pearson correlation of their average ranks.
// ok is false when either side is constant.
func Spearman(x, y []float64) (rho float64, ok bool) {
	if len(x) != len(y) || len(x) < 2 {
		return 0, false
	}
	return pearson(ranks(x), ranks(y))
}

func pearson(x, y []float64) (float64, bool) {
	n := float64(len(x))
	mx, my := 0.0, 0.0
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	sxy, sxx, syy := 0.0, 0.0, 0.0
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0, false
	}
	return sxy / math.Sqrt(sxx*syy), true
}

// SpearmanCritical is the |ρ| above which Spearman's ρ of n pairs is significant at two-sided
// α, from t = ρ√((n−2)/(1−ρ²)) ~ t_{n−2}. n = 60, α = 0.01 gives 0.3301. It serves the
// telemetry confounding check (ρ of the log ratios against within-pair frequency change).
func SpearmanCritical(n int, alpha float64) float64 {
	t := studentTQuantile(1-alpha/2, n-2)
	return t / math.Sqrt(float64(n-2)+t*t)
}

// theilSen returns the median of the pairwise slopes (y_j − y_i)/(j − i), i < j, against the
// index. Multiplied by n−1 it is the drift across the session, to set beside ln(threshold).
func theilSen(y []float64) (slope float64, ok bool) {
	n := len(y)
	if n < 2 {
		return 0, false
	}
	slopes := make([]float64, 0, n*(n-1)/2)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			slopes = append(slopes, (y[j]-y[i])/float64(j-i))
		}
	}
	sort.Float64s(slopes)
	return medianSorted(slopes), true
}
