package engine

import (
	"fmt"
)

// The gate times the work the digest verified only when every timed sample's work fingerprint
// equals its arm's canonical run's (DESIGN, "Canonical reports"). A real harness seeds routing
// only when it captures a report; the timing extension seeds every replay-bench run and writes
// the fingerprint after the timed call, so a sample that simulated other work is a product
// failure that blocks the row — never an invalidation, never retried.

// How a sample's work was checked (PerfSample.WorkCheck).
const (
	WorkAgainstCanonical = "canonical" // equal to its arm's canonical run
	WorkAgainstSamples   = "samples"   // no canonical run of the arm: equal to its first timed sample
	WorkDiffers          = "differs"   // other work than the reference: the sample's product failure
)

// A WorkTally counts how the measured samples' work was checked (warmups are not measured).
type WorkTally struct {
	Measured  int // measured samples that gave a time, and those whose work differed
	Canonical int // equal to their arm's canonical run
	Unchecked int // no work fingerprint in their timing line
	Differs   int // other work than their reference (each a product failure)
}

func tallyWork(samples []PerfSample) WorkTally {
	var t WorkTally
	for _, s := range samples {
		if s.WorkCheck == WorkDiffers {
			t.Measured++
			t.Differs++
			continue
		}
		if s.Warmup || s.Error != "" || s.Ms <= 0 {
			continue
		}
		t.Measured++
		switch s.WorkCheck {
		case WorkAgainstCanonical:
			t.Canonical++
		case "":
			t.Unchecked++
		}
	}
	return t
}

// Seeded says whether every measured sample did its arm's canonical run's work.
func (t WorkTally) Seeded() bool { return t.Measured > 0 && t.Canonical == t.Measured }

// workScope says what the timed samples simulated, from their recorded checks: the protocol's
// "seeded matched-routing replay-loop parity" only when every measured sample's fingerprint
// equalled its arm's canonical run.
func workScope(samples []PerfSample) string {
	const notProduction = "not production-routing performance"
	t := tallyWork(samples)
	switch {
	case t.Measured == 0:
		return "no timed sample yet: what the timed runs simulate is not established; " + notProduction
	case t.Differs > 0:
		return fmt.Sprintf("timed runs that did other work than the digest verified: %d of %d timed samples' work fingerprints differ from their arm's reference, so no seeded matched-routing parity is established; %s", t.Differs, t.Measured, notProduction)
	case t.Seeded():
		return fmt.Sprintf("seeded matched-routing replay-loop parity (all %d timed samples' work fingerprints equal their arm's canonical run), %s", t.Measured, notProduction)
	case t.Unchecked > 0:
		return fmt.Sprintf("replay-loop timing of work not shown to be the verified work: %d of %d timed samples carry no work fingerprint (a harness without kvparity's timing extension), so seeded matched routing is not established; %s", t.Unchecked, t.Measured, notProduction)
	default:
		return fmt.Sprintf("replay-loop timing; the timed samples of each arm did the same work (%d of %d work fingerprints checked against each other only: an arm had no canonical run to compare with), so their match with the verified digest is not established; %s", t.Measured-t.Canonical, t.Measured, notProduction)
	}
}

// WorkVerified says whether the sample's work fingerprint equalled its arm's canonical run.
func (s PerfSample) WorkVerified() bool { return s.WorkCheck == WorkAgainstCanonical }
