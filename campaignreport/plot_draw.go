package campaignreport

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"kvparity/engine"
	"kvparity/report"
	"kvparity/stats"
)

// The arms' colours (baseline blue, candidate orange) and the gate's red, the same in every plot.
var (
	baselineColor  = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	candidateColor = color.RGBA{R: 0xe0, G: 0x6c, B: 0x00, A: 0xff}
	gateColor      = color.RGBA{R: 0xc0, G: 0x10, B: 0x10, A: 0xff}
	boundColor     = color.RGBA{R: 0x40, G: 0x40, B: 0x40, A: 0xff}
)

func armColor(arm engine.Arm) color.Color {
	if arm == engine.Baseline {
		return baselineColor
	}
	return candidateColor
}

// newPlot is a plot with kvparity's look: sans-serif text, a light grid, the legend inside.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	for _, s := range []*draw.TextStyle{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		s.Font.Variant = "Sans"
	}
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = color.Gray{Y: 0xe0}, color.Gray{Y: 0xe0}
	p.Add(g)
	// Top left, thumbnails first: the SVG names its font, and a viewer that substitutes a wider
	// one then runs the text rightwards into free space, never over its own thumbnail.
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs = vg.Points(6)
	p.Legend.Padding = vg.Points(2)
	p.Title.Padding = vg.Points(8)
	return p
}

// pairTicks labels whole pairs only: about ten of them, at multiples of a round step.
func pairTicks(first, last int) plot.Ticker {
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 25, 50, 100, 200, 500} {
		step = s
		if (last-first)/s <= 10 {
			break
		}
	}
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ts []plot.Tick
		for v := int(math.Ceil(lo)); float64(v) <= hi; v++ {
			if v >= first && v <= last {
				label := ""
				if v%step == 0 || step == 1 {
					label = fmt.Sprint(v)
				}
				ts = append(ts, plot.Tick{Value: float64(v), Label: label})
			}
		}
		return ts
	})
}

// hline is a horizontal line at y across [x0, x1].
func hline(y, x0, x1 float64, c color.Color, dashed bool) *plotter.Line {
	l, _ := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	l.LineStyle.Color, l.LineStyle.Width = c, vg.Points(1.2)
	if dashed {
		l.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return l
}

// ratioPlot: every valid pair's r = candidate / baseline in pair (schedule) order, coloured by
// which arm ran first, with the threshold, the bounds that decided and the median.
func ratioPlot(r *Report) *plot.Plot {
	res := r.Performance.Result
	if res == nil || len(res.Pairs) == 0 {
		return nil
	}
	p := newPlot(fmt.Sprintf("Paired ratios r = candidate / baseline %s — performance %s", res.TimingField, r.Performance.Verdict),
		"pair (schedule order)", "ratio r")
	var bFirst, cFirst plotter.XYs
	for _, pr := range res.Pairs {
		pt := plotter.XY{X: float64(pr.Pair), Y: pr.Ratio}
		if pr.Order == stats.BaselineFirst {
			bFirst = append(bFirst, pt)
		} else {
			cFirst = append(cFirst, pt)
		}
	}
	first, last := res.Pairs[0].Pair, res.Pairs[len(res.Pairs)-1].Pair
	x0, x1 := float64(first)-0.5, float64(last)+0.5
	p.X.Tick.Marker = pairTicks(first, last)
	one := hline(1, x0, x1, color.Gray{Y: 0x90}, false)
	p.Add(one)
	gate := hline(res.Threshold, x0, x1, gateColor, true)
	p.Add(gate)
	p.Legend.Add(fmt.Sprintf("gate threshold %.4g", res.Threshold), gate)
	if lo, hi, med, which, ok := ratioBounds(res); ok {
		lb, ub := hline(lo, x0, x1, boundColor, true), hline(hi, x0, x1, boundColor, true)
		lb.LineStyle.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		ub.LineStyle.Dashes = lb.LineStyle.Dashes
		m := hline(med, x0, x1, boundColor, false)
		m.LineStyle.Width = vg.Points(0.8)
		p.Add(lb, ub, m)
		p.Legend.Add(fmt.Sprintf("%s bounds [%.4f, %.4f]", which, lo, hi), lb)
		p.Legend.Add(fmt.Sprintf("median %.4f", med), m)
	} else {
		p.Legend.Add(fmt.Sprintf("no bound yet (%d valid pairs)", len(res.Pairs)))
	}
	p.Legend.Add("r = 1 (no change)", one)
	for _, s := range []struct {
		pts   plotter.XYs
		label string
		c     color.Color
		shape draw.GlyphDrawer
	}{{bFirst, "baseline ran first", baselineColor, draw.CircleGlyph{}}, {cFirst, "candidate ran first", candidateColor, draw.TriangleGlyph{}}} {
		if len(s.pts) == 0 {
			continue
		}
		sc, _ := plotter.NewScatter(s.pts)
		sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = s.c, s.shape, vg.Points(3)
		p.Add(sc)
		p.Legend.Add(s.label, sc)
	}
	lo, hi := ratioScale(ratiosOf(res), res.Threshold)
	p.Y.Min, p.Y.Max = lo, hi+0.5*(hi-lo) // headroom above the points for the legend
	p.X.Min, p.X.Max = x0, x1
	return p
}

func ratiosOf(res *engine.PerfResult) []float64 {
	out := make([]float64, len(res.Pairs))
	for i, p := range res.Pairs {
		out[i] = p.Ratio
	}
	return out
}

// ratioBounds is the bounds the gate read: the block medians' when they decided, else the
// order statistics'; ok false when no bound was computed.
func ratioBounds(res *engine.PerfResult) (lo, hi, med float64, which string, ok bool) {
	a := res.Analysis
	if a == nil {
		return 0, 0, 0, "", false
	}
	if a.DecidedBy == stats.DecidedByBlockMedians && a.Dependent != nil {
		return a.Dependent.Lower, a.Dependent.Upper, a.Bounds.Median, "block-median", true
	}
	return a.Bounds.Lower, a.Bounds.Upper, a.Bounds.Median, "order-statistic", true
}

// pressurePlot: the cumulative count of pressure events (preemptions, retractions) over
// virtual time, one step line per arm, each event marked.
func pressurePlot(r *Report) *plot.Plot {
	p := newPlot("Pressure events over virtual time", "virtual time (s)", "pressure events so far")
	drawn := false
	maxN, maxT := 0.0, 0.0
	for i, a := range r.Arms {
		ev := a.Evidence
		if ev == nil {
			continue
		}
		drawn = true
		maxT = math.Max(maxT, ev.VirtualEndMs/1000)
		pts := plotter.XYs{{X: ev.VirtualStartMs / 1000, Y: 0}}
		var marks plotter.XYs
		for k, pr := range ev.Pressure {
			pts = append(pts, plotter.XY{X: pr.AtMs / 1000, Y: float64(k + 1)})
			marks = append(marks, plotter.XY{X: pr.AtMs / 1000, Y: float64(k + 1)})
		}
		pts = append(pts, plotter.XY{X: ev.VirtualEndMs / 1000, Y: float64(len(ev.Pressure))})
		maxN = math.Max(maxN, float64(len(ev.Pressure)))
		l, _ := plotter.NewLine(pts)
		l.StepStyle = plotter.PostStep // the count rises at each event, not before it
		l.LineStyle.Color, l.LineStyle.Width = armColor(a.Arm), vg.Points(1.5)
		if i == 1 { // drawn over the baseline: dashed, so identical series stay both visible
			l.LineStyle.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
		}
		p.Add(l)
		label := fmt.Sprintf("%s: %d event(s)", a.Arm, len(ev.Pressure))
		if len(marks) > 0 {
			sc, _ := plotter.NewScatter(marks)
			sc.GlyphStyle.Color, sc.GlyphStyle.Radius = armColor(a.Arm), vg.Points(2.5)
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
			if i == 1 {
				sc.GlyphStyle.Shape = draw.CrossGlyph{}
			}
			p.Add(sc)
			p.Legend.Add(label, l, sc)
		} else {
			p.Legend.Add(label+" (capacity edge not reached)", l)
		}
	}
	if !drawn {
		return nil
	}
	p.Y.Min, p.Y.Max = 0, math.Max(1, maxN*1.1)
	p.X.Min, p.X.Max = 0, math.Max(maxT, 1e-3)
	return p
}

// A latency is one per-request latency whose quantiles armMetrics keeps.
type latency struct {
	name string
	of   func(armMetrics) []float64
}

var (
	latencyTTFT = latency{"TTFT", func(am armMetrics) []float64 {
		return quantilesOf(am, func(m *report.Metrics) []float64 { return m.TTFTms })
	}}
	latencyE2E = latency{"end-to-end latency", func(am armMetrics) []float64 {
		return quantilesOf(am, func(m *report.Metrics) []float64 { return m.E2Ems })
	}}
)

func quantilesOf(am armMetrics, f func(*report.Metrics) []float64) []float64 {
	if am.Metrics == nil {
		return nil
	}
	return f(am.Metrics)
}

// latencyPlot: the distribution of one per-request latency of both arms, as the fraction of
// completed requests at or below each latency (from the p0..p100 quantiles).
func latencyPlot(r *Report, which latency) *plot.Plot {
	// Latencies of 10 s and more are drawn in seconds, as the summary's table says them.
	unit, scale, largest := "ms", 1.0, 0.0
	for _, am := range r.Metrics {
		if qs := which.of(am); len(qs) > 0 {
			largest = math.Max(largest, qs[len(qs)-1])
		}
	}
	if largest >= 10_000 {
		unit, scale = "s", 1000
	}
	p := newPlot(which.name+" distribution (virtual time, completed requests)", which.name+" ("+unit+")", "requests at or below (%)")
	drawn := false
	for i, am := range r.Metrics {
		qs := which.of(am)
		if len(qs) == 0 {
			continue
		}
		drawn = true
		pts := make(plotter.XYs, len(qs))
		for k, q := range qs {
			pts[k] = plotter.XY{X: q / scale, Y: 100 * float64(k) / float64(len(qs)-1)}
		}
		l, _ := plotter.NewLine(pts)
		l.LineStyle.Color, l.LineStyle.Width = armColor(am.Arm), vg.Points(1.5)
		if i == 1 {
			l.LineStyle.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
		}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s: p50 %s, p99 %s", am.Arm, inUnit(qs[len(qs)/2], "ms", largest), inUnit(qs[len(qs)*99/100], "ms", largest)), l)
	}
	if !drawn {
		return nil
	}
	p.Y.Min, p.Y.Max, p.X.Min = 0, 100, 0
	return p
}
