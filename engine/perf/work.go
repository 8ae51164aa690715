package perf

import (
	"fmt"
	"path/filepath"

	"kvparity/engine"
	"kvparity/report"
)

// A workReference is what an arm's timed samples must match.
type workReference struct {
	fp        report.WorkFingerprint
	from      engine.RunID // the canonical repetition, or the first timed sample
	canonical bool
}

// workReferences finds each arm's canonical run fingerprint: the first finished repetition of
// the pinned generation whose evidence has one. Without it, the first fingerprinted sample of
// the series (already recorded, on resume) is the reference.
func (p *perfRun) workReferences(h *engine.History) map[engine.Arm]*workReference {
	refs := map[engine.Arm]*workReference{}
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		att := h.LatestAttempts(arm, p.c.Pinned(arm).Gen)
		for rep := 1; rep <= p.c.Repetitions(arm) && refs[arm] == nil; rep++ {
			end := att[rep].End
			if !engine.Succeeded(end) || end.Evidence == "" {
				continue
			}
			if ev := engine.LoadEvidence(filepath.Join(p.c.Dir(), end.Evidence)); ev != nil && ev.Work != nil {
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
func (p *perfRun) checkWork(smp *engine.PerfSample, raw []byte, timings string) error {
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
		smp.WorkCheck = engine.WorkAgainstSamples
		return nil
	}
	if d, differ := fp.FirstDifference(ref.fp); differ {
		smp.WorkCheck = engine.WorkDiffers
		whose := "its arm's first timed sample " + string(ref.from)
		if ref.canonical {
			whose = "its arm's canonical run " + string(ref.from)
		}
		return fmt.Errorf("the timed run simulated other work than %s: %s (the gate would time work nobody verified; a timed path that is not seeded?); timed {%s}, reference {%s}",
			whose, d, fp, ref.fp)
	}
	smp.WorkCheck = engine.WorkAgainstSamples
	if ref.canonical {
		smp.WorkCheck = engine.WorkAgainstCanonical
	}
	return nil
}
