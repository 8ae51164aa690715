package engine

import "time"

// PerfOptions tune the performance stage beyond its row. The zero value is the protocol's
// stage 7. Samples are pinned to the last CPU of the campaign's set (Options.CPUs; CPU 0
// usually takes the most interrupts), and kvparity keeps its own threads on the others.
type PerfOptions struct {
	// MonitorInterval is how often a running sample's affinity is read back (default 20 ms).
	MonitorInterval time.Duration
	// CompetingLoadFraction overrides the competing-load limit, as a fraction of the sample's
	// wall time (default instrument.DefaultCompetingLoadFraction, 10%; the 30 ms floor always applies). 1 or more
	// turns the check off (competing load is measured within the window), which tests that are
	// not about load use so a busy shared host cannot invalidate their pairs.
	CompetingLoadFraction float64
	// IsolateCPU moves every other process of the machine off the measured CPU for the stage
	// (instrument.IsolateCPU; root only), and back after.
	IsolateCPU bool
	// LoadWindow is how long the load preflight watches the measured CPU before the stage's
	// runs (default instrument.DefaultLoadWindow, 2 s).
	LoadWindow time.Duration
	// MaxInvalidations is how many environmental invalidations one pair may take before the row is
	// BLOCKED as measured on an unfit node (default 10).
	MaxInvalidations int
	// Backoff is the wait before rerunning an invalidated pair, doubled per invalidation of that
	// pair up to 8 s (default 250 ms), so a burst of competing load can pass.
	Backoff time.Duration
	// ForceAffinityViolation is a test hook: when it returns true for a sample, that sample's
	// process is re-pinned to another CPU ViolationAfter after it started, so the production
	// read-back path detects a real affinity violation.
	ForceAffinityViolation func(run RunID) bool
	ViolationAfter         time.Duration // default 10 ms
}
