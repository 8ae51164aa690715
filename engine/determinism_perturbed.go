package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"kvparity/internal/atomicfile"
	"kvparity/verdict"
)

// The determinism stage's preflight and perturbed repetitions (preflight.go, perturb.go), as
// the stage runs them and as the journal's fold judges them.

// setVariation names the perturbed repetition that applies the row's whole set at once.
const setVariation = "set"

// preflightID names an arm's probe: det/<arm>-preflight[-g<gen>][-a<attempt>].
func preflightID(arm Arm, gen, attempt int) RunID {
	return RunID("det/" + string(arm) + "-preflight" + genAttempt(gen, attempt))
}

// perturbedID names a perturbed repetition: det/<arm>-perturbed (the whole set) or
// det/<arm>-alone-<variation>-<try>, with the generation and attempt suffixes.
func perturbedID(arm Arm, variation string, try, gen, attempt int) RunID {
	id := "det/" + string(arm) + "-perturbed"
	if variation != setVariation {
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
func (h *History) tries(arm Arm, gen int, variation string) []repAttempt {
	l := h.perturbed[repKey{arm, gen}][variation]
	if l == nil {
		return nil
	}
	out := make([]repAttempt, 0, len(l.latest))
	for try := 1; ; try++ {
		idx, ok := l.latest[try]
		if !ok {
			return out
		}
		a := l.all[idx]
		out = append(out, repAttempt{attempt: a.Start.Attempt, end: a.End})
	}
}

// Preflight is an arm's single-core probe on its current artifact, if it ran.
func (h *History) Preflight(arm Arm) (Preflight, bool) {
	p, ok := h.preflight[repKey{arm, h.Gen(arm)}]
	return p, ok
}

// cpusPerRun is the CPU set size both arms' plain repetitions get: one, unless a preflight
// measured more for either arm at its current generation (the same size for both).
func (h *History) cpusPerRun(gens map[Arm]int) int {
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
	run := func(variation string, a repAttempt) PerturbedRun {
		e := a.end
		pr := PerturbedRun{Run: e.Run, Variation: variation, Variations: e.Variations, Digest: e.Digest, Error: e.Error, ReportPath: e.ReportPath}
		pr.Differs = e.Error == "" && e.Digest != "" && e.Digest != plain
		return pr
	}
	whole := h.tries(res.Arm, gen, setVariation)
	if len(whole) == 0 || whole[0].end == nil {
		res.Verdict = verdict.Undecided
		res.Reason = fmt.Sprintf("%d plain repetitions agree (%s); the perturbed repetition (%s) has not run", len(res.Digests), short(plain), JoinVariations(set))
		return
	}
	w := run(setVariation, whole[0])
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
		tries := h.tries(res.Arm, gen, string(v))
		hit := false
		for _, t := range tries {
			if t.end == nil {
				continue
			}
			pr := run(string(v), t)
			res.Perturbed = append(res.Perturbed, pr)
			hit = hit || pr.Differs
		}
		switch {
		case hit:
			triggers = append(triggers, string(v))
		case len(tries) < variationTries(v) || (len(tries) > 0 && tries[len(tries)-1].end == nil):
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

// runPreflight probes each arm whose current artifact has no preflight yet, one at a time and
// alone on the machine's CPUs (each allowed every CPU), so CPU time over wall time measures
// how many CPUs the replay keeps busy.
func (c *Campaign) runPreflight(ctx context.Context) error {
	h := c.history()
	for _, arm := range []Arm{Baseline, Candidate} {
		gen := max(c.Pinned(arm).Gen, 1)
		if _, ok := h.preflight[repKey{arm, gen}]; ok {
			continue
		}
		if err := c.probe(ctx, arm, gen, h.nextAttempt(kindPreflight, arm, gen)); err != nil || ctx.Err() != nil {
			return err
		}
	}
	return nil
}

// preflightRequests is how many requests of the trace window the preflight probe replays.
const preflightRequests = 500

// traceHead is the first n lines of a trace file.
func traceHead(path string, n int) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	end := 0
	for range n {
		k := bytes.IndexByte(data[end:], '\n')
		if k < 0 {
			return data, nil
		}
		end += k + 1
	}
	return data[:end], nil
}

// probe runs one arm's preflight and records it; only a failure to record is returned.
func (c *Campaign) probe(ctx context.Context, arm Arm, gen, attempt int) error {
	id := preflightID(arm, gen, attempt)
	spec := c.runSpec(id, arm, kindPreflight, 1, attempt, true)
	spec.CPUs = slices.Clone(c.cpus)
	// The probe replays the head of the trace window: how a replay spreads its work over
	// threads shows in its first requests, and the whole window would make the preflight cost
	// as much as a repetition.
	head, err := traceHead(c.traceWindow(), preflightRequests)
	if err != nil {
		return errIO{fmt.Errorf("preflight: %w", err)}
	}
	headPath := filepath.Join(spec.Dir, "trace-head.jsonl")
	if err := atomicfile.InsideNoLinks(c.dir, spec.Dir); err != nil {
		return errIO{fmt.Errorf("preflight: %w", err)}
	}
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return errIO{fmt.Errorf("preflight: %w", err)}
	}
	if err := atomicfile.WriteIn(c.dir, headPath, head, 0o644); err != nil {
		return errIO{fmt.Errorf("preflight: %w", err)}
	}
	for i, a := range spec.Args {
		if a == c.traceWindow() {
			spec.Args[i] = headPath
		}
	}
	base := Record{Run: id, Arm: arm, Kind: kindPreflight, Index: 1, Attempt: attempt, Gen: gen}
	var sampler *threadSampler
	res, startErr := c.recordedRun(ctx, spec, base, func(pid int) { sampler = sampleThreads(pid, 10*time.Millisecond) })
	p := Preflight{Arm: arm, Gen: gen, Run: id, CPUs: spec.CPUs}
	if sampler != nil {
		var demandNs int64
		p.Threads, p.BusyThreads, p.MainShare, demandNs = sampler.stop()
		if res.Elapsed > 0 {
			p.Demand = float64(demandNs) / float64(res.Elapsed.Nanoseconds())
		}
	}
	if startErr != nil {
		return startErr
	}
	c.emit(RunFinished{Run: id, Arm: arm, Kind: kindPreflight, ExitCode: res.ExitCode, Signal: res.Signal, Elapsed: res.Elapsed, Err: res.Err})
	if res.Cancelled {
		return nil // probed again on the next start
	}
	end := endRecord(base, res)
	if res.Err != nil {
		end.Error, p.Error = res.Err.Error(), res.Err.Error()
	}
	if _, err := c.journal.Append(end); err != nil {
		return err
	}
	p.CPUMs, p.WallMs = float64(res.CPUTime.Microseconds())/1000, float64(res.Elapsed.Microseconds())/1000
	if p.WallMs > 0 {
		p.Parallelism = p.CPUMs / p.WallMs
	}
	p.VoluntarySwitches, p.InvoluntarySwitches = res.VoluntarySwitches, res.InvoluntarySwitches
	p.judge()
	data, err := json.Marshal(p)
	if err != nil {
		return errIO{fmt.Errorf("preflight: %w", err)}
	}
	if _, err := c.journal.Append(Record{Type: recPreflight, Arm: arm, Gen: gen, Data: data}); err != nil {
		return err
	}
	c.emit(PreflightDone{Preflight: p})
	return nil
}

// runPerturbed runs, after the plain repetitions, each arm's perturbed repetition (the row's
// whole set at once, both arms together, each on every CPU), then, for an arm whose perturbed
// digest differs, each variation alone, one process at a time, to name the trigger.
func (c *Campaign) runPerturbed(ctx context.Context) error {
	set := c.row.Determinism.Perturbations
	if len(set) == 0 {
		return nil
	}
	h := c.history()
	var jobs []repJob
	for _, arm := range []Arm{Baseline, Candidate} {
		gen := max(c.Pinned(arm).Gen, 1)
		if h.plainResult(arm, gen, c.repetitions(arm)).Verdict != verdict.Stable {
			continue
		}
		if job, ok := nextTry(h, arm, gen, setVariation, 1); ok {
			job.vars = set
			jobs = append(jobs, job)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(jobs))
	for i, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.runRepetition(ctx, job, []int{c.cpus[i%len(c.cpus)]})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	// Bisect an arm whose whole-set digest differs: each variation alone, up to its tries.
	for _, arm := range []Arm{Baseline, Candidate} {
		for _, v := range set {
			for ctx.Err() == nil {
				h := c.history()
				gen := max(c.Pinned(arm).Gen, 1)
				res := h.armResultAt(arm, gen, c.repetitions(arm))
				if res.Verdict != verdict.Unstable || len(res.Perturbed) == 0 || !res.Perturbed[0].Differs {
					break
				}
				job, ok := nextTry(h, arm, gen, string(v), variationTries(v))
				if !ok || triedDiffers(res, string(v)) {
					break
				}
				job.vars = []Variation{v}
				if err := c.runRepetition(ctx, job, []int{c.cpus[0]}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// nextTry is the next perturbed process of one set: an unfinished try again (its next
// attempt), else a new try while fewer than maxTries ran.
func nextTry(h *History, arm Arm, gen int, variation string, maxTries int) (repJob, bool) {
	tries := h.tries(arm, gen, variation)
	job := repJob{arm: arm, gen: gen, kind: KindPerturbed, variation: variation}
	if n := len(tries); n > 0 && tries[n-1].end == nil {
		job.rep, job.attempt = n, tries[n-1].attempt+1
		return job, true
	}
	if len(tries) >= maxTries {
		return job, false
	}
	job.rep, job.attempt = len(tries)+1, 1
	return job, true
}

// triedDiffers says whether a variation tried alone already gave the second digest.
func triedDiffers(res ArmResult, variation string) bool {
	for _, p := range res.Perturbed {
		if p.Variation == variation && p.Differs {
			return true
		}
	}
	return false
}
