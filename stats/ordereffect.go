package stats

import (
	"fmt"
	"math"
)

// orderEffectName names the order-effect diagnostic: the one battery test that is about
// carry-over between the arms of a pair, not about serial dependence.
const orderEffectName = "order effect (rank-sum BC vs CB)"

// orderEffect is the Wilcoxon rank-sum test of the log ratios of baseline-first pairs against
// those of candidate-first pairs (carry-over: the second run of a pair being faster). W is the
// rank sum of the baseline-first group; normal approximation with the tie correction, two-sided
// at α. For 30/30 without ties: breach if |W − 915| > 174.23.
func orderEffect(d []float64, order []Order, alpha float64) Diagnostic {
	const name = orderEffectName
	if len(order) != len(d) {
		return notComputable(name, alpha, "%d ratios but %d scheduled orders", len(d), len(order))
	}
	ranks := ranks(d)
	n1, n2 := 0, 0
	w := 0.0
	for i, o := range order {
		if o == BaselineFirst {
			n1++
			w += ranks[i]
		} else {
			n2++
		}
	}
	if n1 == 0 || n2 == 0 {
		return notComputable(name, alpha, "%d baseline-first and %d candidate-first pairs", n1, n2)
	}
	n := float64(n1 + n2)
	mean := float64(n1) * (n + 1) / 2
	tieSum := 0.0
	for _, t := range tieGroups(d) {
		ft := float64(t)
		tieSum += ft*ft*ft - ft
	}
	v := float64(n1) * float64(n2) / 12 * ((n + 1) - tieSum/(n*(n-1)))
	if v <= 0 {
		return notComputable(name, alpha, "all %d values are tied", n1+n2)
	}
	half := normalQuantile(1-alpha/2) * math.Sqrt(v)
	diag := Diagnostic{
		Name: name, Statistic: w, Low: mean - half, High: mean + half, Alpha: alpha,
		Rule:   fmt.Sprintf("breach if |W − %.1f| > %.2f", mean, half),
		Detail: fmt.Sprintf("%d baseline-first, %d candidate-first pairs", n1, n2),
	}
	return diag.judge()
}
