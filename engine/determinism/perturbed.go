package determinism

import (
	"context"
	"sync"

	"kvparity/engine"
	"kvparity/verdict"
)

// The perturbed repetitions: after the plain ones agree, each arm's whole set of variations at
// once, then, for an arm whose digest differs under it, each variation alone to name the
// trigger (engine.Variation; the fold judges them: History.ArmResultAt).

// runPerturbed runs, after the plain repetitions, each arm's perturbed repetition (the row's
// whole set at once, both arms together, each on every CPU), then, for an arm whose perturbed
// digest differs, each variation alone, one process at a time, to name the trigger.
func runPerturbed(ctx context.Context, c engine.StageHost) error {
	set := c.Row().Determinism.Perturbations
	if len(set) == 0 {
		return nil
	}
	h := c.History()
	var jobs []repJob
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		gen := max(c.Pinned(arm).Gen, 1)
		if h.PlainResult(arm, gen, c.Repetitions(arm)).Verdict != verdict.Stable {
			continue
		}
		if job, ok := nextTry(h, arm, gen, engine.SetVariation, 1); ok {
			job.vars = set
			jobs = append(jobs, job)
		}
	}
	cpuSet := c.CPUs()
	var wg sync.WaitGroup
	errs := make([]error, len(jobs))
	for i, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = runRepetition(ctx, c, job, []int{cpuSet[i%len(cpuSet)]})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	// Bisect an arm whose whole-set digest differs: each variation alone, up to its tries.
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		for _, v := range set {
			for ctx.Err() == nil {
				h := c.History()
				gen := max(c.Pinned(arm).Gen, 1)
				res := h.ArmResultAt(arm, gen, c.Repetitions(arm))
				if res.Verdict != verdict.Unstable || len(res.Perturbed) == 0 || !res.Perturbed[0].Differs {
					break
				}
				job, ok := nextTry(h, arm, gen, string(v), engine.VariationTries(v))
				if !ok || triedDiffers(res, string(v)) {
					break
				}
				job.vars = []engine.Variation{v}
				if err := runRepetition(ctx, c, job, []int{c.CPUs()[0]}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// nextTry is the next perturbed process of one set: an unfinished try again (its next
// attempt), else a new try while fewer than maxTries ran.
func nextTry(h *engine.History, arm engine.Arm, gen int, variation string, maxTries int) (repJob, bool) {
	tries := h.Tries(arm, gen, variation)
	job := repJob{arm: arm, gen: gen, kind: engine.KindPerturbed, variation: variation}
	if n := len(tries); n > 0 && tries[n-1].End == nil {
		job.rep, job.attempt = n, tries[n-1].Attempt+1
		return job, true
	}
	if len(tries) >= maxTries {
		return job, false
	}
	job.rep, job.attempt = len(tries)+1, 1
	return job, true
}

// triedDiffers says whether a variation tried alone already gave the second digest.
func triedDiffers(res engine.ArmResult, variation string) bool {
	for _, p := range res.Perturbed {
		if p.Variation == variation && p.Differs {
			return true
		}
	}
	return false
}
