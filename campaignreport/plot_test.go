package campaignreport

import (
	"testing"

	"kvparity/report"
)

func TestSparklineScalesAndClamps(t *testing.T) {
	if got := sparkline([]float64{1, 1.5, 2, 0, 9}, 1, 2); got != "▁▅█▁█" {
		t.Errorf("sparkline = %q", got)
	}
	if got := sparkline([]float64{3, 3}, 3, 3); got != "▁▁" {
		t.Errorf("a flat scale draws the floor, got %q", got)
	}
}

func TestBarUsesEighths(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{0, ""}, {1, "████"}, {0.5, "██"}, {0.5 + 1.0/32, "██▏"}, {2, "████"}} {
		if got := bar(c.v, 0, 1, 4); got != c.want {
			t.Errorf("bar(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestRatioScaleShowsOneAndTheThreshold(t *testing.T) {
	lo, hi := ratioScale([]float64{1.01, 1.02}, 1.05)
	if !(lo < 1 && hi > 1.05) {
		t.Errorf("scale [%v, %v] hides 1 or the threshold", lo, hi)
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
