package campaignreport

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

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

// newPlot is a plot with kvparity's look: sans-serif text, a light grid; encodePlot draws the
// legend beside the axes.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	for _, s := range []*draw.TextStyle{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		s.Font.Variant = "Sans"
	}
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = color.Gray{Y: 0xe0}, color.Gray{Y: 0xe0}
	p.Add(g)
	// Thumbnails first: the SVG names its font, and a viewer that substitutes a wider one then
	// runs the text rightwards into the margin, never over its own thumbnail.
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
// which arm ran first, on a linear axis centred on r = 1 so that faster and slower read as
// equal distances; the bounds that decided are a band, the region above the threshold
// another, so where the series sits against the gate is seen without reading the legend.
func ratioPlot(r *Report) *plot.Plot {
	res := r.Performance.Result
	if res == nil || len(res.Pairs) == 0 {
		return nil
	}
	// The title is centred over the axes, narrower than the canvas: the timing field goes on
	// the axis label, so that a long field name does not run the title off the image.
	p := newPlot(fmt.Sprintf("Paired ratios r = candidate / baseline — performance %s", r.Performance.Verdict),
		"pair (schedule order)", "r of "+res.TimingField)
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
	g, decided := gateOf(res)
	lo, hi := ratioAxis(ratiosOf(res), res.Threshold, g, decided)
	// The bands first, so that the points and lines are drawn over them.
	above := band(x0, x1, res.Threshold, hi, color.RGBA{R: 0xfb, G: 0xe3, B: 0xe3, A: 0xff})
	p.Add(above)
	var bounds *plotter.Polygon
	var med *plotter.Line
	if decided {
		bounds = band(x0, x1, g.Lower, g.Upper, color.RGBA{R: 0xdd, G: 0xe6, B: 0xf0, A: 0xff})
		med = hline(g.Median, x0, x1, boundColor, false)
		med.LineStyle.Width = vg.Points(0.8)
		p.Add(bounds, med)
	}
	one := hline(1, x0, x1, color.Gray{Y: 0x90}, false)
	gate := hline(res.Threshold, x0, x1, gateColor, true)
	p.Add(one, gate)
	for _, s := range []struct {
		pts   plotter.XYs
		label string
		c     color.Color
		shape draw.GlyphDrawer
	}{{bFirst, "r, baseline ran first", baselineColor, draw.CircleGlyph{}}, {cFirst, "r, candidate ran first", candidateColor, draw.TriangleGlyph{}}} {
		if len(s.pts) == 0 {
			continue
		}
		sc, _ := plotter.NewScatter(s.pts)
		sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = s.c, s.shape, vg.Points(3)
		p.Add(sc)
		p.Legend.Add(s.label, sc)
	}
	p.Legend.Add("threshold "+ratio3(res.Threshold), gate)
	p.Legend.Add("above it: slower than the gate allows", above)
	if decided {
		p.Legend.Add(fmt.Sprintf("%s bounds", g.label()), bounds)
		p.Legend.Add(fmt.Sprintf("  [%s, %s]", ratio3(g.Lower), ratio3(g.Upper)))
		p.Legend.Add("median ratio "+ratio3(g.Median), med)
	} else {
		p.Legend.Add(fmt.Sprintf("no bound yet (%d valid pairs)", len(res.Pairs)))
	}
	p.Legend.Add("r = 1 (no change)", one)
	p.Y.Min, p.Y.Max = lo, hi
	p.X.Min, p.X.Max = x0, x1
	return p
}

// band is a filled horizontal band between y0 and y1 across [x0, x1], without an outline.
func band(x0, x1, y0, y1 float64, c color.Color) *plotter.Polygon {
	pg, _ := plotter.NewPolygon(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	pg.Color = c
	pg.LineStyle.Width = 0
	return pg
}

// ratioAxis is the plotted range of ratios: symmetric around 1, wide enough for every ratio,
// the threshold and the bounds, so that the same distance above and below 1 looks the same.
func ratioAxis(ratios []float64, threshold float64, g gateFigures, decided bool) (lo, hi float64) {
	half := math.Abs(threshold - 1)
	for _, r := range ratios {
		half = math.Max(half, math.Abs(r-1))
	}
	if decided {
		half = math.Max(half, math.Max(math.Abs(g.Lower-1), math.Abs(g.Upper-1)))
	}
	half = math.Max(half*1.15, 0.01)
	return 1 - half, 1 + half
}

// gateFigures is what the performance gate decided on: the median ratio and the one-sided
// bounds of the rule that decided, at the confidence the stats package computed them for.
type gateFigures struct {
	Median, Lower, Upper float64
	Confidence           float64 // one-sided, of each bound (stats.MedianOrders.Confidence)
	BlockMedians         bool    // the dependence-aware block-median method decided
}

// label names the bounds as the stats package computes them.
func (g gateFigures) label() string {
	what := "order-statistic"
	if g.BlockMedians {
		what = "block-median"
	}
	if g.Confidence <= 0 { // an analysis recorded without its confidence
		return "one-sided " + what
	}
	return fmt.Sprintf("one-sided %s%% %s", strconv.FormatFloat(100*g.Confidence, 'f', -1, 64), what)
}

func ratiosOf(res *engine.PerfResult) []float64 {
	out := make([]float64, len(res.Pairs))
	for i, p := range res.Pairs {
		out[i] = p.Ratio
	}
	return out
}

// gateOf is the bounds the gate read: the block medians' when they decided, else the order
// statistics'; ok false when no bound was computed.
func gateOf(res *engine.PerfResult) (g gateFigures, ok bool) {
	a := res.Analysis
	if a == nil {
		return gateFigures{}, false
	}
	if a.DecidedBy == stats.DecidedByBlockMedians && a.Dependent != nil {
		return gateFigures{Median: a.Bounds.Median, Lower: a.Dependent.Lower, Upper: a.Dependent.Upper, Confidence: a.Dependent.Orders.Confidence, BlockMedians: true}, true
	}
	return gateFigures{Median: a.Bounds.Median, Lower: a.Bounds.Lower, Upper: a.Bounds.Upper, Confidence: a.Bounds.Confidence}, true
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

// latencyPlot: how much later (or sooner) the candidate's requests finish one latency, as
// the difference candidate − baseline at each percentile p0..p100 (the distance of a
// quantile-quantile plot from its diagonal). The metrics keep quantiles, not each request, so
// this is the shift of the distribution rather than per-request pairs; two CDFs of the same
// replay lie on top of each other, while their difference shows where they part. The axis is
// centred on zero.
func latencyPlot(r *Report, which latency) *plot.Plot {
	d, ok := latencyDiff(r, which)
	if !ok {
		return nil
	}
	unit, scale := "ms", 1.0
	if d.largest >= 10_000 { // as the summary's table says them
		unit, scale = "s", 1000
	}
	title := which.name + ": candidate − baseline at each percentile (virtual time)"
	if d.same {
		title = which.name + ": identical at every percentile (virtual time)"
	}
	p := newPlot(title, "percentile of completed requests", "candidate − baseline ("+unit+")")
	pts := make(plotter.XYs, len(d.diff))
	half := 0.0
	for k, v := range d.diff {
		pts[k] = plotter.XY{X: 100 * float64(k) / float64(len(d.diff)-1), Y: v / scale}
		half = math.Max(half, math.Abs(v/scale))
	}
	if half == 0 {
		half = 1 // an empty axis still shows where zero is
	}
	zero := hline(0, 0, 100, color.Gray{Y: 0x90}, false)
	p.Add(zero)
	l, _ := plotter.NewLine(pts)
	l.LineStyle.Color, l.LineStyle.Width = candidateColor, vg.Points(1.5)
	sc, _ := plotter.NewScatter(pts)
	sc.GlyphStyle.Color, sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = candidateColor, vg.Points(1.6), draw.CircleGlyph{}
	p.Add(l, sc)
	p.Legend.Add("candidate − baseline", l, sc)
	if !d.same {
		k := d.widest
		p.Legend.Add(fmt.Sprintf("largest: %s at p%d", signedDuration(d.diff[k], d.largest), k))
	}
	p.Legend.Add(fmt.Sprintf("p50: %s → %s", duration(d.b[len(d.b)/2], d.largest), duration(d.c[len(d.c)/2], d.largest)))
	p.Legend.Add(fmt.Sprintf("p99: %s → %s", duration(d.b[len(d.b)*99/100], d.largest), duration(d.c[len(d.c)*99/100], d.largest)))
	p.Legend.Add("0 = no change", zero)
	p.X.Min, p.X.Max = 0, 100
	p.Y.Min, p.Y.Max = -1.15*half, 1.15*half
	return p
}

// A quantileDiff is both arms' quantiles of one latency and their difference.
type quantileDiff struct {
	b, c, diff []float64
	largest    float64 // the largest latency of either arm, which picks the unit
	widest     int     // the percentile of the largest absolute difference
	same       bool    // every difference is zero
}

// latencyDiff is the candidate − baseline difference at each kept quantile; ok false unless
// both arms have the same number of quantiles.
func latencyDiff(r *Report, which latency) (quantileDiff, bool) {
	if len(r.Metrics) != 2 {
		return quantileDiff{}, false
	}
	b, c := which.of(r.Metrics[0]), which.of(r.Metrics[1])
	if len(b) < 2 || len(b) != len(c) {
		return quantileDiff{}, false
	}
	d := quantileDiff{b: b, c: c, diff: make([]float64, len(b)), same: true}
	for k := range b {
		d.diff[k] = c[k] - b[k]
		d.largest = math.Max(d.largest, math.Max(b[k], c[k]))
		if math.Abs(d.diff[k]) > math.Abs(d.diff[d.widest]) {
			d.widest = k
		}
		if d.diff[k] != 0 {
			d.same = false
		}
	}
	return d, true
}
