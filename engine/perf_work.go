package engine

import (
	"fmt"
	"path/filepath"

	"kvparity/report"
)

// The gate times the work the digest verified only when every timed sample's work fingerprint
// equals its arm's canonical run's (DESIGN, "Canonical reports"). A real harness seeds routing
// only when it captures a report; the timing extension seeds every replay-bench run and writes
// the fingerprint after the timed call, so a sample that simulated other work is a product
// failure that blocks the row — never an invalidation, never retried.

// How a sample's work was checked (PerfSample.WorkCheck).
const (
	workAgainstCanonical = "canonical" // equal to its arm's canonical run
	workAgainstSamples   = "samples"   // no canonical run of the arm: equal to its first timed sample
	workDiffers          = "differs"   // other work than the reference: the sample's product failure
)

// A workReference is what an arm's timed samples must match.
type workReference struct {
	fp        report.WorkFingerprint
	from      RunID // the canonical repetition, or the first timed sample
	canonical bool
}

// workReferences finds each arm's canonical run fingerprint: the first finished repetition of
// the pinned generation whose evidence has one. Without it, the first fingerprinted sample of
// the series (already recorded, on resume) is the reference.
func (p *perfRun) workReferences(h *History) map[Arm]*workReference {
	refs := map[Arm]*workReference{}
	for _, arm := range []Arm{Baseline, Candidate} {
		att := h.LatestAttempts(arm, p.c.Pinned(arm).Gen)
		for rep := 1; rep <= p.c.Repetitions(arm) && refs[arm] == nil; rep++ {
			end := att[rep].End
			if !Succeeded(end) || end.Evidence == "" {
				continue
			}
			if ev := loadEvidence(filepath.Join(p.c.Dir(), end.Evidence)); ev != nil && ev.Work != nil {
				refs[arm] = &workReference{fp: *ev.Work, from: end.Run, canonical: true}
			}
		}
		if refs[arm] != nil {
			continue
		}
		for _, smp := range h.PerfSamples(p.key) {
			if smp.Arm == arm && smp.Work != nil && smp.Error == "" {
				refs[arm] = &workReference{fp: *smp.Work, from: smp.Run}
				break
			}
		}
	}
	return refs
}

// checkWork reads a sample's fingerprint (raw, from its timing line) against its arm's
// reference, filling smp.Work and smp.WorkCheck. A malformed fingerprint or other work is the
// returned product failure; a line without a fingerprint is no failure (a harness without the
// extension), and the performance scope then says the timed work is not shown.
func (p *perfRun) checkWork(smp *PerfSample, raw []byte, timings string) error {
	if raw == nil {
		return nil
	}
	fp, err := report.ParseWorkFingerprint(raw, timings+": line 1")
	if err != nil {
		return fmt.Errorf("malformed timing record %s", err)
	}
	smp.Work = &fp
	ref := p.work[smp.Arm]
	if ref == nil { // the first fingerprint of an arm that has no canonical run
		p.work[smp.Arm] = &workReference{fp: fp, from: smp.Run}
		smp.WorkCheck = workAgainstSamples
		return nil
	}
	if d, differ := fp.FirstDifference(ref.fp); differ {
		smp.WorkCheck = workDiffers
		whose := "its arm's first timed sample " + string(ref.from)
		if ref.canonical {
			whose = "its arm's canonical run " + string(ref.from)
		}
		return fmt.Errorf("the timed run simulated other work than %s: %s (the gate would time work nobody verified; a timed path that is not seeded?); timed {%s}, reference {%s}",
			whose, d, fp, ref.fp)
	}
	smp.WorkCheck = workAgainstSamples
	if ref.canonical {
		smp.WorkCheck = workAgainstCanonical
	}
	return nil
}

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
		if s.WorkCheck == workDiffers {
			t.Measured++
			t.Differs++
			continue
		}
		if s.Warmup || s.Error != "" || s.Ms <= 0 {
			continue
		}
		t.Measured++
		switch s.WorkCheck {
		case workAgainstCanonical:
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
func (s PerfSample) WorkVerified() bool { return s.WorkCheck == workAgainstCanonical }
