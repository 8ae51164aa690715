package instrument

import (
	"context"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kvparity/engine/run"

	"golang.org/x/sys/unix"
)

// The load preflight sees competing work on the measured CPU: a thread spinning on it makes
// the CPU at least half busy over the window.
func TestLoadPreflightSeesABusyCPU(t *testing.T) {
	cpus := run.AllowedCPUs()
	cpu := cpus[len(cpus)-1]
	var stop atomic.Bool
	go func() {
		runtime.LockOSThread() // ends with the goroutine: this thread started no child
		set := run.CPUSet([]int{cpu})
		unix.SchedSetaffinity(0, &set)
		for !stop.Load() {
		}
	}()
	busy, err := MeasureLoad(context.Background(), cpu, 300*time.Millisecond)
	stop.Store(true)
	if err != nil || busy < 0.5 {
		t.Fatalf("busy %.2f, %v; want at least half of CPU %d", busy, err, cpu)
	}
	l := LoadCheck{CPU: cpu, WindowMs: 300, Busy: busy}
	if !strings.Contains(l.Expectation(), "expect most pairs to be invalidated") || !strings.Contains(l.Expectation(), "--isolate") {
		t.Errorf("expectation %q", l.Expectation())
	}
	if q := (LoadCheck{CPU: 1, WindowMs: 2000, Busy: 0.01}).Expectation(); !strings.Contains(q, "quiet") {
		t.Errorf("quiet expectation %q", q)
	}
	if _, _, err := cpuTicks(1 << 20); err == nil {
		t.Error("a CPU /proc/stat does not list must be an error")
	}
}

// kvparity and its descendants are never moved off the measured CPU.
func TestIsolationKeepsKvparity(t *testing.T) {
	if !descendsFrom(os.Getpid(), os.Getpid()) || descendsFrom(1, os.Getpid()) {
		t.Fatal("descendsFrom")
	}
}
