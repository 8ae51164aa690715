package perf

import (
	"context"
	"time"

	"kvparity/engine"
	"kvparity/engine/instrument"
)

// loadPreflight measures the measured CPU's competing load before the stage's runs (each
// start of the stage, resumes too), records it, and tells the user what to expect: a warning
// when the CPU is busy enough to invalidate pairs, a log line otherwise.
func (p *perfRun) loadPreflight(ctx context.Context) {
	if p.opts.CompetingLoadFraction >= 1 {
		return // the competing-load check is off: nothing to expect
	}
	window := p.opts.LoadWindow
	if window <= 0 {
		window = instrument.DefaultLoadWindow
	}
	start := time.Now()
	busy, err := instrument.MeasureLoad(ctx, p.cpu, window)
	if err != nil {
		if ctx.Err() == nil {
			p.c.Warn("perf: load preflight: " + err.Error())
		}
		return
	}
	l := instrument.LoadCheck{CPU: p.cpu, WindowMs: float64(time.Since(start).Microseconds()) / 1000, Busy: busy, Isolated: p.opts.IsolateCPU}
	p.c.Append(engine.Record{Type: engine.RecPerfLoad, Stage: engine.StagePerf, Data: engine.MarshalData(l)})
	p.caveat("load preflight: " + l.Expectation())
	if busy >= 0.10 {
		p.c.Warn("perf: " + l.Expectation())
	} else {
		p.c.Emit(engine.LogLine{Run: "perf/load", Line: l.Expectation()})
	}
}
