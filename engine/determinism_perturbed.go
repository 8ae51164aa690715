package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"kvparity/verdict"
)

// The determinism stage's preflight and perturbed repetitions (preflight.go, perturb.go), as
// the stage runs them and as the journal's fold judges them.

// SetVariation names the perturbed repetition that applies the row's whole set at once.
const SetVariation = "set"

// PreflightID names an arm's probe: det/<arm>-preflight[-g<gen>][-a<attempt>].
func PreflightID(arm Arm, gen, attempt int) RunID {
	return RunID("det/" + string(arm) + "-preflight" + genAttempt(gen, attempt))
}

// PerturbedID names a perturbed repetition: det/<arm>-perturbed (the whole set) or
// det/<arm>-alone-<variation>-<try>, with the generation and attempt suffixes.
func PerturbedID(arm Arm, variation string, try, gen, attempt int) RunID {
	id := "det/" + string(arm) + "-perturbed"
	if variation != SetVariation {
		id = "det/" + string(arm) + "-alone-" + variation + "-" + strconv.Itoa(try)
	}
	return RunID(id + genAttempt(gen, attempt))
}

func genAttempt(gen, attempt int) string {
	s := ""
	if gen > 1 {
		s += "-g" + strconv.Itoa(gen)
	}
	if attempt > 1 {
		s += "-a" + strconv.Itoa(attempt)
	}
	return s
}

func (h *History) perturbedLog(arm Arm, gen int, variation string) *repLog {
	k := repKey{arm, gen}
	if h.perturbed[k] == nil {
		h.perturbed[k] = map[string]*repLog{}
	}
	l := h.perturbed[k][variation]
	if l == nil {
		l = &repLog{byRun: map[RunID]int{}, latest: map[int]int{}}
		h.perturbed[k][variation] = l
	}
	return l
}

// tries lists the latest attempt of every try of one perturbed set, by try (1-based).
func (h *History) Tries(arm Arm, gen int, variation string) []RepAttempt {
	l := h.perturbed[repKey{arm, gen}][variation]
	if l == nil {
		return nil
	}
	out := make([]RepAttempt, 0, len(l.latest))
	for try := 1; ; try++ {
		idx, ok := l.latest[try]
		if !ok {
			return out
		}
		a := l.all[idx]
		out = append(out, RepAttempt{Attempt: a.Start.Attempt, End: a.End})
	}
}

// Preflight is an arm's single-core probe on its current artifact, if it ran.
func (h *History) Preflight(arm Arm) (Preflight, bool) {
	p, ok := h.preflight[repKey{arm, h.Gen(arm)}]
	return p, ok
}

// CPUsPerRun is the CPU set size both arms' plain repetitions get: one, unless a preflight
// measured more for either arm at its current generation (the same size for both).
func (h *History) CPUsPerRun(gens map[Arm]int) int {
	k := 1
	for _, arm := range []Arm{Baseline, Candidate} {
		if p, ok := h.preflight[repKey{arm, gens[arm]}]; ok && p.Error == "" {
			k = max(k, p.CPUsPerRun)
		}
	}
	return k
}

// A PerturbedRun is one perturbed repetition's outcome, as the report lists it.
type PerturbedRun struct {
	Run        RunID       `json:"run"`
	Variation  string      `json:"variation"` // "set" or the variation tried alone
	Variations []Variation `json:"variations"`
	Digest     string      `json:"digest,omitempty"`
	Error      string      `json:"error,omitempty"`
	Differs    bool        `json:"differs"` // its digest is not the plain repetitions' digest
	ReportPath string      `json:"report_path,omitempty"`
}

// perturbedVerdict folds the perturbed repetitions into an arm whose plain repetitions agree
// (res is STABLE on them): still pending, STABLE under the whole set, BLOCKED when a perturbed
// process failed, or UNSTABLE naming what triggers the second digest.
func (h *History) perturbedVerdict(res *ArmResult, gen int) {
	set := h.row.Determinism.Perturbations
	if len(set) == 0 {
		return
	}
	plain := res.Digests[0]
	run := func(variation string, a RepAttempt) PerturbedRun {
		e := a.End
		pr := PerturbedRun{Run: e.Run, Variation: variation, Variations: e.Variations, Digest: e.Digest, Error: e.Error, ReportPath: e.ReportPath}
		pr.Differs = e.Error == "" && e.Digest != "" && e.Digest != plain
		return pr
	}
	whole := h.Tries(res.Arm, gen, SetVariation)
	if len(whole) == 0 || whole[0].End == nil {
		res.Verdict = verdict.Undecided
		res.Reason = fmt.Sprintf("%d plain repetitions agree (%s); the perturbed repetition (%s) has not run", len(res.Digests), short(plain), JoinVariations(set))
		return
	}
	w := run(SetVariation, whole[0])
	res.Perturbed = append(res.Perturbed, w)
	if w.Error != "" {
		res.Verdict = verdict.Blocked
		res.Reason = fmt.Sprintf("%s (perturbed: %s) failed: %s", w.Run, JoinVariations(w.Variations), w.Error)
		return
	}
	if !w.Differs {
		res.Reason = fmt.Sprintf("one digest %s over %d repetitions and the perturbed repetition (%s)", short(plain), len(res.Digests), JoinVariations(set))
		return
	}
	// The whole set gives a second digest: UNSTABLE. Name the variations that reproduce it alone.
	var triggers, quiet []string
	pending := false
	for _, v := range set {
		tries := h.Tries(res.Arm, gen, string(v))
		hit := false
		for _, t := range tries {
			if t.End == nil {
				continue
			}
			pr := run(string(v), t)
			res.Perturbed = append(res.Perturbed, pr)
			hit = hit || pr.Differs
		}
		switch {
		case hit:
			triggers = append(triggers, string(v))
		case len(tries) < VariationTries(v) || (len(tries) > 0 && tries[len(tries)-1].End == nil):
			pending = true
		default:
			quiet = append(quiet, string(v))
		}
	}
	res.Verdict = verdict.Unstable
	res.Finding = findingOf(triggers, quiet, pending)
	res.Reason = fmt.Sprintf("the %d plain repetitions agree (%s), but the perturbed repetition %s gave %s: %s; an entropy leak that one-CPU pinning hides: stop and diagnose it (the diff shows the plain report against the perturbed one), never add repetitions to average it away",
		len(res.Digests), short(plain), w.Run, short(w.Digest), res.Finding)
}

// findingOf says which variations trigger the second digest, in the protocol's words.
func findingOf(triggers, quiet []string, pending bool) string {
	switch {
	case len(triggers) > 0:
		var deps []string
		for _, t := range triggers {
			if d := Variation(t).dependence(); !slices.Contains(deps, d) {
				deps = append(deps, d)
			}
		}
		s := "differs only with " + strings.Join(triggers, ", ") + ": " + strings.Join(deps, "; ")
		if pending {
			s += " (other variations still being tried alone)"
		}
		return s
	case pending:
		return "differs under the whole set of variations; each is being tried alone to name the trigger"
	default:
		return "differs under the whole set of variations, and none of " + strings.Join(quiet, ", ") + " reproduced it alone (an interaction of variations, or an intermittent leak)"
	}
}

// JoinVariations lists variations by name ("all-cores, tz").
func JoinVariations(vs []Variation) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}
