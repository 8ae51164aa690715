package mocker

import (
	"fmt"
	"strconv"
	"strings"
)

// A variant stands in for a code revision of the embedded engine: a known entropy
// leak, a deterministic slowdown, or a principled semantic change. The empty variant is the
// reference engine, byte-identical across processes, machines and GOMAXPROCS.
type variant struct {
	name               string
	executorOrder      bool // same-timestamp passes start in goroutine scheduling order
	childBeforeParent  bool // Stored blocks published from a set: a child may precede its parent
	randomUUID         bool // unseeded v4 request uuids instead of ordinals
	unsortedCandidates bool // router candidates iterated in map order before tie-breaking
	wallclock          bool // a wall-clock value reaches summary.duration_ms
	slowdownPct        int  // extra deterministic work, PCT percent of the replay work
	fifoPreemption     bool // vLLM preempts the oldest running request instead of the newest
	unseededTimed      bool // a run that captures no canonical report breaks ties unseeded
}

// variants lists the names --variant accepts (slowdown-PCT takes any PCT in 1..1000).
var variants = []string{
	"leak-executor-order", "leak-child-before-parent", "leak-random-uuid",
	"leak-unsorted-candidates", "leak-wallclock", "slowdown-PCT", "fifo-preemption", "unseeded-timed",
}

func parseVariant(name string) (variant, error) {
	v := variant{name: name}
	switch {
	case name == "":
	case name == "leak-executor-order":
		v.executorOrder = true
	case name == "leak-child-before-parent":
		v.childBeforeParent = true
	case name == "leak-random-uuid":
		v.randomUUID = true
	case name == "leak-unsorted-candidates":
		v.unsortedCandidates = true
	case name == "leak-wallclock":
		v.wallclock = true
	case name == "fifo-preemption":
		v.fifoPreemption = true
	case name == "unseeded-timed":
		// Dynamo's published harnesses: the canonical selector seed only when a canonical
		// report is captured, so timed runs simulate other (random) work.
		v.unseededTimed = true
	case strings.HasPrefix(name, "slowdown-"):
		pct, err := strconv.Atoi(strings.TrimPrefix(name, "slowdown-"))
		if err != nil || pct < 1 || pct > 1000 {
			return v, fmt.Errorf("--variant %s: slowdown-PCT needs an integer PCT in 1..1000", name)
		}
		v.slowdownPct = pct
	default:
		return v, fmt.Errorf("--variant %q is not known (known: %s)", name, strings.Join(variants, ", "))
	}
	return v, nil
}
