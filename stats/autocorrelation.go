package stats

import (
	"fmt"
	"math"
)

// autocorrelation returns r_1..r_maxLag of xs: the standard biased ACF r_k = c_k/c_0 with
// c_k = Σ_{t=1}^{n−k} (x_t − x̄)(x_{t+k} − x̄), the same as R's acf. ok is false when the series
// is constant (c_0 = 0) or too short.
func autocorrelation(xs []float64, maxLag int) (r []float64, ok bool) {
	n := len(xs)
	if n < 2 || maxLag < 1 || maxLag >= n {
		return nil, false
	}
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	c0 := 0.0
	for _, x := range xs {
		c0 += (x - mean) * (x - mean)
	}
	if c0 == 0 {
		return nil, false
	}
	r = make([]float64, maxLag)
	for k := 1; k <= maxLag; k++ {
		ck := 0.0
		for t := 0; t+k < n; t++ {
			ck += (xs[t] - mean) * (xs[t+k] - mean)
		}
		r[k-1] = ck / c0
	}
	return r, true
}

// lagOneTest compares r_1 with its null distribution: E[r_1] = −1/n, Var[r_1] ≈ (n−1)/(n(n+2)),
// two-sided at α. For n = 60, α = 0.01 the region is [−0.3411, 0.3077].
func lagOneTest(d []float64, alpha float64) Diagnostic {
	const name = "lag-1 autocorrelation"
	n := len(d)
	r, ok := autocorrelation(d, 1)
	if !ok {
		return notComputable(name, alpha, "needs ≥ 2 non-constant values, have %d", n)
	}
	mean := -1 / float64(n)
	sd := math.Sqrt(float64(n-1) / (float64(n) * float64(n+2)))
	z := normalQuantile(1 - alpha/2)
	diag := Diagnostic{
		Name: name, Statistic: r[0], Low: mean - z*sd, High: mean + z*sd, Alpha: alpha,
	}
	diag.Rule = fmt.Sprintf("breach if r1 ∉ [%.4f, %.4f]", diag.Low, diag.High)
	return diag.judge()
}

// ljungBox returns Q(h) = n(n+2) Σ_{k=1}^{h} r_k²/(n−k), compared with χ²_h (raw data, no fitted
// model, so df = h). For h = 5, α = 0.01: breach if Q > 15.0863.
func ljungBox(d []float64, h int, alpha float64) Diagnostic {
	name := fmt.Sprintf("Ljung–Box Q(%d)", h)
	n := len(d)
	r, ok := autocorrelation(d, h)
	if !ok {
		return notComputable(name, alpha, "needs > %d non-constant values, have %d", h, n)
	}
	q := 0.0
	for k := 1; k <= h; k++ {
		q += r[k-1] * r[k-1] / float64(n-k)
	}
	q *= float64(n) * float64(n+2)
	diag := Diagnostic{
		Name: name, Statistic: q, High: chiSquareQuantile(1-alpha, h), OneSided: true, Alpha: alpha,
	}
	diag.Rule = fmt.Sprintf("breach if Q(%d) > %.4f (χ²_%d at 1−α)", h, diag.High, h)
	return diag.judge()
}
