package report

import "testing"

// Qualification reads a record's failed rules in two kinds: a flood (too little capacity) and a
// standing failure capacity cannot mend; the band and its exercise are neither.
func TestFloodRulesAndStandingFailuresSplitTheFailedRules(t *testing.T) {
	e := &Evidence{Rules: []Rule{
		{Name: ruleNoCycling, Passed: false},
		{Name: ruleTerminal, Passed: true},
		{Name: rulePressureBand, Passed: false},
		{Name: rulePressureExercise, Passed: false},
		{Name: ruleHandoffs, Passed: false},
		{Name: ruleOverlapRouting, Passed: true},
	}}
	if f := e.FloodRules(); len(f) != 1 || f[0].Name != ruleNoCycling {
		t.Errorf("flood rules %+v", f)
	}
	if s := e.StandingFailures(); len(s) != 1 || s[0].Name != ruleHandoffs {
		t.Errorf("standing failures %+v", s)
	}
}
