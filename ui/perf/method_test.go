package perf

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"kvparity/engine"
	"kvparity/ui/theme"
)

// When the battery breached and the row's dependence-aware method decided, the pane shows that
// method's bounds and what they are, not the order statistics the gate did not apply.
func TestDependenceAwareBoundIsShownWhenItDecided(t *testing.T) {
	reason := "PASS by the dependence-aware bound: upper bound X(6) of 6 block medians (blocks of 9–11 pairs) = 1.0120 ≤ 1.05; the order-statistic gate was not applied because the dependence diagnostics breached: lag-1 autocorrelation r1 = 0.43"
	m := New(theme.NewStyles(true, false), 60, 5, 1.05)
	m = apply(m, engine.PerfSummary{Done: 60, Total: 60, Median: 1.004, Final: true, Lower: 0.990, Upper: 1.011,
		LowerOrder: 24, UpperOrder: 37, Verdict: "PASS", Reason: reason,
		DependenceMethod: "block-medians", DecidedBy: "block-medians", DecidedLower: 0.985, DecidedUpper: 1.012,
		DecidedBasis: "X(1), X(6) of 6 block medians (blocks of 9–11 pairs)",
		Diagnostics:  []engine.Diagnostic{{Name: "lag-1 r", Statistic: 0.43, Threshold: 0.31, Breached: true}}})
	m.SetSize(400, 8)
	s := ansi.Strip(m.View())
	for _, want := range []string{"dependence-aware bounds [0.985, 1.012] (X(1), X(6) of 6 block medians (blocks of 9–11 pairs)) vs 1.05 → perf PASS",
		"PASS by the dependence-aware bound", "the order-statistic gate was not applied because"} {
		if !strings.Contains(s, want) {
			t.Fatalf("view lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "order stats 24, 37") {
		t.Fatalf("the unapplied order statistics are shown as the bounds:\n%s", s)
	}

	// The literal rule: the order statistics are shown as not applied.
	m = New(theme.NewStyles(true, false), 60, 5, 1.05)
	m = apply(m, engine.PerfSummary{Done: 60, Total: 60, Median: 1.004, Final: true, Lower: 0.990, Upper: 1.011,
		LowerOrder: 24, UpperOrder: 37, Verdict: "INCONCLUSIVE", Reason: "dependence diagnostics breached",
		DependenceMethod: "inconclusive", DecidedBy: "none"})
	m.SetSize(400, 8)
	if s := ansi.Strip(m.View()); !strings.Contains(s, "bounds [0.990, 1.011] (order stats 24, 37 of 60) not applied vs 1.05 → perf INCONCLUSIVE") {
		t.Fatalf("literal rule:\n%s", s)
	}
}
