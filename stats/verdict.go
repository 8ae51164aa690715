package stats

import (
	"fmt"
	"math"
	"sort"

	"kvparity/verdict"
)

// The gate's words are the verdict package's (PASS, FAIL, INCONCLUSIVE); the aliases keep the
// statistics code reading like its formulas.
const (
	pass         = verdict.Pass
	fail         = verdict.Fail
	inconclusive = verdict.Inconclusive
)

// Bounds is the order-statistic gate applied to one series of ratios r = candidate / baseline.
type Bounds struct {
	MedianOrders
	Threshold float64 `json:"threshold"`
	Median    float64 `json:"median"`
	Lower     float64 `json:"lower"` // X(Lower order): one-sided lower bound of the median ratio
	Upper     float64 `json:"upper"` // X(Upper order): one-sided upper bound
	// K = #{i : r_i ≤ threshold}. PASS ⇔ K ≥ Upper order, FAIL ⇔ K < Lower order: the same
	// decision as the bounds, computed by counting (a sign test), kept as a cross-check.
	K        int          `json:"k"`
	Verdict  verdict.Word `json:"verdict"`
	Reason   string       `json:"reason"`
	Warnings []string     `json:"warnings,omitempty"`
}

// gateBounds sorts a copy of the ratios, reads the order-statistic bounds of the median at the
// one-sided confidence, and decides: PASS when upper ≤ threshold, FAIL when lower > threshold,
// INCONCLUSIVE otherwise. It does not look at dependence; Analyze combines both.
func gateBounds(ratios []float64, threshold, confidence float64) (Bounds, error) {
	for i, r := range ratios {
		if !(r > 0) || math.IsInf(r, 0) {
			return Bounds{}, fmt.Errorf("stats: ratio %d is %v; ratios must be finite and positive", i+1, r)
		}
	}
	if !(threshold > 0) || math.IsInf(threshold, 0) {
		return Bounds{}, fmt.Errorf("stats: threshold must be finite and positive, got %v", threshold)
	}
	ord, err := ordersForMedian(len(ratios), confidence)
	if err != nil {
		return Bounds{}, err
	}
	xs := sortedCopy(ratios)
	b := Bounds{
		MedianOrders: ord,
		Threshold:    threshold,
		Median:       medianSorted(xs),
		Lower:        xs[ord.Lower-1],
		Upper:        xs[ord.Upper-1],
	}
	for _, r := range ratios {
		if r <= threshold {
			b.K++
		}
	}
	switch {
	case b.Upper <= threshold:
		b.Verdict = pass
		b.Reason = fmt.Sprintf("upper bound X(%d) = %.4f ≤ %.4g", ord.Upper, b.Upper, threshold)
	case b.Lower > threshold:
		b.Verdict = fail
		b.Reason = fmt.Sprintf("lower bound X(%d) = %.4f > %.4g", ord.Lower, b.Lower, threshold)
	default:
		b.Verdict = inconclusive
		b.Reason = fmt.Sprintf("bounds [X(%d), X(%d)] = [%.4f, %.4f] straddle %.4g", ord.Lower, ord.Upper, b.Lower, b.Upper, threshold)
	}
	if counted := countVerdict(b.K, ord); counted != b.Verdict {
		// Cannot happen for finite inputs; a disagreement would mean a broken sort.
		return Bounds{}, fmt.Errorf("stats: internal: bounds say %s but the count K=%d says %s", b.Verdict, b.K, counted)
	}
	if t := ties(xs); t > 0 {
		b.Warnings = append(b.Warnings, fmt.Sprintf("%d tied ratio values: the bounds are conservative", t))
	}
	return b, nil
}

// countVerdict is the sign-test form of the same decision.
func countVerdict(k int, ord MedianOrders) verdict.Word {
	switch {
	case k >= ord.Upper:
		return pass
	case k <= ord.Lower-1:
		return fail
	}
	return inconclusive
}

func sortedCopy(xs []float64) []float64 {
	out := append([]float64(nil), xs...)
	sort.Float64s(out)
	return out
}

// medianSorted is the sample median: the middle value, or the mean of the two middle values.
func medianSorted(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// Median returns the sample median of xs (which it does not modify).
func Median(xs []float64) float64 { return medianSorted(sortedCopy(xs)) }

// ties counts values equal to their predecessor in sorted order.
func ties(sorted []float64) int {
	t := 0
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			t++
		}
	}
	return t
}
