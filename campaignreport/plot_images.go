package campaignreport

import (
	"bytes"
	"fmt"
	"image/color"
	"path"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"kvparity/internal/layout"
)

// The report's plots as images, drawn with gonum.org/v1/plot from the figures of the Report
// alone, so the same campaign gives the same bytes. Each plot is written twice: SVG for the
// repository view and a browser (GitHub renders an SVG file of the repository), PNG for where
// SVG is not taken (a pull-request comment's image upload, most chat tools and image viewers).
// The SVGs name their fonts instead of embedding them (a few KB instead of hundreds): a viewer
// without Liberation Sans draws them in Arial, Helvetica or its own sans-serif.

// plotSize is every plot's size; pngDPI the PNG's resolution (1296×576 pixels).
var plotSize = [2]vg.Length{9 * vg.Inch, 4 * vg.Inch}

const pngDPI = 144

// A figure is one plot the report can draw: its file stem, its alt text, and its drawing
// (nil when the campaign has no data for it).
type figure struct {
	stem string
	alt  string
	draw func(r *Report) *plot.Plot
}

var figures = []figure{
	{"ratios", "paired ratios around r = 1 in schedule order, with the bounds and the threshold as bands", ratioPlot},
	{"pressure", "pressure events over virtual time, both arms", pressurePlot},
	{"ttft", "TTFT, candidate − baseline at each percentile", func(r *Report) *plot.Plot { return latencyPlot(r, latencyTTFT) }},
	{"e2e", "end-to-end latency, candidate − baseline at each percentile", func(r *Report) *plot.Plot { return latencyPlot(r, latencyE2E) }},
}

// hasData says whether a figure would draw anything (cheap: no drawing).
func (f figure) hasData(r *Report) bool {
	switch f.stem {
	case "ratios":
		return r.Performance.Result != nil && len(r.Performance.Result.Pairs) > 0
	case "pressure":
		for _, a := range r.Arms {
			if a.Evidence != nil {
				return true
			}
		}
		return false
	default:
		which := latencyTTFT
		if f.stem == "e2e" {
			which = latencyE2E
		}
		_, ok := latencyDiff(r, which)
		return ok
	}
}

// plotNames is the SVG files of the plots the campaign has data for, campaign-relative (each
// has its PNG beside it: pngOf).
func plotNames(r *Report) []string {
	out := []string{}
	for _, f := range figures {
		if f.hasData(r) {
			out = append(out, path.Join(layout.DirPlots, f.stem+".svg"))
		}
	}
	return out
}

func pngOf(svg string) string { return svg[:len(svg)-len(".svg")] + ".png" }

// plotAlt is the alt text of a plot file.
func plotAlt(svg string) string {
	for _, f := range figures {
		if path.Join(layout.DirPlots, f.stem+".svg") == svg {
			return f.alt
		}
	}
	return svg
}

// renderPlots draws every plot of r.Plots as SVG and PNG.
func renderPlots(r *Report) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, f := range figures {
		name := path.Join(layout.DirPlots, f.stem+".svg")
		if !slices.Contains(r.Plots, name) {
			continue
		}
		p := f.draw(r)
		if p == nil {
			continue
		}
		svg, png, err := encodePlot(p)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", name, err)
		}
		out[name], out[pngOf(name)] = svg, png
	}
	return out, nil
}

// encodePlot draws p on an SVG and a PNG canvas.
func encodePlot(p *plot.Plot) (svg, png []byte, err error) {
	w, h := plotSize[0], plotSize[1]
	sc := vgsvg.NewWith(vgsvg.UseWH(w, h))
	drawBesideLegend(p, draw.New(sc))
	var sb bytes.Buffer
	if _, err := sc.WriteTo(&sb); err != nil {
		return nil, nil, err
	}
	ic := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))
	drawBesideLegend(p, draw.New(ic))
	var pb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: ic}).WriteTo(&pb); err != nil {
		return nil, nil, err
	}
	// vgsvg names the font alone; a viewer without it would fall back to a serif face.
	svg = bytes.ReplaceAll(sb.Bytes(), []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	return svg, pb.Bytes(), nil
}

// drawBesideLegend draws p with its legend in a column to the right of the axes, top-aligned
// with the data area: inside the data area a legend hides points wherever the data happen to
// be, and no headroom reserved for it fits every series.
func drawBesideLegend(p *plot.Plot, c draw.Canvas) {
	leg := p.Legend
	p.Legend = plot.NewLegend() // empty: the plot draws none of its own
	defer func() { p.Legend = leg }()
	gap := vg.Points(12)
	width := leg.Rectangle(c).Size().X + leg.XOffs + gap
	plotArea := draw.Crop(c, 0, -width, 0, 0)
	p.Draw(plotArea)
	col := c
	col.Min.X = plotArea.Max.X + gap
	col.Max.Y = p.DataCanvas(plotArea).Max.Y
	leg.Top, leg.Left, leg.XOffs = true, true, 0
	leg.Draw(col)
}
