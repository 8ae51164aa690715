package run

import (
	"time"

	"kvparity/report"
)

// An Observer hears what a running replay says while it runs. run is the Spec's ID. The
// engine turns each call into its RunProgress, LogLine and PressureEvent events; the calls
// come from the goroutine that runs the process, never after Run returns.
type Observer interface {
	Progress(run string, p Progress)
	Log(run, line string)
	Pressure(run string, r report.PressureRecord)
}

// Progress is how far a replay has come: the embedded engine's side channel (virtual time,
// completed requests) or, for binaries that give none, elapsed time only (Total == 0).
type Progress struct {
	VirtualTimeMs float64
	Completed     int
	Total         int
	Elapsed       time.Duration
}
