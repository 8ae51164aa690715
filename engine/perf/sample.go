package perf

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"kvparity/engine"
	"kvparity/engine/instrument"
	"kvparity/engine/run"
	"kvparity/stats"
)

// sampleResult is how one perf process ended, from the stage's point of view.
type sampleResult struct {
	sample    engine.PerfSample
	failure   error // product failure: the row FAILs (or is BLOCKED when fault.blocked)
	blocked   bool
	fatal     error // the campaign could not record it (a full disk): stop
	cancelled bool  // the stage was stopped: the sample is rerun, nothing recorded as its end
}

// perfRunID names a perf process, e.g. "perf/pair-017-baseline-a2" or "perf/warmup-03-candidate";
// a series other than the first pin of both arms is prefixed with its key.
func perfRunID(key string, kind engine.RunKind, index int, arm engine.Arm, attempt int) engine.RunID {
	var id string
	if kind == engine.KindWarmup {
		id = fmt.Sprintf("warmup-%02d-%s", index, arm)
	} else {
		id = fmt.Sprintf("pair-%03d-%s", index, arm)
	}
	if attempt > 1 {
		id += fmt.Sprintf("-a%d", attempt)
	}
	if key != engine.PerfKey(1, 1) {
		id = key + "/" + id
	}
	return engine.RunID("perf/" + id)
}

// sampleSpec is the process of a gated sample: the row's args, --iterations 1, a unique timings
// file in the run's own folder, and no report output of any kind (no canonical report, no
// report JSON, no progress side channel), pinned to the measured CPU.
func (p *perfRun) sampleSpec(id engine.RunID, arm engine.Arm, kind engine.RunKind, index, attempt int) engine.RunSpec {
	spec := p.c.RunSpec(id, arm, kind, index, attempt, false)
	spec.WithoutProgress()
	spec.CPUs = []int{p.cpu}
	return spec
}

// runSample runs one perf process with its environment watched, and records its end.
func (p *perfRun) runSample(ctx context.Context, arm engine.Arm, kind engine.RunKind, index, attempt int, order stats.Order, position int) sampleResult {
	c := p.c
	if ctx.Err() != nil {
		return sampleResult{cancelled: true}
	}
	id := perfRunID(p.key, kind, index, arm, attempt)
	spec := p.sampleSpec(id, arm, kind, index, attempt)
	smp := engine.PerfSample{Key: p.key, Run: id, Arm: arm, Warmup: kind == engine.KindWarmup, Index: index, Attempt: attempt,
		Order: order, Position: position, Field: p.field, Proxy: p.proxy, ExitCode: -1}
	smp.Env.CPU = p.cpu
	if err := p.self.Apply(); err != nil {
		p.caveat(fmt.Sprintf("could not keep kvparity's threads off CPU %d: %v", p.cpu, err))
	}
	tel0 := instrument.ReadTelemetry(p.cpu)
	var (
		startErr error
		mon      *instrument.Monitor
	)
	base := engine.Record{Run: id, Arm: arm, Kind: kind, Index: index, Attempt: attempt, Gen: c.Pinned(arm).Gen}
	res := c.Runner().Run(ctx, spec.Spec, func(pid int, cpus []int) error {
		rec := base
		rec.Type, rec.PID, rec.CPUs = engine.RecRunStart, pid, cpus
		rec.Data = engine.MarshalData(engine.PerfRunData{Key: p.key, Order: order, Position: position})
		if err := c.Append(rec); err != nil {
			startErr = err
			return err
		}
		now := time.Now()
		smp.StartedAt = now.UTC()
		mon = instrument.StartMonitor(pid, p.cpu, p.opts.monitorInterval(), p.forcedRepin(id))
		c.Emit(engine.RunStarted{Run: id, Arm: arm, Kind: kind, Repetition: index, CPUs: cpus, PID: pid, At: now})
		return nil
	})
	if mon != nil {
		mon.Finish(&smp.Env, p.opts.competingLoadFraction())
	} else {
		smp.Env.Load = "not measured: the sample never started"
	}
	smp.Env.SampleRusageMs = ms(res.CPUTime)
	tel1 := instrument.ReadTelemetry(p.cpu)
	if startErr != nil {
		return sampleResult{fatal: startErr}
	}
	if res.Cancelled || ctx.Err() != nil {
		// Stopped, not failed: nothing is recorded as this sample's end, and its pair is rerun
		// complete on resume.
		c.Emit(engine.RunFinished{Run: id, Arm: arm, Kind: kind, ExitCode: res.ExitCode, Signal: res.Signal, Elapsed: res.Elapsed, Err: res.Err})
		return sampleResult{cancelled: true}
	}
	smp.ExitCode, smp.Signal = res.ExitCode, res.Signal

	smp.Env.Telemetry = "unavailable"
	if tel0.Available() || tel1.Available() {
		smp.Env.Telemetry = "available"
		smp.Env.Before, smp.Env.After = &tel0, &tel1
	}

	out := sampleResult{}
	switch {
	case res.Err != nil && errors.Is(res.Err, run.ErrAffinity):
		// The runner could not pin or verify the sample at start: environmental, not the product.
		smp.Env.Invalid = "affinity violation at start: " + res.Err.Error()
	case res.Err != nil:
		out.failure = fmt.Errorf("%s (%s %s): product failure: %w", id, arm, kind, res.Err)
	default:
		timings := spec.Outputs().Timings // the arm kind names its timing file
		t, err := instrument.ReadTiming(timings, p.field)
		var tf *instrument.TimingFault
		if errors.As(err, &tf) {
			out.failure, out.blocked = fmt.Errorf("%s (%s %s): %s", id, arm, kind, tf.Msg), tf.Blocked
		} else if err := p.checkWork(&smp, t.Work, timings); err != nil {
			// Other work than the reference blocks the row (the gate cannot time what was not
			// verified); a malformed fingerprint is a malformed timing record, which fails it.
			out.failure, out.blocked = fmt.Errorf("%s (%s %s): product failure: %w", id, arm, kind, err), smp.WorkCheck == engine.WorkDiffers
		} else {
			smp.Ms = t.Ms
		}
	}
	if out.failure != nil {
		smp.Error = out.failure.Error()
	} else if smp.Env.Invalid == "" {
		smp.Env.Invalid = instrument.Invalidity(smp.Env, tel0, tel1, p.opts.competingLoadFraction())
	}

	end := base
	end.Type, end.PID, end.CPUs = engine.RecRunEnd, res.PID, res.CPUs
	end.ExitCode, end.Signal, end.TimedOut, end.ElapsedMs = res.ExitCode, res.Signal, res.TimedOut, ms(res.Elapsed)
	end.Error = smp.Error
	end.Data = engine.MarshalData(smp)
	if err := c.Append(end); err != nil {
		return sampleResult{fatal: err}
	}
	c.Emit(engine.RunFinished{Run: id, Arm: arm, Kind: kind, ExitCode: res.ExitCode, Signal: res.Signal, TimedOut: res.TimedOut, Elapsed: res.Elapsed, Err: out.failure})
	if out.failure == nil && (smp.Warmup || smp.Env.Invalid == "") { // a warmup is never measured
		c.Emit(engine.SampleDone{Run: id, Arm: arm, Warmup: smp.Warmup, Index: index, Attempt: attempt, Ms: smp.Ms})
	}
	out.sample = smp
	return out
}

// forcedRepin is the forced-violation test hook's re-pin for run id (nil when the hook is off
// for it, or there is no other CPU to move the sample to).
func (p *perfRun) forcedRepin(id engine.RunID) *instrument.Repin {
	hook := p.opts.ForceAffinityViolation
	if hook == nil || !hook(id) {
		return nil
	}
	to, ok := instrument.OtherCPU(run.AllowedCPUs(), p.cpu)
	if !ok {
		return nil
	}
	return &instrument.Repin{After: p.opts.violationAfter(), To: to}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// pairRuns lists the runs of a pair attempt in execution order.
func pairRuns(samples ...engine.PerfSample) []engine.RunID {
	var ids []engine.RunID
	for _, s := range samples {
		if s.Run != "" && !slices.Contains(ids, s.Run) {
			ids = append(ids, s.Run)
		}
	}
	return ids
}
