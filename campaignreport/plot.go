package campaignreport

import (
	"math"
	"strings"

	"kvparity/report"
)

// Text plots for report.md: they read the same in a terminal, a diff and a rendered page.

var sparks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws one character per value, scaled between lo and hi (values outside clamp).
func sparkline(values []float64, lo, hi float64) string {
	var b strings.Builder
	for _, v := range values {
		b.WriteRune(sparks[level(v, lo, hi, len(sparks))])
	}
	return b.String()
}

// level maps v in [lo, hi] to 0..n-1.
func level(v, lo, hi float64, n int) int {
	if !(hi > lo) || math.IsNaN(v) {
		return 0
	}
	i := int(math.Floor((v - lo) / (hi - lo) * float64(n)))
	return min(max(i, 0), n-1)
}

// bar is a horizontal bar of v on a scale of width cells between lo and hi, in eighths.
func bar(v, lo, hi float64, width int) string {
	if !(hi > lo) {
		return ""
	}
	eighths := int(math.Round((v - lo) / (hi - lo) * float64(width*8)))
	eighths = min(max(eighths, 0), width*8)
	partial := []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}
	return strings.Repeat("█", eighths/8) + partial[eighths%8]
}

// ratioScale is the plotted range of ratios: it always includes 1 and the threshold so that
// the reader sees where the gate lies.
func ratioScale(ratios []float64, threshold float64) (lo, hi float64) {
	lo, hi = math.Min(1, threshold), math.Max(1, threshold)
	for _, r := range ratios {
		lo, hi = math.Min(lo, r), math.Max(hi, r)
	}
	pad := (hi - lo) * 0.05
	return lo - pad, hi + pad
}

// pressureBins counts pressure events in bins equal slices of [start, end] virtual time.
func pressureBins(ev *report.Evidence, bins int) []float64 {
	out := make([]float64, bins)
	span := ev.VirtualEndMs - ev.VirtualStartMs
	for _, p := range ev.Pressure {
		i := 0
		if span > 0 {
			i = level(p.AtMs, ev.VirtualStartMs, ev.VirtualEndMs, bins)
		}
		out[i]++
	}
	return out
}

// maxOf is the largest value (0 for none).
func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = math.Max(m, x)
	}
	return m
}

// pressureLine draws event counts per bin; an empty bin is a space-like baseline so that a
// single event stands out.
func pressureLine(counts []float64) string {
	m := maxOf(counts)
	var b strings.Builder
	for _, n := range counts {
		switch {
		case n == 0:
			b.WriteRune('·')
		default:
			b.WriteRune(sparks[level(n, 0, m, len(sparks))])
		}
	}
	return b.String()
}
