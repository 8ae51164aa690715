package stats

import (
	"kvparity/verdict"
	"math"
	"sort"
)

// BootstrapConfig fixes the secondary bootstrap diagnostic (a secondary diagnostic, never the
// verdict; docs/guide.md "The dependence-aware method").
type BootstrapConfig struct {
	Seed       uint64  `json:"seed"`
	Resamples  int     `json:"resamples"`  // B; 10000
	Confidence float64 `json:"confidence"` // two-sided; 0.90 → the 500th and 9501st of 10000
}

// Bootstrap streams: separate PCG streams so the i.i.d. and block resamples never share draws
// with each other or with the schedule.
const (
	bootstrapStream      = 2
	blockBootstrapStream = 3
)

// Bootstrap is the paired bootstrap of log ratios. It is reported beside the gate and never
// decides it.
type Bootstrap struct {
	Config BootstrapConfig `json:"config"`
	Median float64         `json:"median_ratio"` // exp(median d)
	Lower  float64         `json:"lower"`        // exp of the lower percentile of T* (no interpolation)
	Upper  float64         `json:"upper"`
	// MeanRatio and TrimmedMeanRatio are exp(mean d) and exp(20%-trimmed mean d); when they
	// disagree with the median the ratio distribution is skewed.
	MeanRatio        float64      `json:"mean_ratio"`
	TrimmedMeanRatio float64      `json:"trimmed_mean_ratio"`
	Verdict          verdict.Word `json:"verdict"`   // what the bootstrap interval alone would say
	Disagrees        bool         `json:"disagrees"` // Verdict differs from the order-statistic verdict
	// BlockWidthRatio is W_MBB / W_iid: the width of the circular moving-block bootstrap interval
	// (block length ⌈n^⅓⌉) over the i.i.d. one. ≈1 for i.i.d. data, larger under dependence;
	// it separates poorly, so it is reported, not gated on.
	BlockLength     int     `json:"block_length"`
	BlockWidthRatio float64 `json:"block_width_ratio"`
}

// defaultBootstrap is the predeclared bootstrap: 10000 resamples, two-sided 90%.
func defaultBootstrap(seed uint64) BootstrapConfig {
	return BootstrapConfig{Seed: seed, Resamples: 10000, Confidence: 0.90}
}

// pairedBootstrap resamples the n log ratios d with replacement B times, takes the median of each
// resample, and reads the percentile interval without interpolation. gate is the order-statistic
// verdict it is compared with.
func pairedBootstrap(d []float64, threshold float64, cfg BootstrapConfig, gate verdict.Word) Bootstrap {
	n := len(d)
	out := Bootstrap{Config: cfg}
	if n == 0 || cfg.Resamples < 1 {
		return out
	}
	lo, hi := percentileIndices(cfg.Resamples, cfg.Confidence)
	iid := bootstrapMedians(d, cfg.Resamples, func(src source, buf []float64) {
		for i := range buf {
			buf[i] = d[src.below(uint64(n))]
		}
	}, newSource(cfg.Seed, bootstrapStream))
	out.Median = math.Exp(Median(d))
	out.Lower = math.Exp(iid[lo])
	out.Upper = math.Exp(iid[hi])
	out.MeanRatio = math.Exp(mean(d))
	out.TrimmedMeanRatio = math.Exp(trimmedMean(d, 0.2))
	switch {
	case out.Upper <= threshold:
		out.Verdict = pass
	case out.Lower > threshold:
		out.Verdict = fail
	default:
		out.Verdict = inconclusive
	}
	out.Disagrees = gate.Decided() && out.Verdict != gate

	out.BlockLength = int(math.Ceil(math.Cbrt(float64(n))))
	L := out.BlockLength
	mbb := bootstrapMedians(d, cfg.Resamples, func(src source, buf []float64) {
		for i := 0; i < n; {
			start := int(src.below(uint64(n)))
			for k := 0; k < L && i < n; k++ {
				buf[i] = d[(start+k)%n] // circular: blocks wrap around the end
				i++
			}
		}
	}, newSource(cfg.Seed, blockBootstrapStream))
	if w := iid[hi] - iid[lo]; w > 0 {
		out.BlockWidthRatio = (mbb[hi] - mbb[lo]) / w
	}
	return out
}

// percentileIndices returns 0-based indices of the lower and upper percentile among B sorted
// statistics: for B = 10000 at 90%, the 500th and the 9501st smallest.
func percentileIndices(b int, confidence float64) (lo, hi int) {
	tail := int(math.Round(float64(b) * (1 - confidence) / 2))
	if tail < 1 {
		tail = 1
	}
	return tail - 1, b - tail
}

func bootstrapMedians(d []float64, b int, fill func(source, []float64), src source) []float64 {
	buf := make([]float64, len(d))
	stats := make([]float64, b)
	for i := range stats {
		fill(src, buf)
		sort.Float64s(buf)
		stats[i] = medianSorted(buf)
	}
	sort.Float64s(stats)
	return stats
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// trimmedMean drops ⌊frac·n⌋ values from each end.
func trimmedMean(xs []float64, frac float64) float64 {
	s := sortedCopy(xs)
	k := int(math.Floor(frac * float64(len(s))))
	return mean(s[k : len(s)-k])
}
