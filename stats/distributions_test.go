package stats

import (
	"math"
	"testing"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.7f, want %.7f (±%g)", what, got, want, tol)
	}
}

// Textbook table values (spec §1.2 test vectors).
func TestQuantilesMatchTables(t *testing.T) {
	near(t, "z_.975", normalQuantile(0.975), 1.959964, 5e-7)
	near(t, "z_.995", normalQuantile(0.995), 2.575829, 5e-7)
	near(t, "χ²_.95(10)", chiSquareQuantile(0.95, 10), 18.3070, 5e-5)
	near(t, "χ²_.99(10)", chiSquareQuantile(0.99, 10), 23.2093, 5e-5)
	near(t, "χ²_.95(5)", chiSquareQuantile(0.95, 5), 11.0705, 5e-5)
	near(t, "χ²_.99(5)", chiSquareQuantile(0.99, 5), 15.0863, 5e-5)
	near(t, "χ²_.95(1)", chiSquareQuantile(0.95, 1), 3.8415, 5e-5)
	near(t, "t_.975,10", studentTQuantile(0.975, 10), 2.2281, 5e-5)
	near(t, "t_.995,58", studentTQuantile(0.995, 58), 2.66329, 5e-6)
	near(t, "t_.975,58", studentTQuantile(0.975, 58), 2.00172, 5e-6)
	near(t, "t_.025,10", studentTQuantile(0.025, 10), -2.2281, 5e-5)
	near(t, "Φ(1.96)", normalCDF(1.959964), 0.975, 1e-7)
}

func TestSpearmanCritical(t *testing.T) {
	near(t, "|ρ| crit n=60 α=.01", SpearmanCritical(60, 0.01), 0.3301, 5e-5)
	near(t, "|ρ| crit n=60 α=.05", SpearmanCritical(60, 0.05), 0.2542, 5e-5)
}
