package instrument

import (
	"errors"
	"fmt"
	"kvparity/engine/run"
	"os"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"
)

// kvparity keeps its own threads off the measured CPU while samples run: every thread listed
// in /proc/self/task gets the allowed set minus that CPU. Threads the Go runtime creates later
// inherit the mask of the thread that creates them; the set is applied again before every
// sample to catch any that slipped through. With a single usable CPU there is nowhere else to
// go: kvparity then shares the CPU, its monitor sleeps between polls, and the result records
// that as a caveat.

// threadMask sets the affinity of every thread of this process; ESRCH (a thread that exited
// meanwhile) is not an error.
func threadMask(cpus []int) error {
	set := run.CPUSet(cpus)
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil && !errors.Is(err, unix.ESRCH) {
			return fmt.Errorf("sched_setaffinity(thread %d, %s): %w", tid, run.FormatCPUList(cpus), err)
		}
	}
	return nil
}

// A SelfPlacement is where kvparity's own threads run during the perf stage.
type SelfPlacement struct {
	original []int  // this process's mask before the stage
	others   []int  // original minus the measured CPU ("" on a one-CPU machine)
	caveat   string // why kvparity cannot keep off the measured CPU ("" when it can)
}

// NewSelfPlacement reads this process's mask and the CPUs left when measured is taken out.
func NewSelfPlacement(measured int) SelfPlacement {
	orig := run.AllowedCPUs()
	p := SelfPlacement{original: orig}
	for _, c := range orig {
		if c != measured {
			p.others = append(p.others, c)
		}
	}
	if len(p.others) == 0 {
		p.caveat = fmt.Sprintf("only CPU %d is usable: kvparity's own threads share the measured CPU (its monitor sleeps between polls, and its CPU time counts as competing load)", measured)
	}
	return p
}

// Apply moves every thread of ours off the measured CPU (no-op on one CPU).
func (p SelfPlacement) Apply() error {
	if len(p.others) == 0 {
		return nil
	}
	return threadMask(p.others)
}

// Restore gives every thread its original mask back.
func (p SelfPlacement) Restore() error { return threadMask(p.original) }

// OtherCPU returns a CPU of allowed that is not measured, for the forced-violation hook.
func OtherCPU(allowed []int, measured int) (int, bool) {
	i := slices.IndexFunc(allowed, func(c int) bool { return c != measured })
	if i < 0 {
		return 0, false
	}
	return allowed[i], true
}

// Caveat says why kvparity's own threads share the measured CPU ("" when they do not).
func (p SelfPlacement) Caveat() string { return p.caveat }
