package perf

import (
	"time"

	"kvparity/engine"
	"kvparity/engine/instrument"
)

// options are the campaign's PerfOptions with the stage's defaults for what they leave zero.
type options struct{ engine.PerfOptions }

func (o options) monitorInterval() time.Duration {
	if o.MonitorInterval > 0 {
		return o.MonitorInterval
	}
	return 20 * time.Millisecond
}

func (o options) competingLoadFraction() float64 {
	if o.CompetingLoadFraction > 0 {
		return o.CompetingLoadFraction
	}
	return instrument.DefaultCompetingLoadFraction
}

func (o options) maxInvalidations() int {
	if o.MaxInvalidations > 0 {
		return o.MaxInvalidations
	}
	return 10
}

func (o options) backoff(invalidations int) time.Duration {
	d := o.Backoff
	if d <= 0 {
		d = 250 * time.Millisecond
	}
	for i := 1; i < invalidations && d < 8*time.Second; i++ {
		d *= 2
	}
	return min(d, 8*time.Second)
}

func (o options) violationAfter() time.Duration {
	if o.ViolationAfter > 0 {
		return o.ViolationAfter
	}
	return 10 * time.Millisecond
}
