package campaignreport

import (
	"fmt"
	"math"
	"net/url"
	"strings"

	"kvparity/internal/layout"
)

// summary.md is pasted where it is read: a pull-request comment, which cannot load the
// campaign's files. So its charts are ones GitHub draws from the text itself (a Mermaid
// xychart, text charts in code blocks), and it links an image only under a base URL the user
// hosts plots/ at; without one it links no image, since a relative link breaks once pasted.
// report.md, read beside plots/, keeps its relative links.

// Options are the choices `kvparity report` passes to WriteReportWith.
type Options struct {
	// ImageBaseURL is where the user hosts the campaign folder (its plots/ at
	// ImageBaseURL/plots/): summary.md then shows the PNGs from there. "" links no image.
	ImageBaseURL string
}

// imageBase checks a base URL for summary.md's images: absolute http(s), no credentials,
// query or fragment, and only characters that stay inside a Markdown link destination
// (anything else is refused rather than escaped, so the URL printed is the URL used). It
// returns the URL without its trailing slashes.
func imageBase(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("image base URL %q: %w", raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("image base URL %q: want an absolute http:// or https:// URL", raw)
	case u.Host == "":
		return "", fmt.Errorf("image base URL %q: no host", raw)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return "", fmt.Errorf("image base URL %q: no credentials, query (?) or fragment (#): the plots' paths are appended to it", raw)
	}
	s := strings.TrimRight(raw, "/")
	if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/:%") != "" {
		return "", fmt.Errorf("image base URL %q: only letters, digits and -._~/:%% are taken (percent-encode the rest)", raw)
	}
	return s, nil
}

// sumPlots is summary.md's plots section: the charts a comment renders, then the image
// files, shown from base when the user hosts them, else named.
func sumPlots(base string) func(m *md, r *Report) {
	return func(m *md, r *Report) {
		m.h(3, "Plots")
		m.summaryCharts(r)
		if len(r.Plots) == 0 {
			return
		}
		if base == "" {
			m.p("The same plots as images (SVG and PNG) are in the campaign folder's `%s/`: %s. They are not linked here, since a pasted summary cannot load them; `kvparity report --image-base-url URL DIR` shows them from where you host the folder.",
				layout.DirPlots, plotFileList(r))
			return
		}
		for _, p := range r.Plots {
			m.p("![%s](%s) ([SVG](%s))", mdText(plotAlt(p)), base+"/"+mdURL(pngOf(p)), base+"/"+mdURL(p))
			m.blank()
		}
		m.p("The images are `%s/` of the campaign folder, as hosted at the image base URL.", layout.DirPlots)
	}
}

// plotFileList names each plot's files, e.g. `plots/ratios.svg` and `.png`.
func plotFileList(r *Report) string {
	var out []string
	for _, p := range r.Plots {
		out = append(out, mdCode(p)+" and "+mdCode(pngOf(p)))
	}
	return strings.Join(out, ", ")
}

// summaryCharts draws what the image plots say in forms GitHub renders from the text: the
// ratios as a Mermaid line chart around r = 1, pressure as a text chart, and each latency's
// candidate − baseline difference per percentile (a Mermaid chart, or one sentence when the
// arms agree at every percentile).
func (m *md) summaryCharts(r *Report) {
	drawn := false
	if res := r.Performance.Result; res != nil && len(res.Pairs) > 0 {
		m.ratioChart(r)
		drawn = true
	}
	if m.pressureChart(r) {
		drawn = true
	}
	for _, which := range []latency{latencyTTFT, latencyE2E} {
		if m.latencyChart(r, which) {
			drawn = true
		}
	}
	if !drawn {
		m.p("No plot: the campaign has no paired ratio, lifecycle evidence or product metrics yet.")
		m.blank()
	}
}

// mermaidPairs caps the pairs the Mermaid chart draws, to keep the summary small (a row's
// 60 fit; report.md and plots/ratios.png have every pair).
const mermaidPairs = 120

// mermaidColors sets the lines' colours in order (the chart has no legend: the caption names
// them by colour).
func mermaidColors(colors ...string) string {
	return `%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "` + strings.Join(colors, ", ") + `"}}}}%%` + "\n"
}

// ratioChart: r per pair in pair order, the threshold and r = 1, on an axis centred on 1.
func (m *md) ratioChart(r *Report) {
	res := r.Performance.Result
	pairs := res.Pairs[:min(len(res.Pairs), mermaidPairs)]
	ratios := make([]float64, len(pairs))
	for i, p := range pairs {
		ratios[i] = p.Ratio
	}
	g, decided := gateOf(res)
	lo, hi := ratioAxis(ratiosOf(res), res.Threshold, g, decided)
	line := func(v func(i int) float64) string {
		vs := make([]string, len(pairs))
		for i := range pairs {
			vs[i] = ratio3(v(i))
		}
		return "    line [" + strings.Join(vs, ", ") + "]\n"
	}
	var b strings.Builder
	b.WriteString(mermaidColors("#1f77b4", "#c01010", "#909090"))
	b.WriteString("xychart-beta\n")
	b.WriteString("    title \"r = candidate / baseline per pair, in pair order\"\n")
	fmt.Fprintf(&b, "    x-axis \"pair\" %d --> %d\n", pairs[0].Pair, pairs[len(pairs)-1].Pair)
	fmt.Fprintf(&b, "    y-axis \"r\" %s --> %s\n", ratio3(lo), ratio3(hi))
	b.WriteString(line(func(i int) float64 { return ratios[i] }))
	b.WriteString(line(func(int) float64 { return res.Threshold }))
	b.WriteString(line(func(int) float64 { return 1 }))
	m.p("%s", mdFence("mermaid", b.String()))
	m.blank()
	caption := fmt.Sprintf("Blue: r = candidate / baseline of each valid pair, in pair order (below 1 the candidate was faster); red: the threshold %s; grey: r = 1, no change.", ratio3(res.Threshold))
	if decided {
		caption += fmt.Sprintf(" Median ratio %s, %s bounds [%s, %s].", ratio3(g.Median), g.label(), ratio3(g.Lower), ratio3(g.Upper))
	}
	if len(res.Pairs) > len(pairs) {
		caption += fmt.Sprintf(" The first %d of %d pairs; every pair is in report.md and `%s`.", len(pairs), len(res.Pairs), pngOf(figurePath("ratios")))
	}
	m.p("%s", caption)
	m.blank()
}

func figurePath(stem string) string { return layout.DirPlots + "/" + stem + ".svg" }

// pressureChart: pressure events per slice of virtual time, both arms on one time axis and
// one count scale from zero (a taller mark is more events; · none).
func (m *md) pressureChart(r *Report) bool {
	end := 0.0
	n := 0
	for _, a := range r.Arms {
		if a.Evidence != nil {
			end = math.Max(end, a.Evidence.VirtualEndMs)
			n++
		}
	}
	if n == 0 {
		return false
	}
	const bins = 48
	counts := make([][]float64, len(r.Arms))
	top := 0.0
	for i, a := range r.Arms {
		if ev := a.Evidence; ev != nil {
			counts[i] = make([]float64, bins)
			for _, p := range ev.Pressure {
				counts[i][level(p.AtMs, 0, end, bins)]++
			}
			top = math.Max(top, maxOf(counts[i]))
		}
	}
	var lines []string
	for i, a := range r.Arms {
		if counts[i] == nil {
			continue
		}
		var b strings.Builder
		for _, c := range counts[i] {
			if c == 0 {
				b.WriteRune('·')
			} else {
				b.WriteRune(sparks[level(c, 0, top, len(sparks))])
			}
		}
		lines = append(lines, fmt.Sprintf("%-9s %s  %d event(s)", a.Arm, b.String(), len(a.Evidence.Pressure)))
	}
	m.p("Pressure events (preemptions, retractions) over virtual time from t=0 s to %s, in %d slices of %s; one scale from zero for both arms, the tallest mark %d event(s), `·` none:", vtime(end), bins, duration(end/bins, end/bins), int(top))
	m.blank()
	m.p("%s", mdFence("", strings.Join(lines, "\n")))
	m.blank()
	return true
}

// latencyChart: one latency's candidate − baseline at each percentile, on an axis centred on
// zero; one sentence instead when the arms agree at every percentile.
func (m *md) latencyChart(r *Report, which latency) bool {
	d, ok := latencyDiff(r, which)
	if !ok {
		return false
	}
	if d.same {
		m.p("%s: candidate and baseline are identical at every percentile (p0–p100 of %s completed requests, virtual time).", which.name, requestsOf(r))
		m.blank()
		return true
	}
	unit, scale := "ms", 1.0
	if d.largest >= 10_000 {
		unit, scale = "s", 1000
	}
	half := 0.0
	vs := make([]string, len(d.diff))
	zeros := make([]string, len(d.diff))
	for k, v := range d.diff {
		half = math.Max(half, math.Abs(v/scale))
		vs[k] = strings.Replace(fmt.Sprintf("%.1f", v/scale), "-0.0", "0.0", 1) // no "−0.0" beside 0
		zeros[k] = "0"
	}
	half = math.Max(1.15*half, 0.1)
	var b strings.Builder
	b.WriteString(mermaidColors("#e06c00", "#909090"))
	b.WriteString("xychart-beta\n")
	fmt.Fprintf(&b, "    title \"%s: candidate - baseline at each percentile (%s)\"\n", which.name, unit)
	b.WriteString("    x-axis \"percentile\" 0 --> 100\n")
	fmt.Fprintf(&b, "    y-axis \"%s\" %.1f --> %.1f\n", unit, -half, half)
	b.WriteString("    line [" + strings.Join(vs, ", ") + "]\n")
	b.WriteString("    line [" + strings.Join(zeros, ", ") + "]\n")
	m.p("%s", mdFence("mermaid", b.String()))
	m.blank()
	m.p("Orange: %s of the candidate minus the baseline's at each percentile p0–p100 of the completed requests (virtual time; above zero the candidate is later); grey: no change. The largest difference is %s at p%d; p50 %s → %s, p99 %s → %s.",
		which.name, signedDuration(d.diff[d.widest], d.largest), d.widest,
		duration(d.b[len(d.b)/2], d.largest), duration(d.c[len(d.c)/2], d.largest),
		duration(d.b[len(d.b)*99/100], d.largest), duration(d.c[len(d.c)*99/100], d.largest))
	m.blank()
	return true
}

// requestsOf is how many completed requests the baseline's quantiles are of, in words.
func requestsOf(r *Report) string {
	if len(r.Metrics) > 0 && r.Metrics[0].Metrics != nil && r.Metrics[0].Metrics.Requests > 0 {
		return num(float64(r.Metrics[0].Metrics.Requests))
	}
	return "the"
}
