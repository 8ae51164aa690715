package perf

import (
	"fmt"
	"slices"
	"time"

	"kvparity/ui/text"
)

// An estimate is the stage's time left and what it counts: the processes still to run, the
// reruns the invalidation rate so far implies among them, and that rate.
type estimate struct {
	left   time.Duration
	reruns int     // pair attempts expected to be invalidated and rerun before the last pair is in
	rate   float64 // invalidated pair attempts / all pair attempts so far
}

// String is the progress part: "≈ 4m48s left" and, on a machine that invalidates pairs, the
// reruns that estimate counts, "(≈ 54 reruns at 75% invalidated)".
func (e estimate) String() string {
	s := "≈ " + text.Dur(e.left) + " left"
	if e.reruns > 0 {
		s += fmt.Sprintf(" (≈ %s at %.0f%% invalidated)", text.Plural(e.reruns, "rerun"), 100*e.rate)
	}
	return s
}

// eta estimates the stage's remaining time. The processes still to run are the warmups left
// and both members of every pair not in, each pair taking as many attempts as pairs have taken
// on this machine so far (attempts / valid pairs: the invalidation rate's reruns). A process
// costs the spacing of this stage run's process starts, which counts the backoff after an
// invalidation and the gaps between processes (the median process time before there are three
// starts), and the process in flight has already spent part of it: the estimate counts down.
func (m Model) eta() (estimate, bool) {
	if !m.running || m.summary.Final || (len(m.runTimes) == 0 && len(m.starts) < 3) {
		return estimate{}, false
	}
	done, total := m.warmupsDone, m.warmupTotal
	if m.summary.WarmupsTotal > 0 {
		done, total = 2*m.summary.WarmupsDone, 2*m.summary.WarmupsTotal
	}
	warmups := max(total-done, 0)
	pairs := max(m.pairsTotal-m.pairsDone, 0)
	if warmups+pairs == 0 {
		return estimate{}, false
	}
	var e estimate
	attempts := 1.0
	if n := m.invalidated(); n > 0 {
		valid := max(m.pairsDone, 1)
		attempts = float64(valid+n) / float64(valid)
		e.rate = float64(n) / float64(m.pairsDone+n)
		e.reruns = int(float64(pairs)*(attempts-1) + 0.5)
	}
	runs := float64(warmups) + 2*float64(pairs)*attempts
	per, since := m.processCost()
	left := time.Duration(runs*float64(per)) - since
	e.left = max(left, 0).Round(time.Second)
	return e, true
}

// processCost is what one process costs on this machine and how long ago the newest one
// started (0 when that is not known): the spacing of this stage run's starts once there are
// three, which counts the waits between processes.
// A process never costs less than the median process's own run time.
func (m Model) processCost() (per, since time.Duration) {
	if len(m.runTimes) > 0 {
		times := slices.Clone(m.runTimes)
		slices.Sort(times)
		per = times[len(times)/2]
		if len(times)%2 == 0 {
			per = (times[len(times)/2-1] + per) / 2
		}
	}
	if n := len(m.starts); n >= 3 {
		first, last := m.starts[0], m.starts[n-1]
		per = max(per, last.Sub(first)/time.Duration(n-1))
		if !m.now.IsZero() && m.now.After(last) {
			since = min(m.now.Sub(last), per) // a process slower than usual does not make time run backwards
		}
	}
	return per, since
}
