package engine

import (
	"strings"
	"testing"

	"kvparity/verdict"
)

// An arm's declared perturbed repetitions that will not run say why, and only then: the
// stage runs them once the plain repetitions agree (ArmResultAt).
func TestPerturbedNotRunSaysWhyOnlyWhenTheyWillNot(t *testing.T) {
	declared := []Variation{varyTZ}
	ran := []PerturbedRun{{Run: "det/candidate~set-1"}}
	for _, c := range []struct {
		name      string
		res       ArmResult
		declared  []Variation
		wantStart string
	}{
		{"unstable", ArmResult{Verdict: verdict.Unstable}, declared, "not run: the plain repetitions already disagree"},
		{"blocked", ArmResult{Verdict: verdict.Blocked}, declared, "not run: the plain repetitions are BLOCKED"},
		{"stable, may still run", ArmResult{Verdict: verdict.Stable}, declared, ""},
		{"undecided", ArmResult{Verdict: verdict.Undecided}, declared, ""},
		{"off", ArmResult{Verdict: verdict.Unstable}, nil, ""},
		{"ran", ArmResult{Verdict: verdict.Unstable, Perturbed: ran}, declared, ""},
	} {
		got := c.res.PerturbedNotRun(c.declared)
		if (c.wantStart == "") != (got == "") || !strings.HasPrefix(got, c.wantStart) {
			t.Errorf("%s: %q, want %q…", c.name, got, c.wantStart)
		}
	}
}
