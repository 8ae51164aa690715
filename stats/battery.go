package stats

import (
	"fmt"
	"strings"
)

// BatteryConfig fixes the dependence battery in advance, before any data is seen: each test at
// Alpha, and Ljung–Box over Lags lags.
type BatteryConfig struct {
	Alpha float64 `json:"alpha"` // per test; 0.01 keeps the i.i.d. false-invalid rate near 4.5%
	Lags  int     `json:"lags"`  // Ljung–Box h; 5 at n = 60
}

// DefaultBattery is the predeclared battery: α = 0.01 per test, Ljung–Box h = 5.
var DefaultBattery = BatteryConfig{Alpha: 0.01, Lags: 5}

// Battery is the outcome of the five tests on the log ratios in execution order.
type Battery struct {
	Config      BatteryConfig `json:"config"`
	Diagnostics []Diagnostic  `json:"diagnostics"`
	Valid       bool          `json:"valid"`            // no test breached or was not computable
	Reason      string        `json:"reason,omitempty"` // which tests breached, in words
	// DriftPerSession is the Theil–Sen slope of d against pair index times (n−1): how far the
	// log ratio moved over the session, to set beside ln(threshold).
	DriftPerSession float64 `json:"drift_per_session"`
	DriftComputable bool    `json:"drift_computable"`
}

// RunBattery applies lag-1 autocorrelation, Ljung–Box, Mann–Kendall, the runs test and the
// order-effect rank-sum test to d (log ratios in execution order; order[i] is pair i's arm
// order). Any breach makes the series not exchangeable as far as the gate can tell.
func RunBattery(d []float64, order []Order, cfg BatteryConfig) Battery {
	b := Battery{Config: cfg}
	b.Diagnostics = []Diagnostic{
		lagOneTest(d, cfg.Alpha),
		ljungBox(d, cfg.Lags, cfg.Alpha),
		mannKendall(d, cfg.Alpha),
		runsTest(d, cfg.Alpha),
		orderEffect(d, order, cfg.Alpha),
	}
	var bad []string
	for _, diag := range b.Diagnostics {
		switch diag.Outcome {
		case OutcomeBreached:
			bad = append(bad, fmt.Sprintf("%s = %.4g (%s)", diag.Name, diag.Statistic, diag.Rule))
		case OutcomeNotComputable:
			bad = append(bad, fmt.Sprintf("%s not computable: %s", diag.Name, diag.Detail))
		}
	}
	b.Valid = len(bad) == 0
	if !b.Valid {
		b.Reason = "dependence diagnostics breached: " + strings.Join(bad, "; ")
	}
	if slope, ok := theilSen(d); ok {
		b.DriftPerSession = slope * float64(len(d)-1)
		b.DriftComputable = true
	}
	return b
}

// serialDependenceOnly reports whether the battery breached and every breach is a test of
// serial dependence (lag-1, Ljung–Box, trend, runs): the case a dependence-aware method
// handles. An order effect (carry-over: the ratio depends on which arm ran first) or a test
// that could not be computed is not such a case.
func (b Battery) serialDependenceOnly() bool {
	if b.Valid {
		return false
	}
	for _, d := range b.Diagnostics {
		if d.Outcome == OutcomeNotComputable || (d.Outcome == OutcomeBreached && d.Name == orderEffectName) {
			return false
		}
	}
	return true
}
