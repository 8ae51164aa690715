package campaignreport

import (
	"math"
	"strings"
	"unicode/utf8"

	"kvparity/report"
)

// Text plots for report.md: they read the same in a terminal, a diff and a rendered page.

var sparks = []rune("▁▂▃▄▅▆▇█")

// level maps v in [lo, hi] to 0..n-1.
func level(v, lo, hi float64, n int) int {
	if !(hi > lo) || math.IsNaN(v) {
		return 0
	}
	i := int(math.Floor((v - lo) / (hi - lo) * float64(n)))
	return min(max(i, 0), n-1)
}

// divergingBar draws r as a bar from r = 1 on a scale of width cells for half (the largest
// |r − 1| drawn): left of the axis when r < 1, right when r > 1, in half cells, so that equal
// departures from 1 are equal lengths and r = 1 is no bar at all. A bar from an arbitrary
// floor would make 0.61 look eight times shorter than 1.00. left is always width cells wide.
func divergingBar(r, half float64, width int) (left, right string) {
	halves := 0
	if half > 0 && !math.IsNaN(r) {
		halves = min(int(math.Round(math.Abs(r-1)/half*float64(2*width))), 2*width)
	}
	switch {
	case r < 1:
		// The bar ends at the axis: its half cell is on the far (left) end.
		left = strings.Repeat("▐", halves%2) + strings.Repeat("█", halves/2)
	case r > 1:
		right = strings.Repeat("█", halves/2) + strings.Repeat("▌", halves%2)
	}
	return strings.Repeat(" ", width-utf8.RuneCountInString(left)) + left, right
}

// ratioHalf is the scale of the diverging bars: the largest departure from 1 among the
// ratios and the threshold, so that the threshold is always on the chart.
func ratioHalf(ratios []float64, threshold float64) float64 {
	half := math.Abs(threshold - 1)
	for _, r := range ratios {
		half = math.Max(half, math.Abs(r-1))
	}
	return half
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
