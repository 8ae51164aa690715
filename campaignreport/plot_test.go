package campaignreport

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"kvparity/engine"
	"kvparity/report"
	"kvparity/stats"
)

// The ratio bars diverge around r = 1: r = 1.00 is no bar, 0.61 is the longest, as long to
// the left as 1.39 is to the right, and a bar's length is proportional to |r − 1| (the old
// bars from the series' minimum drew 0.61 eight times shorter than 1.00).
func TestDivergingBarsAroundOne(t *testing.T) {
	half := ratioHalf([]float64{0.61, 1.00, 1.02}, 1.05)
	if half != 1-0.61 {
		t.Fatalf("half = %v, want the largest departure 0.39", half)
	}
	cells := func(s string) float64 {
		n := 0.0
		for _, r := range s {
			switch r {
			case '█':
				n++
			case '▐', '▌':
				n += 0.5
			}
		}
		return n
	}
	for _, c := range []struct {
		r           float64
		left, right float64
	}{{0.61, 20, 0}, {1.00, 0, 0}, {1.39, 0, 20}, {1.195, 0, 10}, {0.805, 10, 0}, {1.02, 0, 1}} {
		left, right := divergingBar(c.r, half, 20)
		if utf8.RuneCountInString(left) != 20 {
			t.Errorf("r = %v: the left side is %d cells wide, want 20 so that the axis lines up", c.r, utf8.RuneCountInString(left))
		}
		if cells(left) != c.left || cells(right) != c.right {
			t.Errorf("r = %v: bar %q│%q is %v left, %v right; want %v, %v", c.r, left, right, cells(left), cells(right), c.left, c.right)
		}
	}
	if l, r := divergingBar(0.9, 0, 20); strings.TrimSpace(l) != "" || r != "" {
		t.Errorf("a zero scale draws no bar, got %q│%q", l, r)
	}
}

func TestPressureBinsOverVirtualTime(t *testing.T) {
	ev := &report.Evidence{VirtualStartMs: 0, VirtualEndMs: 100, Pressure: []report.PressureRecord{{AtMs: 0}, {AtMs: 49}, {AtMs: 51}, {AtMs: 100}, {AtMs: 99}}}
	got := pressureBins(ev, 4)
	want := []float64{1, 1, 1, 2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("bins = %v, want %v", got, want)
		}
	}
	if line := pressureLine([]float64{0, 1, 0, 2}); line != "·▅·█" {
		t.Errorf("pressure line = %q", line)
	}
}

// report.md's ratio chart: r = 1.00 draws no bar and 0.61 the longest, from the r = 1 axis.
func TestReportRatioChartDivergesAroundOne(t *testing.T) {
	res := &engine.PerfResult{TimingField: "replay_execution_ms", Threshold: 1.05, Pairs: []engine.PerfPair{
		{Pair: 1, Order: stats.BaselineFirst, Ratio: 0.61}, {Pair: 2, Order: stats.CandidateFirst, Ratio: 1.00}, {Pair: 3, Order: stats.BaselineFirst, Ratio: 1.2}}}
	m := &md{}
	m.ratios(res)
	bars := map[string]string{}
	for _, line := range strings.Split(m.b.String(), "\n") {
		if strings.HasPrefix(line, "pair ") {
			bars[regexp.MustCompile(`\d\.\d{3}`).FindString(line)] = line
		}
	}
	one, low, high := bars["1.000"], bars["0.610"], bars["1.200"]
	if one == "" || low == "" || high == "" {
		t.Fatalf("ratio lines: %v\n%s", bars, m.b.String())
	}
	axis := func(l string) int { return strings.IndexRune(l, '│') }
	column := func(l string) int { return utf8.RuneCountInString(l[:axis(l)]) }
	if column(one) != column(low) || column(one) != column(high) {
		t.Errorf("the r = 1 axis does not line up:\n%s\n%s\n%s", low, one, high)
	}
	if n := strings.Count(one, "█"); n != 0 {
		t.Errorf("r = 1.00 draws %d cells, want none: %s", n, one)
	}
	if l, r := strings.Count(low[:axis(low)], "█"), strings.Count(low[axis(low):], "█"); l != 20 || r != 0 {
		t.Errorf("r = 0.61 draws %d cells left, %d right; want the full 20 left: %s", l, r, low)
	}
	// 1.2 is 0.2 above 1, 0.61 is 0.39 below: 20 · 0.2/0.39 ≈ 10.3 cells, drawn in half cells.
	if r := strings.Count(high[axis(high):], "█"); r != 10 {
		t.Errorf("r = 1.2 draws %d full cells right, want 10: %s", r, high)
	}
	if !strings.Contains(m.b.String(), "^: threshold 1.050") {
		t.Errorf("no threshold mark:\n%s", m.b.String())
	}
}
