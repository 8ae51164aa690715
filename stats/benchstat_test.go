package stats

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// benchstatPath finds benchstat on PATH or installs it into a temporary GOBIN. Without it the
// test skips, unless CI is set: a CI run must exercise the cross-check.
func benchstatPath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("benchstat"); err == nil {
		return p
	}
	skip := func(format string, args ...any) {
		if os.Getenv("CI") != "" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		skip("benchstat not on PATH and no go command to install it: %v", err)
	}
	gobin := t.TempDir()
	cmd := exec.Command(goBin, "install", "golang.org/x/perf/cmd/benchstat@latest")
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=-mod=mod")
	cmd.Dir = gobin // outside this module, so its go.mod is not touched
	if out, err := cmd.CombinedOutput(); err != nil {
		skip("cannot install benchstat: %v\n%s", err, out)
	}
	return filepath.Join(gobin, "benchstat")
}

// probe builds 60 values whose median is 100. The side named by upper spreads in whole-percent
// steps (X(k) = 100 + (k−30) above, 100 − (31−k) below), the other side stays within 0.3%, so benchstat's "±N%"
// names exactly which order statistic it used on the wide side: X(37) gives 7%, X(36) 6%,
// X(38) 8%; likewise X(24) gives 7% and X(23)/X(25) 8%/6%.
func probe(upper bool) []float64 {
	out := make([]float64, 60)
	for k := 1; k <= 60; k++ {
		var v float64
		switch {
		case k == 30 || k == 31:
			v = 100
		case upper && k > 31:
			v = float64(100 + (k - 30))
		case upper: // k < 30, within 0.3%
			v = 100 - 0.01*float64(30-k)
		case k < 30:
			v = float64(100 - (31 - k))
		default: // lower probe, k > 31
			v = 100 + 0.01*float64(k-31)
		}
		out[(k*37)%60] = v // scatter: benchstat must sort, as must we
	}
	return out
}

// TestBenchstatAgreesOnMedianInterval checks that benchstat at -confidence 0.90 reports the same
// order-statistic interval of the median as ours (X(24), X(37) at n = 60): the two probes
// identify each order exactly, and a realistic series must give the same centre and ±%.
func TestBenchstatAgreesOnMedianInterval(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchstat, installing it with go install when it is not on PATH")
	}
	bin := benchstatPath(t)
	series := map[string][]float64{
		"UpperProbe": probe(true),
		"LowerProbe": probe(false),
		"Lognormal":  lognormalRatios(4, 60, 1.02, 0.03),
	}
	var lines []BenchLine
	for _, name := range []string{"UpperProbe", "LowerProbe", "Lognormal"} {
		for _, v := range series[name] {
			lines = append(lines, BenchLine{Name: name, Value: v, Unit: "ratio"})
		}
	}
	var buf bytes.Buffer
	err := WriteBench(&buf, [][2]string{{"goos", "linux"}, {"kvparity-row", "probe"}},
		[]BenchUnit{{Unit: "ratio", Assume: "nothing", Better: "lower"}}, lines)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ratios.txt")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-confidence", "0.90", "-format", "csv", file).Output()
	if err != nil {
		t.Fatalf("benchstat: %v", err)
	}
	got := map[string][2]string{} // name → centre, CI
	r := csv.NewReader(bytes.NewReader(out))
	r.FieldsPerRecord = -1 // benchstat's CSV rows are ragged
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("benchstat CSV: %v\n%s", err, out)
	}
	for _, rec := range recs {
		if len(rec) >= 3 {
			got[rec[0]] = [2]string{rec[1], rec[2]}
		}
	}

	// Our interval: two-sided 90% = one-sided 95% each side.
	ord, err := ordersForMedian(60, 0.95)
	if err != nil || ord.Lower != 24 || ord.Upper != 37 {
		t.Fatalf("orders %+v %v", ord, err)
	}
	for name, xs := range series {
		cell, ok := got[name]
		if !ok {
			t.Fatalf("benchstat printed no row for %s:\n%s", name, out)
		}
		centre, err := strconv.ParseFloat(cell[0], 64)
		if err != nil {
			t.Fatalf("%s: centre %q: %v", name, cell[0], err)
		}
		b, err := gateBounds(xs, 1.05, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		// benchstat interpolates the median (R8); for even n that is the mid-point up to an ulp.
		if math.Abs(centre-b.Median) > 1e-12*b.Median {
			t.Errorf("%s: benchstat centre %v, our median %v", name, centre, b.Median)
		}
		want := fmt.Sprintf("%.0f%%", 100*math.Max(b.Upper/centre-1, 1-b.Lower/centre))
		if strings.TrimPrefix(cell[1], "±") != want {
			t.Errorf("%s: benchstat CI %q, ours [X(24), X(37)] = [%v, %v] gives %q", name, cell[1], b.Lower, b.Upper, want)
		}
	}
	// The probes pin the orders: neighbours would print a different percentage.
	if got["UpperProbe"][1] != "7%" || got["LowerProbe"][1] != "7%" {
		t.Errorf("probe CIs %q/%q, want 7%% each (X(37) = 107, X(24) = 93)", got["UpperProbe"][1], got["LowerProbe"][1])
	}
}
