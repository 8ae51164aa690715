package stats

import (
	"fmt"
	"math"
	"sort"

	"kvparity/verdict"
)

// The dependence-aware bound (protocol stage 7, step 5: "report INCONCLUSIVE or use a
// predeclared dependence-aware method") is batching applied to quantiles (Heidelberger & Lewis
// 1984): the series is cut into b consecutive blocks of an odd length L and the exact sign-test
// bounds are applied to the b block medians. An odd block's median is ≤ m with probability
// P(Bin(L, ½) ≥ (L+1)/2) = ½ for independent values, and nearly so inside a dependent block, so
// the bounds keep the order statistics' distribution-free guarantee with b in place of n. L is
// the Politis & White (2004) automatic block length with the Patton, Politis & White (2009)
// correction, rounded up to odd, at least 3, and capped so that enough blocks remain (5 for a
// one-sided 95% bound, as 2⁻⁵ ≤ 0.05; 6 when n is even); every pair is in a block. Why this
// method rather than the block bootstrap, the self-normalized sign test or subsampling, with
// the study's figures and the references: docs/guide.md's "The dependence-aware method".

// A DependenceMethod is what the gate does when the dependence battery breaches, fixed in the
// row before any sample (the row's [perf] dependence_method).
type DependenceMethod string

const (
	// MethodInconclusive is the protocol's literal rule: a breached battery ends INCONCLUSIVE.
	MethodInconclusive DependenceMethod = "inconclusive"
	// MethodBlockMedians decides by blockMedianBounds when the battery breaches only through
	// serial dependence (lag-1, Ljung–Box, trend, runs).
	MethodBlockMedians DependenceMethod = "block-medians"
)

// dependenceMethods lists the accepted methods, for validation and help text.
var dependenceMethods = []DependenceMethod{MethodInconclusive, MethodBlockMedians}

// ParseDependenceMethod checks a method name.
func ParseDependenceMethod(s string) (DependenceMethod, error) {
	for _, m := range dependenceMethods {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("%q is not a dependence method: use %q (the protocol's literal rule) or %q", s, MethodInconclusive, MethodBlockMedians)
}

// DependentBounds is the dependence-aware gate on one series of ratios: the order-statistic
// bounds of its block medians.
type DependentBounds struct {
	Method    DependenceMethod `json:"method"`
	Threshold float64          `json:"threshold"`
	// BlockLength is the odd length used (blocks are BlockLength or BlockLength + 2k pairs long,
	// in execution order); AutoBlockLength the Politis–White length it came from.
	BlockLength     int       `json:"block_length"`
	AutoBlockLength int       `json:"auto_block_length"`
	Blocks          int       `json:"blocks"`
	BlockSizes      []int     `json:"block_sizes"`
	BlockMedians    []float64 `json:"block_medians"` // ratio scale, in execution order
	// Orders are the order statistics of the block medians read as bounds, with their exact
	// coverage for independent blocks.
	Orders MedianOrders `json:"orders"`
	Lower  float64      `json:"lower"` // one-sided lower bound of the median ratio
	Upper  float64      `json:"upper"` // one-sided upper bound
	// K = #{block medians ≤ threshold}: PASS ⇔ K ≥ Upper order, FAIL ⇔ K < Lower order.
	K        int          `json:"k"`
	Verdict  verdict.Word `json:"verdict"`
	Reason   string       `json:"reason"`
	Warnings []string     `json:"warnings,omitempty"`
}

// blockMedianBounds splits the ratios (in execution order) into blocks of the data-driven odd
// length, takes each block's median and reads the order-statistic bounds of the block medians
// at the one-sided confidence; it decides as the order-statistic gate does: PASS when upper ≤
// threshold, FAIL when lower > threshold, INCONCLUSIVE otherwise.
func blockMedianBounds(ratios []float64, threshold, confidence float64) (DependentBounds, error) {
	for i, r := range ratios {
		if !(r > 0) || math.IsInf(r, 0) {
			return DependentBounds{}, fmt.Errorf("stats: ratio %d is %v; ratios must be finite and positive", i+1, r)
		}
	}
	if !(threshold > 0) || math.IsInf(threshold, 0) {
		return DependentBounds{}, fmt.Errorf("stats: threshold must be finite and positive, got %v", threshold)
	}
	if !(confidence > 0 && confidence < 1) {
		return DependentBounds{}, fmt.Errorf("stats: confidence must lie in (0, 1), got %v", confidence)
	}
	n := len(ratios)
	minBlocks := minNForConfidence(confidence)
	d := LogRatios(ratios)
	auto := politisWhiteBlockLength(d)
	sizes := oddBlocks(n, auto, minBlocks)
	if sizes == nil {
		need := minBlocks
		if need%2 != n%2 {
			need++ // odd blocks covering n pairs come in a count of n's parity
		}
		return DependentBounds{}, fmt.Errorf("stats: %d ratios cannot make %d blocks of at least 3 pairs for a one-sided %.4g%% bound (need at least %d)",
			n, need, 100*confidence, 3*need)
	}
	b := DependentBounds{Method: MethodBlockMedians, Threshold: threshold, AutoBlockLength: auto, Blocks: len(sizes), BlockSizes: sizes, BlockLength: sizes[0]}
	start := 0
	for _, s := range sizes {
		b.BlockMedians = append(b.BlockMedians, Median(ratios[start:start+s]))
		start += s
	}
	ord, err := ordersForMedian(len(sizes), confidence)
	if err != nil {
		return DependentBounds{}, err
	}
	b.Orders = ord
	xs := sortedCopy(b.BlockMedians)
	b.Lower, b.Upper = xs[ord.Lower-1], xs[ord.Upper-1]
	for _, m := range b.BlockMedians {
		if m <= threshold {
			b.K++
		}
	}
	what := "of " + b.blocksText()
	switch {
	case b.Upper <= threshold:
		b.Verdict = pass
		b.Reason = fmt.Sprintf("upper bound X(%d) %s = %.4f ≤ %.4g", ord.Upper, what, b.Upper, threshold)
	case b.Lower > threshold:
		b.Verdict = fail
		b.Reason = fmt.Sprintf("lower bound X(%d) %s = %.4f > %.4g", ord.Lower, what, b.Lower, threshold)
	default:
		b.Verdict = inconclusive
		b.Reason = fmt.Sprintf("bounds [X(%d), X(%d)] %s = [%.4f, %.4f] straddle %.4g", ord.Lower, ord.Upper, what, b.Lower, b.Upper, threshold)
	}
	if countVerdict(b.K, ord) != b.Verdict {
		return DependentBounds{}, fmt.Errorf("stats: internal: block-median bounds say %s but the count K=%d says otherwise", b.Verdict, b.K)
	}
	if t := ties(xs); t > 0 {
		b.Warnings = append(b.Warnings, fmt.Sprintf("%d tied block medians: the bounds are conservative", t))
	}
	return b, nil
}

// Basis says what the bounds are: "X(1), X(6) of 6 block medians (blocks of 9–11 pairs)".
func (b DependentBounds) Basis() string {
	return fmt.Sprintf("X(%d), X(%d) of %s", b.Orders.Lower, b.Orders.Upper, b.blocksText())
}

func (b DependentBounds) blocksText() string {
	if len(b.BlockSizes) > 0 && b.BlockSizes[len(b.BlockSizes)-1] != b.BlockSizes[0] {
		return fmt.Sprintf("%d block medians (blocks of %d–%d pairs)", b.Blocks, b.BlockLength, b.BlockSizes[len(b.BlockSizes)-1])
	}
	return fmt.Sprintf("%d block medians (blocks of %d pairs)", b.Blocks, b.BlockLength)
}

// oddBlocks partitions n pairs into consecutive blocks of odd sizes: the largest count b of
// blocks of length L (auto rounded up to odd, at least 3) with b ≡ n (mod 2), the remainder
// spread as +2 over the last blocks so every pair is used. L shrinks (by 2) until b ≥
// minBlocks; nil when even blocks of 3 are too few.
func oddBlocks(n, auto, minBlocks int) []int {
	L := max(auto, 3)
	if L%2 == 0 {
		L++
	}
	for ; L >= 3; L -= 2 {
		b := n / L
		if b%2 != n%2 {
			b--
		}
		if b < minBlocks {
			continue
		}
		sizes := make([]int, b)
		for i := range sizes {
			sizes[i] = L
		}
		for extra, i := (n-b*L)/2, b-1; extra > 0; extra-- {
			sizes[i] += 2
			if i--; i < 0 {
				i = b - 1
			}
		}
		sort.Ints(sizes) // the shortest first, so sizes[0] is the base length
		return sizes
	}
	return nil
}

// politisWhiteBlockLength is the automatic block length of the circular block bootstrap
// (Politis & White 2004, corrected by Patton, Politis & White 2009): b = (2Ĝ²/D̂_CB)^⅓ n^⅓ with
// the flat-top lag window λ and the adaptive bandwidth M = 2m̂, where m̂ is the smallest lag
// after which K_N = max(5, ⌈√log₁₀ n⌉) autocorrelations in a row are below 2√(log₁₀ n / n);
// capped at ⌈min(3√n, n/3)⌉ and at least 1.
func politisWhiteBlockLength(x []float64) int {
	n := len(x)
	if n < 4 {
		return 1
	}
	kn := max(5, int(math.Ceil(math.Sqrt(math.Log10(float64(n))))))
	mmax := int(math.Ceil(math.Sqrt(float64(n)))) + kn
	bmax := int(math.Ceil(math.Min(3*math.Sqrt(float64(n)), float64(n)/3)))
	mu := mean(x)
	acov := func(k int) float64 {
		s := 0.0
		for t := 0; t+k < n; t++ {
			s += (x[t] - mu) * (x[t+k] - mu)
		}
		return s / float64(n)
	}
	r0 := acov(0)
	if r0 == 0 {
		return 1
	}
	crit := 2 * math.Sqrt(math.Log10(float64(n))/float64(n))
	mhat := mmax
	for m := 0; m+kn < n && m+kn <= mmax; m++ {
		small := true
		for k := 1; k <= kn; k++ {
			if math.Abs(acov(m+k)/r0) >= crit {
				small = false
				break
			}
		}
		if small {
			mhat = m
			break
		}
	}
	M := min(2*mhat, mmax, n-1)
	g, spec := 0.0, r0
	for k := 1; k <= M; k++ {
		w := flatTop(float64(k) / float64(M))
		g += 2 * w * float64(k) * acov(k)
		spec += 2 * w * acov(k)
	}
	dcb := 4.0 / 3 * spec * spec
	if dcb <= 0 {
		return 1
	}
	b := int(math.Ceil(math.Cbrt(2 * g * g / dcb * float64(n))))
	return min(max(b, 1), bmax)
}

// flatTop is Politis & Romano's trapezoidal flat-top lag window.
func flatTop(s float64) float64 {
	s = math.Abs(s)
	switch {
	case s <= 0.5:
		return 1
	case s <= 1:
		return 2 * (1 - s)
	}
	return 0
}
