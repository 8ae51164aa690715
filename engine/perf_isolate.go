package engine

import (
	"context"
	"fmt"
	"os"
	"time"

	"kvparity/engine/instrument"
)

// The load preflight and CPU isolation (engine/instrument measures and isolates) as the perf stage
// records them: a resumed stage knows the last load it saw, and a reopened campaign undoes an
// isolation a killed kvparity left in place.

// recPerfLoad records the load preflight (Data: instrument.LoadCheck); recIsolation an isolation that
// took effect (Data: instrument.Isolation) and recIsolationEnd its undoing.
const (
	recPerfLoad     RecordType = "perf_load"
	recIsolation    RecordType = "perf_isolation"
	recIsolationEnd RecordType = "perf_isolation_end"
)

// What History keeps of these records: the last load preflight, and the isolation not undone.
type (
	loadState      struct{ last *instrument.LoadCheck }
	isolationState struct{ open *instrument.Isolation }
)

func init() {
	defineRecord(recPerfLoad, func(h *History, r *Record, l *instrument.LoadCheck) { kindState[loadState](h, recPerfLoad).last = l }, nil)
	defineRecord(recIsolation, func(h *History, r *Record, iso *instrument.Isolation) {
		kindState[isolationState](h, recIsolation).open = iso
	}, nil)
	definePlainRecord(recIsolationEnd, func(h *History, r *Record) { kindState[isolationState](h, recIsolation).open = nil }, nil)
}

// LoadCheck is the perf stage's last load preflight (ok false when none ran).
func (h *History) LoadCheck() (instrument.LoadCheck, bool) {
	if l := kindState[loadState](h, recPerfLoad).last; l != nil {
		return *l, true
	}
	return instrument.LoadCheck{}, false
}

// openIsolation is the perf stage's CPU isolation the journal recorded and never undid.
func (h *History) openIsolation() *instrument.Isolation {
	return kindState[isolationState](h, recIsolation).open
}

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
	p.c.Append(Record{Type: recPerfLoad, Stage: StagePerf, Data: marshalData(l)})
	p.caveat("load preflight: " + l.Expectation())
	if busy >= 0.10 {
		p.c.Warn("perf: " + l.Expectation())
	} else {
		p.c.Emit(LogLine{Run: "perf/load", Line: l.Expectation()})
	}
}

// undoRecordedIsolation undoes an isolation the journal recorded and never ended (kvparity
// was killed during the perf stage), warning about it: the other processes would otherwise
// stay off the measured CPU.
func undoRecordedIsolation(h *History, warn func(string)) {
	open := h.openIsolation()
	if open == nil {
		return
	}
	if _, err := os.Stat(open.Cgroup); err != nil {
		return // already gone (a reboot, or undone by hand)
	}
	msg := fmt.Sprintf("the perf stage's CPU isolation (%s) was never undone (kvparity was killed during the stage): moved its processes back", open.Cgroup)
	if err := open.Undo(); err != nil {
		msg = "the perf stage's CPU isolation was never undone, and undoing it failed: " + err.Error()
	}
	if warn != nil {
		warn(msg)
	}
}
