package ui

import (
	"fmt"
	"time"

	"kvparity/engine"
)

// onRebuild shows watch mode rebuilding a checkout arm: each phase is logged once, and while
// cargo compiles the status line follows it (units, the crate, the time) without filling the
// log, until the re-pin (ArtifactChanged) or a failure (RowBlocked) says how it ended.
func (m *Model) onRebuild(ev engine.BuildProgress) {
	what := fmt.Sprintf("rebuilding the %s from %s", ev.Arm, ev.Source)
	switch ev.Phase {
	case "compiling":
		line := fmt.Sprintf("%s: compiling · %d units · %s · %s", what, ev.Units, ev.Current, ev.Elapsed.Round(time.Second))
		if m.rebuildPhase != "compiling" {
			m.say(line)
		} else if !m.status.problem {
			m.status = news(line)
		}
	case "rebuilding":
		m.say(what + ": " + ev.Warning)
	case "cached":
		m.say(what + ": found in the build cache (built before)")
	case "done":
		m.say(fmt.Sprintf("%s: built · %d units compiled · %s", what, ev.Units, ev.Elapsed.Round(time.Second)))
	default:
		if ev.Phase != m.rebuildPhase {
			m.say(what + ": " + ev.Phase)
		}
	}
	m.rebuildPhase = ev.Phase
}
