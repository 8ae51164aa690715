package instrument

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// DefaultLoadWindow is how long the load preflight watches the measured CPU by default.
const DefaultLoadWindow = 2 * time.Second

// A LoadCheck is the load preflight's measurement.
type LoadCheck struct {
	CPU      int     `json:"cpu"`
	WindowMs float64 `json:"window_ms"`
	Busy     float64 `json:"busy_fraction"` // of the window, by /proc/stat (kvparity idle meanwhile)
	Isolated bool    `json:"isolated"`      // measured after the isolation took effect
}

// Expectation says what the measured load means for the stage, for the user.
func (l LoadCheck) Expectation() string {
	pct := 100 * l.Busy
	where := fmt.Sprintf("CPU %d was %.0f%% busy with other work over %.0f s before the first warmup", l.CPU, pct, l.WindowMs/1000)
	switch {
	case l.Busy < 0.02:
		return where + ": quiet, expect few invalidated pairs"
	case l.Busy < 0.10:
		return where + ": expect some invalidated pairs and a longer stage"
	case l.Isolated:
		return where + " even with the other processes moved off it (kernel work or interrupts): expect many invalidated pairs"
	default:
		return where + ": expect most pairs to be invalidated; quiet the machine, or run as root with --isolate to move other processes off this CPU"
	}
}

// MeasureLoad watches cpu for d and returns the busy fraction of that time (/proc/stat).
func MeasureLoad(ctx context.Context, cpu int, d time.Duration) (float64, error) {
	busy0, total0, err := cpuTicks(cpu)
	if err != nil {
		return 0, err
	}
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	busy1, total1, err := cpuTicks(cpu)
	if err != nil {
		return 0, err
	}
	if total1 <= total0 {
		return 0, errors.New("/proc/stat did not advance")
	}
	return float64(busy1-busy0) / float64(total1-total0), nil
}

// cpuTicks is one CPU's busy and total jiffies from /proc/stat.
func cpuTicks(cpu int) (busy, total uint64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	prefix := "cpu" + strconv.Itoa(cpu) + " "
	for line := range strings.SplitSeq(string(b), "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		f := strings.Fields(line)[1:]
		for i, s := range f {
			v, _ := strconv.ParseUint(s, 10, 64)
			total += v
			if i != 3 && i != 4 { // idle and iowait are not busy
				busy += v
			}
		}
		return busy, total, nil
	}
	return 0, 0, fmt.Errorf("/proc/stat has no %s line", strings.TrimSpace(prefix))
}
