package driver

import (
	"fmt"
	"io"
	"sync"
	"time"

	"kvparity/engine"
)

// BuildPrinter prints an arm's source build as it goes: every phase, and while compiling a line
// at most every 5 s with the unit count, the crate being compiled and the time so far.
func BuildPrinter(w io.Writer) func(engine.BuildProgress) {
	var mu sync.Mutex
	last := map[engine.Arm]time.Time{}
	phase := map[engine.Arm]string{}
	return func(p engine.BuildProgress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Phase == phase[p.Arm] && p.Phase == "compiling" && time.Since(last[p.Arm]) < 5*time.Second {
			return
		}
		phase[p.Arm], last[p.Arm] = p.Phase, time.Now()
		switch p.Phase {
		case "compiling":
			fmt.Fprintf(w, "build %-9s %s: compiling · %d units built · %s · %s\n", p.Arm, p.Source, p.Units, p.Current, p.Elapsed.Round(time.Second))
		case "rebuilding":
			fmt.Fprintf(w, "build %-9s %s: warning: %s\n", p.Arm, p.Source, p.Warning)
		case "cached":
			fmt.Fprintf(w, "build %-9s %s: cached (built before with the same source, features, toolchain and extension)\n", p.Arm, p.Source)
		case "done":
			fmt.Fprintf(w, "build %-9s %s: done · %d units · %s\n", p.Arm, p.Source, p.Units, p.Elapsed.Round(time.Second))
		default:
			fmt.Fprintf(w, "build %-9s %s: %s · %s\n", p.Arm, p.Source, p.Phase, p.Elapsed.Round(time.Second))
		}
	}
}
