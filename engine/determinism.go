package engine

import (
	"fmt"
	"kvparity/verdict"
	"slices"
	"strings"
)

// Protocol stage 2 (determinism) and stage 4 (byte parity). Every repetition is a fresh
// process; up to one per CPU run at once, each pinned to its own CPU, baseline and candidate
// interleaved so that concurrent runs are one of each. Finished repetitions are read back from
// the journal and never rerun; a run that was in flight when kvparity died has a run_start and
// no run_end, and is rerun as its next attempt.

// A RepAttempt is the journal's view of one repetition's latest attempt.
type RepAttempt struct {
	Attempt int
	End     *Record // nil while (or if it died) in flight
}

// Succeeded reports whether a run_end is a finished repetition with a digest.
func Succeeded(end *Record) bool { return end != nil && end.Error == "" && end.Digest != "" }

// An ArmResult is one arm's determinism outcome over its current artifact.
type ArmResult struct {
	Arm     Arm          `json:"arm"`
	Gen     int          `json:"gen"`
	Verdict verdict.Word `json:"verdict"` // STABLE, UNSTABLE, BLOCKED, or Undecided while incomplete
	Reason  string       `json:"reason,omitempty"`
	Runs    []RunID      `json:"runs"`    // the latest attempt of each repetition, in order
	Digests []string     `json:"digests"` // per repetition ("" for a failed or missing one)
	Ends    []Record     `json:"-"`
	// Perturbed lists the perturbed repetitions judged (the whole set first, then each
	// variation tried alone); Finding names what triggers a second digest under them.
	Perturbed []PerturbedRun `json:"perturbed,omitempty"`
	Finding   string         `json:"finding,omitempty"`
}

// ArmResult is an arm's determinism outcome over its current artifact, in hist.
func (h campaignHost) ArmResult(hist *History, arm Arm) ArmResult {
	return hist.ArmResultAt(arm, h.c.Pinned(arm).Gen, h.c.arms.repetitions(arm))
}

// ArmResultAt is the outcome of n repetitions of arm at generation gen, with the row's
// perturbed repetitions once the plain ones agree.
func (h *History) ArmResultAt(arm Arm, gen, n int) ArmResult {
	res := h.PlainResult(arm, gen, n)
	if res.Verdict == verdict.Stable {
		h.perturbedVerdict(&res, gen)
	}
	return res
}

// PerturbedNotRun says why an arm's declared perturbed repetitions did not run and will not
// at this generation ("" when none are declared, some ran, or they may still run). They run
// only once the plain repetitions agree (ArmResultAt): an arm whose plain repetitions already
// disagree shows its leak without perturbation, and the protocol stops it there to diagnose it.
func (r ArmResult) PerturbedNotRun(declared []Variation) string {
	if len(declared) == 0 || len(r.Perturbed) > 0 {
		return ""
	}
	switch r.Verdict {
	case verdict.Unstable:
		return "not run: the plain repetitions already disagree, so the leak shows without perturbation; the protocol stops an unstable revision here to diagnose it"
	case verdict.Blocked:
		return "not run: the plain repetitions are BLOCKED"
	}
	return ""
}

// PlainResult is the outcome of the protocol's n plain repetitions alone.
func (h *History) PlainResult(arm Arm, gen, n int) ArmResult {
	res := ArmResult{Arm: arm, Gen: gen, Verdict: verdict.Undecided}
	att := h.LatestAttempts(arm, gen)
	distinct := []string{}
	complete, done := true, 0
	for rep := 1; rep <= n; rep++ {
		a := att[rep]
		if a.End == nil {
			complete = false
			res.Digests = append(res.Digests, "")
			continue
		}
		done++
		res.Runs = append(res.Runs, a.End.Run)
		res.Ends = append(res.Ends, *a.End)
		res.Digests = append(res.Digests, a.End.Digest)
		if a.End.Error != "" && res.Verdict == verdict.Undecided {
			res.Verdict, res.Reason = verdict.Blocked, fmt.Sprintf("%s: %s", a.End.Run, a.End.Error)
		}
		if a.End.Digest != "" && !slices.Contains(distinct, a.End.Digest) {
			distinct = append(distinct, a.End.Digest)
		}
	}
	switch {
	case res.Verdict != verdict.Undecided:
	case !complete:
		res.Reason = fmt.Sprintf("%d of %d repetitions of generation %d finished", done, n, gen)
	case len(distinct) == 1:
		res.Verdict, res.Reason = verdict.Stable, fmt.Sprintf("one digest %s over %d repetitions", short(distinct[0]), n)
	default:
		parts := make([]string, len(res.Runs))
		for i, r := range res.Runs {
			parts[i] = fmt.Sprintf("%s %s", r, short(res.Digests[i]))
		}
		res.Verdict = verdict.Unstable
		// The reason states what the repetitions showed, never a cause guessed from how they
		// ran (the CPU count): the cause is the diagnosis of the two reports that differ, when
		// one is recorded (h.diagnoses), or a perturbation that isolated it (perturbedVerdict).
		a, b := res.Runs[0], DifferingRun(res)
		on := ""
		if k := len(res.Ends[0].CPUs); k > 1 {
			on = fmt.Sprintf(" on %d CPUs each", k)
		}
		cause := fmt.Sprintf("the diff of %s and %s names the first divergence and its likely source", a, b)
		if d, ok := h.diagnoses[diagnosisKey{arm, gen, a, b}]; ok && d != "" {
			res.Finding = "the diff of " + string(a) + " and " + string(b) + " diagnoses " + d
			cause = res.Finding
		}
		res.Reason = fmt.Sprintf("%d digests over %d repetitions (%s)%s: an entropy leak; %s; stop and diagnose it, never add repetitions to average it away",
			len(distinct), n, strings.Join(parts, ", "), on, cause)
	}
	return res
}

// DifferingRun is the first counted repetition whose digest differs from the first one's.
func DifferingRun(res ArmResult) RunID {
	for i, e := range res.Ends {
		if e.Digest != "" && e.Digest != res.Ends[0].Digest {
			return res.Runs[i]
		}
	}
	return res.Runs[len(res.Runs)-1]
}

// outcome is the result as a verdict with its reason.
func (r ArmResult) outcome() verdict.Outcome {
	return verdict.Outcome{Verdict: r.Verdict, Reason: r.Reason}
}

// ParityResult decides byte parity from both arms' outcomes (Undecided while either is).
func ParityResult(b, cand ArmResult) verdict.Outcome {
	for _, a := range []ArmResult{b, cand} {
		switch a.Verdict {
		case verdict.Unstable:
			return verdict.Of(verdict.Blocked, "%s is UNSTABLE: parity and performance are refused until its entropy leak is fixed", a.Arm)
		case verdict.Blocked:
			return verdict.Of(verdict.Blocked, "%s repetitions failed: %s", a.Arm, a.Reason)
		case verdict.Stable:
		default:
			return verdict.Outcome{Verdict: verdict.Undecided}
		}
	}
	if b.Digests[0] == cand.Digests[0] {
		return verdict.Of(verdict.Pass, "baseline and candidate canonical reports are byte-identical (%s)", short(b.Digests[0]))
	}
	return verdict.Of(verdict.Fail, "canonical reports differ: baseline %s, candidate %s (both reports kept)", short(b.Digests[0]), short(cand.Digests[0]))
}

// Verdict records and publishes a stage verdict (finding: what a determinism verdict found,
// kept in the record's note); false when the journal refused it.
func (h campaignHost) Verdict(st Stage, arm Arm, v verdict.Word, reason, finding string) bool {
	c := h.c
	if _, err := c.journal.Append(Record{Type: RecVerdict, Stage: st, Arm: arm, Verdict: v, Reason: reason, Note: finding}); err != nil {
		c.emit(RowBlocked{Stage: st, Reason: err.Error()})
		return false
	}
	c.emit(StageVerdict{Stage: st, Arm: arm, Verdict: v, Reason: reason, Finding: finding})
	return true
}

// Block records and publishes that the row cannot go on.
func (h campaignHost) Block(st Stage, reason string) {
	c := h.c
	c.journal.Append(Record{Type: RecBlocked, Stage: st, Reason: reason})
	c.emit(RowBlocked{Stage: st, Reason: reason})
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}
