package engine

import (
	"context"
	"errors"
	"fmt"
	"kvparity/engine/run"
	"kvparity/verdict"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"kvparity/report"
)

// Protocol stage 2 (determinism) and stage 4 (byte parity). Every repetition is a fresh
// process; up to one per CPU run at once, each pinned to its own CPU, baseline and candidate
// interleaved so that concurrent runs are one of each. Finished repetitions are read back from
// the journal and never rerun; a run that was in flight when kvparity died has a run_start and
// no run_end, and is rerun as its next attempt.

// A repJob is one repetition to run: a plain one, or a perturbed one (kind KindPerturbed,
// rep being the try of its variation set).
type repJob struct {
	arm       Arm
	rep       int
	gen       int
	attempt   int
	kind      RunKind     // "" is KindRepetition
	variation string      // perturbed: "set" or the variation tried alone
	vars      []Variation // perturbed: the variations applied
}

// id names the job's run.
func (j repJob) id() RunID {
	if j.kind == KindPerturbed {
		return perturbedID(j.arm, j.variation, j.rep, j.gen, j.attempt)
	}
	return repetitionID(j.arm, j.rep, j.gen, j.attempt)
}

// repAttempt is the journal's view of one repetition's latest attempt.
type repAttempt struct {
	attempt int
	end     *Record // nil while (or if it died) in flight
}

// repetitions returns the repetition count of an arm (the row's plus AddRepetition's).
func (c *Campaign) repetitions(arm Arm) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.row.Determinism.Repetitions + c.extra[arm]
}

// succeeded reports whether a run_end is a finished repetition with a digest.
func succeeded(end *Record) bool { return end != nil && end.Error == "" && end.Digest != "" }

// StartDeterminism runs (or resumes) the determinism stage and then byte parity.
func (c *Campaign) StartDeterminism() error {
	return c.startStage(StageDeterminism, func(ctx context.Context) bool { return c.runDeterminism(ctx, nil) })
}

// RerunRepetition reruns one repetition of the current artifacts in a fresh process; the old
// attempt stays in the journal, the new one supersedes it.
func (c *Campaign) RerunRepetition(id RunID) error {
	r, ok := c.history().startedRun(id)
	if !ok || r.Kind != KindRepetition {
		return fmt.Errorf("%s is not a determinism repetition of this campaign", id)
	}
	job := &repJob{arm: r.Arm, rep: r.Index, gen: max(r.Gen, 1)}
	if cur := c.Pinned(job.arm); cur.Gen != job.gen || cur.Stale {
		return fmt.Errorf("%s ran a stale %s artifact (generation %d); start the determinism stage to rerun on the current one", id, job.arm, job.gen)
	}
	return c.startStage(StageDeterminism, func(ctx context.Context) bool { return c.runDeterminism(ctx, job) })
}

// AddRepetition adds one repetition to an arm and runs it (with the stage's verdicts after).
func (c *Campaign) AddRepetition(a Arm) error {
	if a != Baseline && a != Candidate {
		return fmt.Errorf("no arm %q", a)
	}
	if err := c.refusal(); err != nil {
		return err
	}
	if c.Running() {
		return errors.New("a stage is running; stop it first")
	}
	n := c.repetitions(a) + 1
	if _, err := c.journal.Append(Record{Type: recAddRep, Arm: a, Index: n}); err != nil {
		return err
	}
	c.mu.Lock()
	c.extra[a]++
	c.mu.Unlock()
	return c.StartDeterminism()
}

// runDeterminism runs the missing repetitions (or just `only`), then decides the verdicts.
// It returns whether the stage was cancelled.
func (c *Campaign) runDeterminism(ctx context.Context, only *repJob) bool {
	if err := c.prepareArms(); err != nil {
		c.block(StageDeterminism, err.Error())
		return false
	}
	if only == nil {
		if err := c.runPreflight(ctx); err != nil {
			c.block(StageDeterminism, err.Error())
			return false
		}
		if ctx.Err() != nil {
			return true
		}
	}
	h := c.history()
	var jobs []repJob
	if only != nil {
		a := h.latestAttempts(only.arm, only.gen)[only.rep]
		jobs = append(jobs, repJob{arm: only.arm, rep: only.rep, gen: only.gen, attempt: a.attempt + 1})
	} else {
		gens := map[Arm]int{Baseline: c.Pinned(Baseline).Gen, Candidate: c.Pinned(Candidate).Gen}
		att := map[Arm]map[int]repAttempt{Baseline: h.latestAttempts(Baseline, gens[Baseline]), Candidate: h.latestAttempts(Candidate, gens[Candidate])}
		for rep := 1; rep <= max(c.repetitions(Baseline), c.repetitions(Candidate)); rep++ {
			for _, arm := range []Arm{Baseline, Candidate} {
				if rep > c.repetitions(arm) {
					continue
				}
				a := att[arm][rep]
				if succeeded(a.end) {
					continue
				}
				jobs = append(jobs, repJob{arm: arm, rep: rep, gen: gens[arm], attempt: a.attempt + 1})
			}
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Each repetition gets its own CPU set: one CPU, or the size a preflight measured (the same
	// for both arms).
	k := min(h.cpusPerRun(map[Arm]int{Baseline: max(c.Pinned(Baseline).Gen, 1), Candidate: max(c.Pinned(Candidate).Gen, 1)}), len(c.cpus))
	cpus := make(chan []int, len(c.cpus))
	for i := 0; i+k <= len(c.cpus); i += k {
		cpus <- c.cpus[i : i+k]
	}
	var (
		wg      sync.WaitGroup
		ioMu    sync.Mutex
		ioFatal error
	)
	for _, job := range jobs {
		var cpu []int
		select {
		case cpu = <-cpus:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { cpus <- cpu }()
			if err := c.runRepetition(ctx, job, cpu); err != nil {
				ioMu.Lock()
				if ioFatal == nil {
					ioFatal = err
				}
				ioMu.Unlock()
				cancel() // a campaign write failed: stop, keep what is recorded
			}
		}()
	}
	wg.Wait()
	if ioFatal == nil && ctx.Err() == nil && only == nil {
		ioFatal = c.runPerturbed(ctx)
	}
	if ioFatal != nil {
		c.block(StageDeterminism, ioFatal.Error())
		return false
	}
	if ctx.Err() != nil {
		return true
	}
	c.decide()
	return false
}

// runRepetition runs one repetition and records it. The only error it returns is a failure to
// record (a full disk): a failing replay is recorded as that run's error.
func (c *Campaign) runRepetition(ctx context.Context, job repJob, cpus []int) error {
	id := job.id()
	kind := job.kind
	if kind == "" {
		kind = KindRepetition
	}
	spec := c.runSpec(id, job.arm, kind, job.rep, job.attempt, true)
	spec.CPUs = cpus
	base := Record{Run: id, Arm: job.arm, Kind: kind, Index: job.rep, Attempt: job.attempt, Gen: job.gen}
	if kind == KindPerturbed {
		applyVariations(&spec, job.vars, cpus, c.cpus)
		base.Variation, base.Variations = job.variation, job.vars
	}
	res, startErr := c.recordedRun(ctx, spec, base, nil)
	if startErr != nil {
		return startErr
	}
	if res.Cancelled {
		// Not recorded as an end: the repetition is rerun as its next attempt, like a crash.
		c.emit(RunFinished{Run: id, Arm: job.arm, Kind: kind, ExitCode: res.ExitCode, Signal: res.Signal, Elapsed: res.Elapsed, Err: res.Err})
		return nil
	}
	end := endRecord(base, res)
	runErr := res.Err
	var out repOutput
	if runErr == nil {
		var err error
		out, err = c.readRepetition(spec)
		var ioe errIO
		var rowErr *RowError // the row's [canonical] profile does not fit: block, do not spend runs
		if errors.As(err, &ioe) || errors.As(err, &rowErr) {
			return err
		}
		runErr = err
	}
	if runErr != nil {
		end.Error = runErr.Error()
	} else {
		end.Digest, end.FixedPoint, end.ReportPath, end.Evidence = out.Digest, out.FixedPoint, out.ReportRel, out.EvidenceRel
	}
	if _, err := c.journal.Append(end); err != nil {
		return err
	}
	c.emitEnd(end, out.Evidence)
	return nil
}

// recordedRun runs spec with its start journaled (base as a run_start, with the pid and the
// CPUs read back) and announced (RunStarted), then calls started with the pid. A start the
// journal refused kills the process and is the error returned.
func (c *Campaign) recordedRun(ctx context.Context, spec runSpec, base Record, started func(pid int)) (run.Result, error) {
	var startErr error
	res := c.runner.Run(ctx, spec.Spec, func(pid int, cpus []int) error {
		rec := base
		rec.Type, rec.PID, rec.CPUs = RecRunStart, pid, cpus
		if _, err := c.journal.Append(rec); err != nil {
			startErr = err
			return err
		}
		if started != nil {
			started(pid)
		}
		c.emit(RunStarted{Run: base.Run, Arm: base.Arm, Kind: base.Kind, Repetition: base.Index, Variation: base.Variation, CPUs: cpus, PID: pid, At: time.Now()})
		return nil
	})
	return res, startErr
}

// endRecord is base's run_end for a process that ended (its error is the caller's to set:
// a clean exit may still have bad outputs).
func endRecord(base Record, res run.Result) Record {
	end := base
	end.Type, end.PID, end.CPUs = RecRunEnd, res.PID, res.CPUs
	end.ExitCode, end.Signal, end.TimedOut, end.ElapsedMs = res.ExitCode, res.Signal, res.TimedOut, float64(res.Elapsed.Microseconds())/1000
	return end
}

// emitEnd publishes a recorded run_end (live, or replayed from the journal on open).
func (c *Campaign) emitEnd(end Record, evidence *report.Evidence) {
	var err error
	if end.Error != "" {
		err = errors.New(end.Error)
	}
	c.emit(RunFinished{Run: end.Run, Arm: end.Arm, Kind: end.Kind, ExitCode: end.ExitCode, Signal: end.Signal,
		TimedOut: end.TimedOut, Elapsed: time.Duration(end.ElapsedMs * float64(time.Millisecond)), Err: err})
	if end.Digest == "" {
		return
	}
	c.emit(DigestReady{Run: end.Run, Arm: end.Arm, Repetition: end.Index, Digest: end.Digest,
		ReportPath: filepath.Join(c.dir, end.ReportPath), FixedPoint: end.FixedPoint})
	if evidence == nil && end.Evidence != "" {
		evidence = loadEvidence(filepath.Join(c.dir, end.Evidence))
	}
	if evidence != nil {
		c.emit(CoverageReady{Run: end.Run, Arm: end.Arm, Evidence: evidence})
		for _, p := range evidence.Pressure {
			c.emit(PressureEvent{Run: end.Run, Record: p})
		}
	}
}

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

// history folds the journal as it stands.
func (c *Campaign) history() *History { return FoldJournal(c.journal.Records(), c.row) }

// armResult is an arm's determinism outcome over its current artifact.
func (c *Campaign) armResult(h *History, arm Arm) ArmResult {
	return h.armResultAt(arm, c.Pinned(arm).Gen, c.repetitions(arm))
}

// armResultAt is the outcome of n repetitions of arm at generation gen, with the row's
// perturbed repetitions once the plain ones agree.
func (h *History) armResultAt(arm Arm, gen, n int) ArmResult {
	res := h.plainResult(arm, gen, n)
	if res.Verdict == verdict.Stable {
		h.perturbedVerdict(&res, gen)
	}
	return res
}

// plainResult is the outcome of the protocol's n plain repetitions alone.
func (h *History) plainResult(arm Arm, gen, n int) ArmResult {
	res := ArmResult{Arm: arm, Gen: gen, Verdict: verdict.Undecided}
	att := h.latestAttempts(arm, gen)
	distinct := []string{}
	complete, done := true, 0
	for rep := 1; rep <= n; rep++ {
		a := att[rep]
		if a.end == nil {
			complete = false
			res.Digests = append(res.Digests, "")
			continue
		}
		done++
		res.Runs = append(res.Runs, a.end.Run)
		res.Ends = append(res.Ends, *a.end)
		res.Digests = append(res.Digests, a.end.Digest)
		if a.end.Error != "" && res.Verdict == verdict.Undecided {
			res.Verdict, res.Reason = verdict.Blocked, fmt.Sprintf("%s: %s", a.end.Run, a.end.Error)
		}
		if a.end.Digest != "" && !slices.Contains(distinct, a.end.Digest) {
			distinct = append(distinct, a.end.Digest)
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
		a, b := res.Runs[0], differingRun(res)
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

// differingRun is the first counted repetition whose digest differs from the first one's.
func differingRun(res ArmResult) RunID {
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

// parityResult decides byte parity from both arms' outcomes (Undecided while either is).
func parityResult(b, cand ArmResult) verdict.Outcome {
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

// decide records and publishes the per-arm and parity verdicts, then deletes the full reports
// that matched (their digests stay in the journal) and keeps the ones a diff needs.
func (c *Campaign) decide() {
	h := c.history()
	b, cand := c.armResult(h, Baseline), c.armResult(h, Candidate)
	if db, dc := c.diagnose(h, b), c.diagnose(h, cand); db || dc {
		h = c.history() // the reason quotes the diagnosis just recorded
		b, cand = c.armResult(h, Baseline), c.armResult(h, Candidate)
	}
	for _, a := range []ArmResult{b, cand} {
		if !a.Verdict.Decided() {
			continue
		}
		if !c.verdictWith(StageDeterminism, a.Arm, a.Verdict, a.Reason, a.Finding) {
			return
		}
	}
	parity := parityResult(b, cand)
	if !parity.Verdict.Decided() {
		return
	}
	if !c.verdict(StageParity, "", parity.Verdict, parity.Reason) {
		return
	}
	if parity.Verdict == verdict.Blocked {
		c.emit(RowBlocked{Stage: StageParity, Reason: parity.Reason})
	}
	c.pruneReports(b, cand, parity.Verdict)
}

// pruneReports applies stage 4's retention: matching full reports are deleted; both arms'
// reports are kept when parity fails, and every report of an UNSTABLE (or failed) arm. The
// baseline's first report always stays: it is what a later generation of the candidate (a
// rebuild in watch mode, the desk loop) is diffed against, and the baseline is never rerun.
func (c *Campaign) pruneReports(b, cand ArmResult, parity verdict.Word) {
	var gone []RunID
	for _, a := range []ArmResult{b, cand} {
		if a.Verdict != verdict.Stable {
			continue // keep everything of an unstable or failed arm
		}
		for i, end := range a.Ends {
			keepOne := i == 0 && (parity != verdict.Pass || a.Arm == Baseline) // one report per arm for the diff
			if keepOne || end.ReportPath == "" {
				continue
			}
			if err := os.Remove(filepath.Join(c.dir, end.ReportPath)); err == nil || os.IsNotExist(err) {
				gone = append(gone, end.Run)
			}
		}
		for _, p := range a.Perturbed { // a STABLE arm's perturbed reports all matched
			if p.ReportPath == "" {
				continue
			}
			if err := os.Remove(filepath.Join(c.dir, p.ReportPath)); err == nil || os.IsNotExist(err) {
				gone = append(gone, p.Run)
			}
		}
	}
	if len(gone) > 0 {
		c.journal.Append(Record{Type: recReportsGone, Runs: gone, Note: "matching full reports deleted; digests kept"})
	}
}

// verdict records and publishes a stage verdict; false when the journal refused it.
func (c *Campaign) verdict(st Stage, arm Arm, v verdict.Word, reason string) bool {
	return c.verdictWith(st, arm, v, reason, "")
}

// verdictWith is verdict with a determinism finding, kept in the record's note.
func (c *Campaign) verdictWith(st Stage, arm Arm, v verdict.Word, reason, finding string) bool {
	if _, err := c.journal.Append(Record{Type: RecVerdict, Stage: st, Arm: arm, Verdict: v, Reason: reason, Note: finding}); err != nil {
		c.emit(RowBlocked{Stage: st, Reason: err.Error()})
		return false
	}
	c.emit(StageVerdict{Stage: st, Arm: arm, Verdict: v, Reason: reason, Finding: finding})
	return true
}

// block records and publishes that the row cannot go on.
func (c *Campaign) block(st Stage, reason string) {
	c.journal.Append(Record{Type: RecBlocked, Stage: st, Reason: reason})
	c.emit(RowBlocked{Stage: st, Reason: reason})
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	return d
}
