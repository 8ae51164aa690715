package instrument

import (
	"fmt"
	"strings"
)

// Environmental evidence of the performance stage. Only these predeclared conditions may
// invalidate a pair (protocol stage 7): the sample's CPU affinity read back from /proc changed,
// competing load ran on the measured CPU, or a telemetry throttle counter rose. Everything else
// that goes wrong with a sample is a product failure.

// DefaultCompetingLoadFraction and competingLoadFloorMs are the predeclared competing-load limit: a
// sample is invalid when the measured CPU was busy with something other than the sample for more
// than max(10% of the sample's wall time, 30 ms). The floor is three ticks of /proc/stat's
// 10 ms resolution (USER_HZ = 100): both ends of the window are read to a tick, and the
// sample's own CPU time comes from rusage, so a smaller excess is measurement noise.
const (
	DefaultCompetingLoadFraction = 0.10
	competingLoadFloorMs         = 30.0
)

// SampleEnv is the environmental evidence of one sample.
type SampleEnv struct {
	CPU               int        `json:"cpu"`
	AffinityChecks    int        `json:"affinity_checks"` // read-backs of every thread's Cpus_allowed_list
	AffinityViolation string     `json:"affinity_violation,omitempty"`
	ForcedBy          string     `json:"forced_by,omitempty"` // the test hook that caused the violation
	WallMs            float64    `json:"wall_ms"`             // the load window: first to last reading while the sample lived
	BusyMs            float64    `json:"cpu_busy_ms"`         // measured CPU busy over the window (/proc/stat)
	SampleCPUMs       float64    `json:"sample_cpu_ms"`       // the sample's own utime+stime over the window (/proc/<pid>/stat)
	CompetingMs       float64    `json:"competing_ms"`        // busy minus the sample's own time
	CompetingLimitMs  float64    `json:"competing_limit_ms"`
	SampleRusageMs    float64    `json:"sample_rusage_ms"` // the sample's whole user+system time (rusage)
	Load              string     `json:"load,omitempty"`   // why competing load was not measured, when it was not
	Telemetry         string     `json:"telemetry"`        // "unavailable" or "available"
	Before            *Telemetry `json:"telemetry_before,omitempty"`
	After             *Telemetry `json:"telemetry_after,omitempty"`
	Invalid           string     `json:"invalid,omitempty"` // the predeclared condition that fired
}

// Invalidity applies the predeclared environmental conditions to a finished sample ("" when
// none fired); fraction is the competing-load limit in use (DefaultCompetingLoadFraction unless
// the stage's options say otherwise).
func Invalidity(env SampleEnv, before, after Telemetry, fraction float64) string {
	var why []string
	if env.AffinityViolation != "" {
		why = append(why, env.AffinityViolation)
	}
	if env.Load == "" && env.CompetingMs > env.CompetingLimitMs {
		why = append(why, fmt.Sprintf("competing load on CPU %d: %.0f ms of %.0f ms busy was not the sample (limit %.0f ms = max(%.0f%% of the %.0f ms window, %.0f ms); /proc/stat)",
			env.CPU, env.CompetingMs, env.BusyMs, env.CompetingLimitMs, 100*fraction, env.WallMs, competingLoadFloorMs))
	}
	if rose := throttled(before, after); len(rose) > 0 {
		why = append(why, "thermal throttling during the sample: "+strings.Join(rose, ", "))
	}
	return strings.Join(why, "; ")
}
