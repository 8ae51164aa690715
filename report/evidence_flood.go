package report

import "slices"

// floodRules are the stage-3 rules whose failure means the capacity is too small for the
// row, not that the revision is wrong: requests cycling between preemption and readmission, a
// count that keeps growing, virtual time that stops, requests never readmitted or never
// completed. Qualification backs off from a capacity that fails one of them.
var floodRules = []string{ruleNoCycling, ruleNoRunaway, ruleVirtualTime, ruleReadmitted, ruleTerminal}

// FloodRules returns the failed rules that make the record a pressure flood (empty when none
// failed).
func (e *Evidence) FloodRules() []Rule {
	var out []Rule
	for _, r := range e.Rules {
		if !r.Passed && slices.Contains(floodRules, r.Name) {
			out = append(out, r)
		}
	}
	return out
}

// StandingFailures returns the failed rules a capacity cannot mend (routing, placement, queue
// accounting, handoffs): neither a flood nor the band or its exercise, which the capacity
// search itself moves.
func (e *Evidence) StandingFailures() []Rule {
	var out []Rule
	for _, r := range e.Rules {
		if !r.Passed && !slices.Contains(floodRules, r.Name) && r.Name != rulePressureBand && r.Name != rulePressureExercise {
			out = append(out, r)
		}
	}
	return out
}

// PressureTotal is the run's pressure events: vLLM preemptions plus SGLang retractions.
func (e *Evidence) PressureTotal() int { return e.PreemptionsTotal + e.RetractionsTotal }

// PressureKind names the row's pressure events ("preemptions", "retractions").
func (e *Evidence) PressureKind() string { return pressureWord(e) }
