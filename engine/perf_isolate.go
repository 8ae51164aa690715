package engine

import (
	"fmt"
	"os"

	"kvparity/engine/instrument"
)

// The load preflight and CPU isolation (engine/instrument measures and isolates) as the perf stage
// records them: a resumed stage knows the last load it saw, and a reopened campaign undoes an
// isolation a killed kvparity left in place.

// RecPerfLoad records the load preflight (Data: instrument.LoadCheck); RecIsolation an isolation that
// took effect (Data: instrument.Isolation) and RecIsolationEnd its undoing.
const (
	RecPerfLoad     RecordType = "perf_load"
	RecIsolation    RecordType = "perf_isolation"
	RecIsolationEnd RecordType = "perf_isolation_end"
)

// What History keeps of these records: the last load preflight, and the isolation not undone.
type (
	loadState      struct{ last *instrument.LoadCheck }
	isolationState struct{ open *instrument.Isolation }
)

func init() {
	defineRecord(RecPerfLoad, func(h *History, r *Record, l *instrument.LoadCheck) { kindState[loadState](h, RecPerfLoad).last = l }, nil)
	defineRecord(RecIsolation, func(h *History, r *Record, iso *instrument.Isolation) {
		kindState[isolationState](h, RecIsolation).open = iso
	}, nil)
	definePlainRecord(RecIsolationEnd, func(h *History, r *Record) { kindState[isolationState](h, RecIsolation).open = nil }, nil)
}

// LoadCheck is the perf stage's last load preflight (ok false when none ran).
func (h *History) LoadCheck() (instrument.LoadCheck, bool) {
	if l := kindState[loadState](h, RecPerfLoad).last; l != nil {
		return *l, true
	}
	return instrument.LoadCheck{}, false
}

// openIsolation is the perf stage's CPU isolation the journal recorded and never undid.
func (h *History) openIsolation() *instrument.Isolation {
	return kindState[isolationState](h, RecIsolation).open
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
