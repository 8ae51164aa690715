package perf

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kvparity/engine"
	"kvparity/engine/instrument"
	"kvparity/internal/layout"
	"kvparity/stats"
	"kvparity/verdict"
)

// Start runs (or resumes) the performance stage; refused while determinism is not STABLE on
// both arms' current artifacts, and blocked on a desk row (engine.ErrDeskBuild).
func Start(c engine.StageHost) error {
	if err := c.Refusal(); err != nil {
		return err
	}
	switch err := c.PerfAllowed(); {
	case errors.Is(err, engine.ErrDeskBuild): // recorded, so every surface says why the row has no performance verdict
		return c.Start(engine.StagePerf, func(context.Context) bool {
			c.Block(engine.StagePerf, err.Error())
			return false
		})
	case err != nil:
		return err
	}
	return c.Start(engine.StagePerf, func(ctx context.Context) bool {
		if err := c.PrepareArms(); err != nil {
			c.Block(engine.StagePerf, err.Error())
			return false
		}
		if err := c.PerfAllowed(); err != nil { // a source changed since: never reuse a binary
			c.Block(engine.StagePerf, err.Error())
			return false
		}
		return Run(ctx, c)
	})
}

// Protocol stage 7, the paired performance gate: checksums, the footprint gate, the balanced
// schedule, warmups, the pairs, stats.Analyze, in that order. docs/guide.md's "How the
// performance stage runs" says what fails, blocks or invalidates a sample and how a stopped
// stage resumes; the code below keeps those rules where they apply.

// A perfRun is one run of the stage over one series.
type perfRun struct {
	c     engine.StageHost
	opts  options
	key   string
	field string
	proxy bool
	cpu   int
	self  instrument.SelfPlacement
	work  map[engine.Arm]*workReference // what each arm's timed samples must match
	h     *engine.History               // the journal as the stage started on it, plus what the stage folds in (fold)

	caveats []string // said once each, in the result and the final summary
}

func (p *perfRun) caveat(s string) {
	if !slices.Contains(p.caveats, s) {
		p.caveats = append(p.caveats, s)
	}
}

func newPerfRun(c engine.StageHost) *perfRun {
	cpus := c.CPUs()
	p := &perfRun{c: c, opts: options{c.PerfOptions()}, key: engine.PerfKey(c.Pinned(engine.Baseline).Gen, c.Pinned(engine.Candidate).Gen), work: map[engine.Arm]*workReference{},
		field: c.Row().Perf.TimingField, proxy: c.Row().Perf.TimingProxy, cpu: cpus[len(cpus)-1]}
	p.self = instrument.NewSelfPlacement(p.cpu)
	if s := p.self.Caveat(); s != "" {
		p.caveat(s)
	}
	if p.proxy {
		p.caveat(fmt.Sprintf("timing field %s is a declared PROXY for replay_execution_ms, not the protocol's timing boundary", p.field))
	}
	return p
}

// Run is the stage's work inside a started stage (Start calls it once the precondition holds;
// engine's own tests call it to time pairs without a determinism stage before): it runs or
// resumes the series of the current artifacts and returns whether the stage was cancelled.
func Run(ctx context.Context, c engine.StageHost) bool {
	p := newPerfRun(c)
	if err := c.VerifyPinned(); err != nil {
		c.Block(engine.StagePerf, "checksums before warmups: "+err.Error())
		return false
	}
	h := c.History()
	p.h = h
	p.work = p.workReferences(h)
	if r := h.PerfDecided(p.key); r != nil {
		// Decided for these artifacts already: publish it again, never rerun silently.
		p.publishFinal(r)
		return false
	}
	if h.PerfFootprint(p.key) == nil {
		f := instrument.DecideFootprint(c.Pinned(engine.Baseline).Footprint(), c.Pinned(engine.Candidate).Footprint(), c.Row().Perf.FootprintExplained)
		f.Key = p.key
		rec := engine.Record{Type: engine.RecPerfFootprint, Data: engine.MarshalData(f)}
		if err := c.Append(rec); err != nil {
			c.Block(engine.StagePerf, err.Error())
			return false
		}
		if !c.Verdict(engine.StageFootprint, "", f.Verdict, f.Reason, "") {
			return false
		}
		p.fold(rec)
	}
	if h.PerfSchedule(p.key) == nil {
		if err := p.persistSchedule(); err != nil {
			c.Block(engine.StagePerf, err.Error())
			return false
		}
	}
	defer func() {
		if err := p.self.Restore(); err != nil {
			c.Warn(fmt.Sprintf("perf: restoring kvparity's CPU mask: %v", err))
		}
	}()
	if p.opts.IsolateCPU {
		iso, err := instrument.IsolateCPU(p.cpu, c.CPUs())
		switch {
		case err != nil:
			c.Warn("perf: " + err.Error() + "; measuring without isolation")
		default:
			if err := c.Append(engine.Record{Type: engine.RecIsolation, Stage: engine.StagePerf, Data: engine.MarshalData(iso)}); err != nil {
				iso.Undo()
				c.Block(engine.StagePerf, err.Error())
				return false
			}
			p.caveat(iso.Summary())
			c.Emit(engine.LogLine{Run: "perf/isolation", Line: iso.Summary()})
			defer func() {
				if err := iso.Undo(); err != nil {
					c.Warn("perf: " + err.Error())
				}
				c.Append(engine.Record{Type: engine.RecIsolationEnd, Stage: engine.StagePerf, Note: iso.Cgroup})
			}()
		}
	}
	p.loadPreflight(ctx)

	if stop, cancelled := p.warmups(ctx); stop {
		return cancelled
	}
	if stop, cancelled := p.pairs(ctx); stop {
		return cancelled
	}
	res := p.finish(c.History())
	if err := c.Append(engine.Record{Type: engine.RecPerfResult, Data: engine.MarshalData(engine.PerfResultData{Key: p.key, Result: res})}); err != nil {
		c.Block(engine.StagePerf, err.Error())
		return false
	}
	if err := p.export(res); err != nil {
		c.Warn(fmt.Sprintf("perf: writing exports: %v", err))
	}
	if !c.Verdict(engine.StagePerf, "", res.Verdict, res.Reason, "") {
		return false
	}
	p.emitFinal(res)
	return false
}

// fold folds a record the stage appended into its engine.History, so that what it asks next (the
// schedule, the pairs, the invalidations) includes it. Only the stage's own records are folded:
// the samples it resumed from are the ones its running summaries count.
func (p *perfRun) fold(rec engine.Record) { p.h.Add(rec) }

// persistSchedule generates the row's balanced schedule and writes it to schedule.json and the
// journal before any measured pair; the analysis only ever reads it back.
func (p *perfRun) persistSchedule() error {
	seed := uint64(p.c.Row().Perf.ScheduleSeed)
	sched, err := stats.BalancedSchedule(seed, p.c.Row().Perf.Pairs)
	if err != nil {
		return fmt.Errorf("[perf] pairs: %w", err)
	}
	if err := engine.WriteJSONFile(filepath.Join(p.c.Dir(), layout.FileSchedule), engine.PerfScheduleData{Key: p.key, Schedule: sched}); err != nil {
		return fmt.Errorf("schedule.json: %w", err)
	}
	rec := engine.Record{Type: engine.RecPerfSchedule, Data: engine.MarshalData(engine.PerfScheduleData{Key: p.key, Schedule: sched})}
	if err := p.c.Append(rec); err != nil {
		return err
	}
	p.fold(rec)
	return nil
}

// warmups runs the missing warmups, alternating arms. stop is set when the stage must end here.
func (p *perfRun) warmups(ctx context.Context) (stop, cancelled bool) {
	n := p.c.Row().Perf.WarmupsPerArm
	for i := 1; i <= n; i++ {
		for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
			if p.h.PerfWarmupDone(p.key, arm, i) {
				continue
			}
			r := p.runSample(ctx, arm, engine.KindWarmup, i, p.h.PerfWarmupAttempt(p.key, arm, i)+1, "", 0)
			if stop, cancelled := p.settle(r); stop {
				return true, cancelled
			}
		}
		p.emitRunning(i)
	}
	return false, false
}

// pairs runs every pair that has no valid record yet, in schedule order.
func (p *perfRun) pairs(ctx context.Context) (stop, cancelled bool) {
	c := p.c
	sched := p.h.PerfSchedule(p.key)
	for i := 1; i <= len(sched.Pairs); i++ {
		if p.h.PerfPairAt(p.key, i) != nil {
			continue
		}
		order := sched.Pairs[i-1]
		attempt := p.h.PerfPairAttempt(p.key, i)
		if attempt > 0 && !p.h.PerfSettled(p.key, i, attempt) {
			// kvparity stopped (or was killed) mid-pair: that attempt never completed, so it is
			// recorded as such and the whole pair is rerun, keeping its members adjacent.
			inv := engine.PerfInvalidation{Key: p.key, Pair: i, Attempt: attempt, Order: order, Interrupted: true,
				Reason: "interrupted: kvparity stopped before both members finished; the pair is rerun complete in the same order"}
			if !p.recordInvalid(inv) {
				return true, false
			}
		}
		before := p.h.PerfInvalidations(p.key, i)
		for {
			attempt++
			// The limit counts this session's invalidations of the pair, so a campaign blocked on
			// a busy host can be resumed once the host is quiet; the journal keeps them all.
			if n := p.h.PerfInvalidations(p.key, i) - before; n >= p.opts.maxInvalidations() {
				c.Block(engine.StagePerf, fmt.Sprintf("pair %d was invalidated %d times in a row by environmental conditions (last: %s): this node is not fit for measurement now; resume when it is quiet",
					i, n, p.h.PerfLastInvalid(p.key, i)))
				return true, false
			}
			arms := []engine.Arm{engine.Baseline, engine.Candidate}
			if order == stats.CandidateFirst {
				arms = []engine.Arm{engine.Candidate, engine.Baseline}
			}
			var got [2]engine.PerfSample
			for k, arm := range arms {
				r := p.runSample(ctx, arm, engine.KindSample, i, attempt, order, k+1)
				if stop, cancelled := p.settle(r); stop {
					return true, cancelled
				}
				got[k] = r.sample
			}
			var reasons, causes []string
			for _, smp := range got {
				if smp.Env.Invalid != "" {
					reasons = append(reasons, fmt.Sprintf("%s: %s", smp.Run, smp.Env.Invalid))
					if c := invalidityCause(smp.Env.Invalid); !slices.Contains(causes, c) {
						causes = append(causes, c)
					}
				}
			}
			if len(reasons) > 0 {
				inv := engine.PerfInvalidation{Key: p.key, Pair: i, Attempt: attempt, Order: order, Runs: pairRuns(got[0], got[1]),
					Reason: strings.Join(reasons, "; "), Causes: causes}
				if !p.recordInvalid(inv) {
					return true, false
				}
				// Let a burst of competing load pass before the rerun: the pair is rerun
				// complete either way, and waiting changes nothing but the chance it is valid.
				select {
				case <-ctx.Done():
					return true, true
				case <-time.After(p.opts.backoff(p.h.PerfInvalidations(p.key, i) - before)):
				}
				continue
			}
			base, cand := got[0], got[1]
			if base.Arm != engine.Baseline {
				base, cand = cand, base
			}
			pair := engine.PerfPair{Key: p.key, Pair: i, Attempt: attempt, Order: order, BaselineMs: base.Ms, CandidateMs: cand.Ms,
				Ratio: cand.Ms / base.Ms, BaselineRun: base.Run, CandidateRun: cand.Run}
			rec := engine.Record{Type: engine.RecPerfPair, Index: i, Attempt: attempt, Data: engine.MarshalData(pair)}
			if err := c.Append(rec); err != nil {
				c.Block(engine.StagePerf, err.Error())
				return true, false
			}
			p.fold(rec)
			c.Emit(engine.PairEvent(pair, p.h.PerfPairsDone(p.key), len(sched.Pairs)))
			p.emitRunning(p.c.Row().Perf.WarmupsPerArm)
			break
		}
	}
	return false, false
}

// settle turns a sample's end into the stage's next step: stop on cancel, a journal failure or
// a product failure (recording the row's FAIL or BLOCKED verdict).
func (p *perfRun) settle(r sampleResult) (stop, cancelled bool) {
	switch {
	case r.cancelled:
		return true, true
	case r.fatal != nil:
		p.c.Block(engine.StagePerf, r.fatal.Error())
		return true, false
	case r.failure != nil:
		w := verdict.Fail
		if r.blocked {
			w = verdict.Blocked
		}
		res := &engine.PerfResult{Key: p.key, Row: p.c.Row().Name, TimingField: p.field, TimingProxy: p.proxy,
			Verdict: w, Reason: r.failure.Error(), MeasuredCPU: p.cpu, Caveats: p.caveats}
		res.Fill(p.c.History(), p.c.Row().Perf.Pairs, p.c.Row().Perf.WarmupsPerArm)
		if err := p.c.Append(engine.Record{Type: engine.RecPerfResult, Data: engine.MarshalData(engine.PerfResultData{Key: p.key, Result: res})}); err != nil {
			p.c.Block(engine.StagePerf, err.Error())
			return true, false
		}
		if err := p.export(res); err != nil {
			p.c.Warn(fmt.Sprintf("perf: writing exports: %v", err))
		}
		if r.blocked {
			p.c.Block(engine.StagePerf, res.Reason)
		}
		if p.c.Verdict(engine.StagePerf, "", w, res.Reason, "") {
			p.emitFinal(res)
		}
		return true, false
	}
	return false, false
}

func (p *perfRun) recordInvalid(inv engine.PerfInvalidation) bool {
	rec := engine.Record{Type: engine.RecPerfInvalid, Index: inv.Pair, Attempt: inv.Attempt, Reason: inv.Reason, Data: engine.MarshalData(inv)}
	if err := p.c.Append(rec); err != nil {
		p.c.Block(engine.StagePerf, err.Error())
		return false
	}
	p.fold(rec)
	p.c.Emit(engine.InvalidatedEvent(inv))
	return true
}
