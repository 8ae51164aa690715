package perf

import (
	"strings"

	"kvparity/engine"
)

func (p *perfRun) emitRunning(warmupsDone int) {
	sum := p.h.PerfRunning(p.key, warmupsDone)
	sum.MaxInvalidations = p.opts.maxInvalidations()
	p.c.Emit(sum)
}

// invalidityCause is the condition a sample's invalidity names, without its figures:
// "competing load on CPU 1: 300 ms of 900 ms busy …" gives "competing load on CPU 1".
func invalidityCause(invalid string) string {
	cause, _, _ := strings.Cut(invalid, ":")
	return strings.TrimSpace(cause)
}

func (p *perfRun) emitFinal(r *engine.PerfResult) { p.c.Emit(engine.FinalSummary(r, p.c.Row())) }

// publishFinal republishes a recorded result (Start on a decided series).
func (p *perfRun) publishFinal(r *engine.PerfResult) {
	p.emitFinal(r)
	p.c.Emit(engine.StageVerdict{Stage: engine.StagePerf, Verdict: r.Verdict, Reason: r.Reason})
}
