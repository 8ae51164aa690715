package determinism

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"kvparity/engine"
	"kvparity/verdict"
)

// Protocol stage 2 (determinism) and stage 4 (byte parity). Every repetition is a fresh
// process; up to one per CPU run at once, each pinned to its own CPU, baseline and candidate
// interleaved so that concurrent runs are one of each. Finished repetitions are read back from
// the journal and never rerun; a run that was in flight when kvparity died has a run_start and
// no run_end, and is rerun as its next attempt.

// A repJob is one repetition to run: a plain one, or a perturbed one (kind engine.KindPerturbed,
// rep being the try of its variation set).
type repJob struct {
	arm       engine.Arm
	rep       int
	gen       int
	attempt   int
	kind      engine.RunKind     // "" is engine.KindRepetition
	variation string             // perturbed: "set" or the variation tried alone
	vars      []engine.Variation // perturbed: the variations applied
}

// Start runs (or resumes) the determinism stage and then byte parity.
func Start(c engine.StageHost) error {
	return c.Start(engine.StageDeterminism, func(ctx context.Context) bool { return runDeterminism(ctx, c, nil) })
}

// RerunRepetition reruns one repetition of the current artifacts in a fresh process; the old
// attempt stays in the journal, the new one supersedes it.
func RerunRepetition(c engine.StageHost, id engine.RunID) error {
	r, ok := c.History().StartedRun(id)
	if !ok || r.Kind != engine.KindRepetition {
		return fmt.Errorf("%s is not a determinism repetition of this campaign", id)
	}
	job := &repJob{arm: r.Arm, rep: r.Index, gen: max(r.Gen, 1)}
	if cur := c.Pinned(job.arm); cur.Gen != job.gen || cur.Stale {
		return fmt.Errorf("%s ran a stale %s artifact (generation %d); start the determinism stage to rerun on the current one", id, job.arm, job.gen)
	}
	return c.Start(engine.StageDeterminism, func(ctx context.Context) bool { return runDeterminism(ctx, c, job) })
}

// AddRepetition adds one repetition to an arm and runs it (with the stage's verdicts after).
func AddRepetition(c engine.StageHost, a engine.Arm) error {
	if err := c.AddRepetition(a); err != nil {
		return err
	}
	return Start(c)
}

// runDeterminism runs the missing repetitions (or just `only`), then decides the verdicts.
// It returns whether the stage was cancelled.
func runDeterminism(ctx context.Context, c engine.StageHost, only *repJob) bool {
	if err := c.PrepareArms(); err != nil {
		c.Block(engine.StageDeterminism, err.Error())
		return false
	}
	if only == nil {
		if err := runPreflight(ctx, c); err != nil {
			c.Block(engine.StageDeterminism, err.Error())
			return false
		}
		if ctx.Err() != nil {
			return true
		}
	}
	h := c.History()
	var jobs []repJob
	if only != nil {
		a := h.LatestAttempts(only.arm, only.gen)[only.rep]
		jobs = append(jobs, repJob{arm: only.arm, rep: only.rep, gen: only.gen, attempt: a.Attempt + 1})
	} else {
		gens := map[engine.Arm]int{engine.Baseline: c.Pinned(engine.Baseline).Gen, engine.Candidate: c.Pinned(engine.Candidate).Gen}
		att := map[engine.Arm]map[int]engine.RepAttempt{engine.Baseline: h.LatestAttempts(engine.Baseline, gens[engine.Baseline]), engine.Candidate: h.LatestAttempts(engine.Candidate, gens[engine.Candidate])}
		for rep := 1; rep <= max(c.Repetitions(engine.Baseline), c.Repetitions(engine.Candidate)); rep++ {
			for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
				if rep > c.Repetitions(arm) {
					continue
				}
				a := att[arm][rep]
				if engine.Succeeded(a.End) {
					continue
				}
				jobs = append(jobs, repJob{arm: arm, rep: rep, gen: gens[arm], attempt: a.Attempt + 1})
			}
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Each repetition gets its own CPU set: one CPU, or the size a preflight measured (the same
	// for both arms).
	cpuSet := c.CPUs()
	k := min(h.CPUsPerRun(map[engine.Arm]int{engine.Baseline: max(c.Pinned(engine.Baseline).Gen, 1), engine.Candidate: max(c.Pinned(engine.Candidate).Gen, 1)}), len(cpuSet))
	cpus := make(chan []int, len(cpuSet))
	for i := 0; i+k <= len(cpuSet); i += k {
		cpus <- cpuSet[i : i+k]
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
			if err := runRepetition(ctx, c, job, cpu); err != nil {
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
		ioFatal = runPerturbed(ctx, c)
	}
	if ioFatal != nil {
		c.Block(engine.StageDeterminism, ioFatal.Error())
		return false
	}
	if ctx.Err() != nil {
		return true
	}
	decide(c)
	return false
}

// runRepetition runs one repetition and records it. The only error it returns is a failure to
// record (a full disk): a failing replay is recorded as that run's error.
func runRepetition(ctx context.Context, c engine.StageHost, job repJob, cpus []int) error {
	id := job.id()
	kind := job.kind
	if kind == "" {
		kind = engine.KindRepetition
	}
	spec := c.RunSpec(id, job.arm, kind, job.rep, job.attempt, true)
	spec.CPUs = cpus
	base := engine.Record{Run: id, Arm: job.arm, Kind: kind, Index: job.rep, Attempt: job.attempt, Gen: job.gen}
	if kind == engine.KindPerturbed {
		engine.ApplyVariations(&spec, job.vars, cpus, c.CPUs())
		base.Variation, base.Variations = job.variation, job.vars
	}
	res, startErr := c.RecordedRun(ctx, spec, base, nil)
	if startErr != nil {
		return startErr
	}
	if res.Cancelled {
		// Not recorded as an end: the repetition is rerun as its next attempt, like a crash.
		c.Emit(engine.RunFinished{Run: id, Arm: job.arm, Kind: kind, ExitCode: res.ExitCode, Signal: res.Signal, Elapsed: res.Elapsed, Err: res.Err})
		return nil
	}
	end := engine.EndRecord(base, res)
	runErr := res.Err
	var out engine.RepOutput
	if runErr == nil {
		var err error
		out, err = c.ReadRepetition(spec)
		if engine.StopsTheStage(err) { // a full disk, or the row's [canonical] profile does not fit: block, do not spend runs
			return err
		}
		runErr = err
	}
	if runErr != nil {
		end.Error = runErr.Error()
	} else {
		end.Digest, end.FixedPoint, end.ReportPath, end.Evidence = out.Digest, out.FixedPoint, out.ReportRel, out.EvidenceRel
	}
	if err := c.Append(end); err != nil {
		return err
	}
	c.EmitEnd(end, out.Evidence)
	return nil
}

// decide records and publishes the per-arm and parity verdicts, then deletes the full reports
// that matched (their digests stay in the journal) and keeps the ones a diff needs.
func decide(c engine.StageHost) {
	h := c.History()
	b, cand := c.ArmResult(h, engine.Baseline), c.ArmResult(h, engine.Candidate)
	if db, dc := diagnose(c, h, b), diagnose(c, h, cand); db || dc {
		h = c.History() // the reason quotes the diagnosis just recorded
		b, cand = c.ArmResult(h, engine.Baseline), c.ArmResult(h, engine.Candidate)
	}
	for _, a := range []engine.ArmResult{b, cand} {
		if !a.Verdict.Decided() {
			continue
		}
		if !c.Verdict(engine.StageDeterminism, a.Arm, a.Verdict, a.Reason, a.Finding) {
			return
		}
	}
	parity := engine.ParityResult(b, cand)
	if !parity.Verdict.Decided() {
		return
	}
	if !c.Verdict(engine.StageParity, "", parity.Verdict, parity.Reason, "") {
		return
	}
	if parity.Verdict == verdict.Blocked {
		c.Emit(engine.RowBlocked{Stage: engine.StageParity, Reason: parity.Reason})
	}
	pruneReports(c, b, cand, parity.Verdict)
}

// pruneReports applies stage 4's retention: matching full reports are deleted; both arms'
// reports are kept when parity fails, and every report of an UNSTABLE (or failed) arm. The
// baseline's first report always stays: it is what a later generation of the candidate (a
// rebuild in watch mode, the desk loop) is diffed against, and the baseline is never rerun.
func pruneReports(c engine.StageHost, b, cand engine.ArmResult, parity verdict.Word) {
	var gone []engine.RunID
	for _, a := range []engine.ArmResult{b, cand} {
		if a.Verdict != verdict.Stable {
			continue // keep everything of an unstable or failed arm
		}
		for i, end := range a.Ends {
			keepOne := i == 0 && (parity != verdict.Pass || a.Arm == engine.Baseline) // one report per arm for the diff
			if keepOne || end.ReportPath == "" {
				continue
			}
			if err := os.Remove(filepath.Join(c.Dir(), end.ReportPath)); err == nil || os.IsNotExist(err) {
				gone = append(gone, end.Run)
			}
		}
		for _, p := range a.Perturbed { // a STABLE arm's perturbed reports all matched
			if p.ReportPath == "" {
				continue
			}
			if err := os.Remove(filepath.Join(c.Dir(), p.ReportPath)); err == nil || os.IsNotExist(err) {
				gone = append(gone, p.Run)
			}
		}
	}
	if len(gone) > 0 {
		c.Append(engine.Record{Type: engine.RecReportsGone, Runs: gone, Note: "matching full reports deleted; digests kept"})
	}
}

// diagnose records the diagnosis of an UNSTABLE arm's two differing repetitions once, when
// the campaign has a diagnoser and both full reports are there; it reports whether it
// recorded one (the arm's reason changes: decide it again).
func diagnose(c engine.StageHost, h *engine.History, res engine.ArmResult) bool {
	if c.Diagnoser() == nil || res.Verdict != verdict.Unstable || len(res.Perturbed) > 0 || len(res.Runs) < 2 {
		return false
	}
	a, b := res.Runs[0], engine.DifferingRun(res)
	if h.Diagnosed(res.Arm, res.Gen, a, b) {
		return false
	}
	var pa, pb string
	for _, e := range res.Ends {
		switch e.Run {
		case a:
			pa = e.ReportPath
		case b:
			pb = e.ReportPath
		}
	}
	if pa == "" || pb == "" {
		return false
	}
	words, err := c.Diagnoser()(filepath.Join(c.Dir(), pa), filepath.Join(c.Dir(), pb))
	words = strings.TrimSpace(words)
	if err != nil || words == "" {
		return false
	}
	err = c.Append(engine.Record{Type: engine.RecDiagnosis, Arm: res.Arm, Gen: res.Gen, Runs: []engine.RunID{a, b}, Note: words})
	return err == nil
}

// id names the job's run.
func (j repJob) id() engine.RunID {
	if j.kind == engine.KindPerturbed {
		return engine.PerturbedID(j.arm, j.variation, j.rep, j.gen, j.attempt)
	}
	return engine.RepetitionID(j.arm, j.rep, j.gen, j.attempt)
}
