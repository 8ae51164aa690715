package bisect

import (
	"fmt"
	"io"
	"sync"

	"kvparity/driver"
)

// Printer prints each probe's start, its build's phases (as kvparity build does) and its
// judgment to stderr; the probe campaigns' own events are not printed (their journals hold them).
func Printer(w io.Writer) func(Progress) {
	var mu sync.Mutex
	builds := driver.BuildPrinter(w)
	started := map[string]bool{}
	return func(p Progress) {
		switch {
		case p.Build != nil:
			builds(*p.Build)
			return
		case p.Phase == PhaseJudged && p.Step != nil:
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(w, "kvparity bisect: step %d %.12s %s: %s\n", p.Step.N, p.Commit, p.Step.Outcome, p.Step.Why)
			return
		case p.Phase == PhaseBuilding, p.Phase == PhaseRunning && p.Event == nil:
			mu.Lock()
			defer mu.Unlock()
			if !started[p.Phase+p.Commit] {
				started[p.Phase+p.Commit] = true
				fmt.Fprintf(w, "kvparity bisect: %.12s: %s\n", p.Commit, map[string]string{PhaseBuilding: "building", PhaseRunning: "running its probe campaign"}[p.Phase])
			}
		}
	}
}
