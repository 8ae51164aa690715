package campaignreport

import (
	"fmt"
	"strings"

	"kvparity/engine"
	"kvparity/stats"
)

// dependenceMethod says which rule decided the performance verdict (protocol stage 7, step 5):
// the order statistics when the battery held, the row's predeclared dependence-aware method
// with its bounds when the battery breached through serial dependence, or neither. A result
// recorded before the rule was recorded (DecidedBy empty) says nothing here.
func (m *md) dependenceMethod(res *engine.PerfResult) {
	a := res.Analysis
	if a == nil || a.DecidedBy == "" {
		return
	}
	method := res.DependenceMethod
	if method == "" {
		method = stats.MethodInconclusive
	}
	switch a.DecidedBy {
	case stats.DecidedByOrderStatistics:
		m.p("- decided by the order statistics X(%d)/X(%d): the battery held, so the row's predeclared dependence method (`%s`) was not needed",
			a.Bounds.MedianOrders.Lower, a.Bounds.MedianOrders.Upper, method)
	case stats.DecidedByBlockMedians:
		d := a.Dependent
		if d == nil {
			return
		}
		m.p("- decided by the predeclared dependence-aware method (`dependence_method = %q`): %s by the block-median bounds [%s, %s], %s vs %s; the order-statistic gate was not applied because the battery breached through serial dependence only",
			method, d.Verdict, ratio3(d.Lower), ratio3(d.Upper), d.Basis(), ratio3(d.Threshold))
		m.p("- method: the median of each block of consecutive pairs (odd lengths %s, every pair used), block length from the Politis–White rule (automatic %d → %d); the exact order-statistic bounds of the %d block medians, one-sided coverage %.4f%% each for independent blocks; K = #{block median ≤ %s} = %d (stats/blockmedians.go; docs/guide.md \"The dependence-aware method\")",
			blockSizes(d.BlockSizes), d.AutoBlockLength, d.BlockLength, d.Blocks, 100*d.Orders.OneSidedCoverage, ratio3(d.Threshold), d.K)
		medians := make([]string, len(d.BlockMedians))
		for i, v := range d.BlockMedians {
			medians[i] = ratio3(v)
		}
		m.p("- block medians in execution order: %s", strings.Join(medians, ", "))
	case stats.DecidedByNone:
		if method == stats.MethodInconclusive {
			m.p("- not decided: the battery breached and the row predeclares the protocol's literal rule (`dependence_method = \"inconclusive\"`)")
		} else {
			m.p("- not decided: the battery breached, and the predeclared `%s` method does not apply (it handles serial dependence: an order effect, a test that could not be computed, a telemetry rule or too few pairs for its blocks stop it)", method)
		}
	}
}

// blockSizes lists the distinct block lengths: "9" or "9 and 11".
func blockSizes(sizes []int) string {
	var out []string
	for i, s := range sizes {
		if i == 0 || s != sizes[i-1] {
			out = append(out, fmt.Sprint(s))
		}
	}
	return strings.Join(out, " and ")
}
