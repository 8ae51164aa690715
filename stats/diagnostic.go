package stats

import "fmt"

// An Outcome is what one predeclared dependence test concluded.
type Outcome string

const (
	OutcomeOK       Outcome = "ok"
	OutcomeBreached Outcome = "breached"
	// OutcomeNotComputable: the test has no defined statistic on these data (too few values,
	// zero variance, one side of the median empty). Exchangeability is then not shown, so the
	// battery treats it like a breach.
	OutcomeNotComputable Outcome = "not computable"
)

// A Diagnostic is one dependence test: its statistic, the acceptance region fixed in advance,
// and the outcome. [Low, High] is the acceptance region (inclusive): the test is breached when
// Statistic < Low or Statistic > High; for a one-sided test (OneSided) only High applies.
type Diagnostic struct {
	Name      string  `json:"name"`
	Statistic float64 `json:"statistic"`
	Low       float64 `json:"low"`  // lowest accepted value (unused when OneSided)
	High      float64 `json:"high"` // highest accepted value
	OneSided  bool    `json:"one_sided"`
	Alpha     float64 `json:"alpha"`
	Outcome   Outcome `json:"outcome"`
	Rule      string  `json:"rule"`             // the region in words, e.g. "breach if Q(5) > 15.0863"
	Detail    string  `json:"detail,omitempty"` // auxiliary figures (S, τ, n1/n2 ...)
}

// Breached reports whether this diagnostic stops the order-statistic gate.
func (d Diagnostic) Breached() bool { return d.Outcome != OutcomeOK }

// Threshold is the single critical value closest to the statistic, for one-number displays.
func (d Diagnostic) Threshold() float64 {
	if d.OneSided || d.Statistic >= (d.Low+d.High)/2 {
		return d.High
	}
	return d.Low
}

// judge fills Outcome from the region.
func (d Diagnostic) judge() Diagnostic {
	if d.Statistic > d.High || (!d.OneSided && d.Statistic < d.Low) {
		d.Outcome = OutcomeBreached
	} else {
		d.Outcome = OutcomeOK
	}
	return d
}

func notComputable(name string, alpha float64, why string, args ...any) Diagnostic {
	return Diagnostic{Name: name, Alpha: alpha, Outcome: OutcomeNotComputable, Detail: fmt.Sprintf(why, args...)}
}
