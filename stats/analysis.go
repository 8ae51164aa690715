package stats

import (
	"fmt"
	"kvparity/verdict"
	"math"
)

// Config is everything the analysis fixes in advance.
type Config struct {
	Threshold  float64         `json:"threshold"`  // 1.05: PASS needs upper ≤ it, FAIL lower > it
	Confidence float64         `json:"confidence"` // one-sided confidence of each bound; 0.95
	Battery    BatteryConfig   `json:"battery"`
	Bootstrap  BootstrapConfig `json:"bootstrap"`
	// Dependence is what decides when the battery breaches through serial dependence only:
	// MethodInconclusive (the protocol's literal rule, and the zero value's meaning) or
	// MethodBlockMedians.
	Dependence DependenceMethod `json:"dependence_method,omitempty"`
}

// DefaultConfig is the protocol's gate: threshold 1.05, one-sided 95% bounds, the default
// battery and a bootstrap seeded from the schedule seed.
func DefaultConfig(seed uint64) Config {
	return Config{Threshold: 1.05, Confidence: 0.95, Battery: DefaultBattery, Bootstrap: defaultBootstrap(seed)}
}

// Analysis is the full result of the paired gate on one series of ratios.
type Analysis struct {
	N         int        `json:"n"`
	Ratios    []float64  `json:"ratios"` // r_i = candidate/baseline, in execution order
	Order     []Order    `json:"order"`
	Bounds    Bounds     `json:"bounds"`
	Battery   Battery    `json:"battery"`
	Bootstrap *Bootstrap `json:"bootstrap,omitempty"`
	// Dependent is the dependence-aware bound, computed when the battery breached through
	// serial dependence only and the config names a method; nil otherwise.
	Dependent *DependentBounds `json:"dependent,omitempty"`
	// DecidedBy says which rule gave the verdict: the order statistics (battery valid), the
	// dependence-aware method, or none (breached and no method applies: INCONCLUSIVE).
	DecidedBy Decider `json:"decided_by"`
	// Verdict is the gate's word: the bounds' verdict when the battery is valid; when it is
	// breached, the dependence-aware bound's if one applies, else INCONCLUSIVE (the protocol
	// says not to apply the order-statistic gate then).
	Verdict  verdict.Word `json:"verdict"`
	Reason   string       `json:"reason"`
	Warnings []string     `json:"warnings,omitempty"`
}

// A Decider names the rule that gave the gate's verdict.
type Decider string

const (
	DecidedByOrderStatistics Decider = "order-statistics" // X(24)/X(37): the battery held
	DecidedByBlockMedians    Decider = Decider(MethodBlockMedians)
	DecidedByNone            Decider = "none" // breached, no method applies: INCONCLUSIVE
)

// LogRatios returns ln r_i.
func LogRatios(ratios []float64) []float64 {
	d := make([]float64, len(ratios))
	for i, r := range ratios {
		d[i] = math.Log(r)
	}
	return d
}

// Analyze runs the battery on ln r in execution order, the order-statistic gate and the
// bootstrap, and combines them into the verdict.
func Analyze(ratios []float64, order []Order, cfg Config) (Analysis, error) {
	if len(order) != len(ratios) {
		return Analysis{}, fmt.Errorf("stats: %d ratios but %d scheduled orders", len(ratios), len(order))
	}
	bounds, err := gateBounds(ratios, cfg.Threshold, cfg.Confidence)
	if err != nil {
		return Analysis{}, err
	}
	d := LogRatios(ratios)
	a := Analysis{
		N:       len(ratios),
		Ratios:  append([]float64(nil), ratios...),
		Order:   append([]Order(nil), order...),
		Bounds:  bounds,
		Battery: RunBattery(d, order, cfg.Battery),
	}
	a.Warnings = append(a.Warnings, bounds.Warnings...)
	switch {
	case a.Battery.Valid:
		a.DecidedBy = DecidedByOrderStatistics
		a.Verdict, a.Reason = bounds.Verdict, bounds.Reason
	case cfg.Dependence == MethodBlockMedians && a.Battery.serialDependenceOnly():
		db, err := blockMedianBounds(ratios, cfg.Threshold, cfg.Confidence)
		if err != nil {
			a.DecidedBy = DecidedByNone
			a.Verdict = inconclusive
			a.Reason = a.Battery.Reason + fmt.Sprintf("; the order-statistic gate is not applied (the bounds alone would say %s) and the dependence-aware bound cannot be computed: %v", bounds.Verdict, err)
			break
		}
		a.Dependent = &db
		a.DecidedBy = DecidedByBlockMedians
		a.Verdict = db.Verdict
		a.Reason = fmt.Sprintf("%s by the dependence-aware bound: %s; the order-statistic gate was not applied because the %s (the bounds alone would say %s)",
			db.Verdict, db.Reason, a.Battery.Reason, bounds.Verdict)
		a.Warnings = append(a.Warnings, db.Warnings...)
	default:
		a.DecidedBy = DecidedByNone
		a.Verdict = inconclusive
		a.Reason = a.Battery.Reason + fmt.Sprintf("; the order-statistic gate is not applied (the bounds alone would say %s)", bounds.Verdict)
		if cfg.Dependence == MethodBlockMedians {
			a.Reason += "; the dependence-aware bound is not applied either: it handles serial dependence, and the order effect breached or a test could not be computed"
		}
	}
	if cfg.Bootstrap.Resamples > 0 {
		bs := pairedBootstrap(d, cfg.Threshold, cfg.Bootstrap, a.Verdict)
		a.Bootstrap = &bs
		if bs.Disagrees {
			a.Warnings = append(a.Warnings, fmt.Sprintf("bootstrap_disagrees: the bootstrap interval [%.4f, %.4f] alone would say %s", bs.Lower, bs.Upper, bs.Verdict))
		}
	}
	return a, nil
}
