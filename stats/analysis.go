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
}

// DefaultConfig is the protocol's gate: threshold 1.05, one-sided 95% bounds, the default
// battery and a bootstrap seeded from the schedule seed.
func DefaultConfig(seed uint64) Config {
	return Config{Threshold: 1.05, Confidence: 0.95, Battery: DefaultBattery, Bootstrap: DefaultBootstrap(seed)}
}

// Analysis is the full result of the paired gate on one series of ratios.
type Analysis struct {
	N         int        `json:"n"`
	Ratios    []float64  `json:"ratios"` // r_i = candidate/baseline, in execution order
	Order     []Order    `json:"order"`
	Bounds    Bounds     `json:"bounds"`
	Battery   Battery    `json:"battery"`
	Bootstrap *Bootstrap `json:"bootstrap,omitempty"`
	// Verdict is the gate's word: the bounds' verdict when the battery is valid, INCONCLUSIVE
	// otherwise (the protocol says not to apply the order-statistic gate then).
	Verdict  verdict.Word `json:"verdict"`
	Reason   string       `json:"reason"`
	Warnings []string     `json:"warnings,omitempty"`
}

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
	bounds, err := GateBounds(ratios, cfg.Threshold, cfg.Confidence)
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
	if a.Battery.Valid {
		a.Verdict, a.Reason = bounds.Verdict, bounds.Reason
	} else {
		a.Verdict = Inconclusive
		a.Reason = a.Battery.Reason + fmt.Sprintf("; the order-statistic gate is not applied (the bounds alone would say %s)", bounds.Verdict)
	}
	if cfg.Bootstrap.Resamples > 0 {
		bs := PairedBootstrap(d, cfg.Threshold, cfg.Bootstrap, a.Verdict)
		a.Bootstrap = &bs
		if bs.Disagrees {
			a.Warnings = append(a.Warnings, fmt.Sprintf("bootstrap_disagrees: the bootstrap interval [%.4f, %.4f] alone would say %s", bs.Lower, bs.Upper, bs.Verdict))
		}
	}
	return a, nil
}
