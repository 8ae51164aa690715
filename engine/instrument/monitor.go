package instrument

import (
	"bytes"
	"fmt"
	"kvparity/engine/run"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A Monitor watches one running sample from kvparity's side of the machine, every
// interval while the sample lives:
//
//   - it reads the CPU affinity of every thread of the sample back from
//     /proc/<pid>/task/<tid>/status and remembers the first thread found off the measured CPU;
//   - it reads the measured CPU's busy ticks from /proc/stat together with the sample's own
//     utime+stime ticks from /proc/<pid>/stat, so competing load is busy time minus the
//     sample's own time over one window during which the sample was alive. The window closes
//     at the last reading taken before the sample exited (a zombie no longer counts), so load
//     that arrives after the sample ended, while kvparity reaps it, is never blamed on it.
type Monitor struct {
	pid      int
	cpu      int
	want     []int
	interval time.Duration
	force    *Repin

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}

	checks      int
	violation   string
	forced      string
	first, last *loadReading
	loadErr     error
}

// A loadReading is the measured CPU's ticks and the sample's own ticks at one instant.
type loadReading struct {
	at     time.Time
	cpu    cpuTimes
	sample uint64 // utime + stime of the sample process, in ticks
}

// A Repin re-pins the sample to CPU To, After it started: the test hook that makes an affinity
// violation happen for real, so the detection path is the production one.
type Repin struct {
	After time.Duration
	To    int
}

// StartMonitor starts watching the sample pid, pinned to cpu, every interval; force is nil
// except in tests. Finish stops it.
func StartMonitor(pid, cpu int, interval time.Duration, force *Repin) *Monitor {
	m := &Monitor{pid: pid, cpu: cpu, want: []int{cpu}, interval: interval, force: force,
		stop: make(chan struct{}), done: make(chan struct{})}
	m.read() // the window opens now, before the loop's goroutine is even scheduled
	go m.loop()
	return m
}

func (m *Monitor) loop() {
	defer close(m.done)
	start := time.Now()
	tick := time.NewTicker(m.interval)
	defer tick.Stop()
	for {
		if m.force != nil && m.forced == "" && time.Since(start) >= m.force.After {
			m.forced = m.repin()
		}
		m.check()
		m.read()
		select {
		case <-m.stop:
			return
		case <-tick.C:
		}
	}
}

// read takes a load reading if the sample is still alive.
func (m *Monitor) read() {
	st, err := readProcStat(m.pid)
	if err != nil || st.state == 'Z' || st.state == 'X' {
		return // exited: the window stays closed at the last live reading
	}
	c, err := readCPUTimes(m.cpu)
	if err != nil {
		m.loadErr = err
		return
	}
	r := &loadReading{at: time.Now(), cpu: c, sample: st.utime + st.stime}
	if m.first == nil {
		m.first = r
	}
	m.last = r
}

// check reads every thread's Cpus_allowed_list; a thread that exited meanwhile is skipped.
func (m *Monitor) check() {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", m.pid))
	if err != nil {
		return // the sample has exited
	}
	m.checks++
	for _, t := range tasks {
		got, err := run.ReadAllowedList(fmt.Sprintf("/proc/%d/task/%s/status", m.pid, t.Name()))
		if err != nil || len(got) == 0 {
			continue
		}
		if !slices.Equal(got, m.want) && m.violation == "" {
			m.violation = fmt.Sprintf("affinity violation: thread %s of pid %d runs on CPUs %s, pinned to %s (read back from /proc/%d/task/%s/status Cpus_allowed_list)",
				t.Name(), m.pid, run.FormatCPUList(got), run.FormatCPUList(m.want), m.pid, t.Name())
		}
	}
}

// repin moves every thread of the sample to the hook's CPU (test hook only).
func (m *Monitor) repin() string {
	var set unix.CPUSet
	set.Set(m.force.To)
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", m.pid))
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil {
			unix.SchedSetaffinity(tid, &set)
		}
	}
	return fmt.Sprintf("test hook re-pinned pid %d to CPU %d", m.pid, m.force.To)
}

// Finish stops the monitor once the sample has exited, and fills env with what it saw: the
// affinity read-backs and their first violation, and the competing load over the window
// (fraction of its wall time being the limit).
func (m *Monitor) Finish(env *SampleEnv, fraction float64) {
	m.stopOnce.Do(func() { close(m.stop) })
	<-m.done
	env.AffinityViolation, env.AffinityChecks, env.ForcedBy = m.violation, m.checks, m.forced
	m.load(env, fraction)
}

// load fills the competing-load evidence from the window's first and last live readings.
func (m *Monitor) load(env *SampleEnv, fraction float64) {
	switch {
	case m.loadErr != nil:
		env.Load = "not measured: " + m.loadErr.Error()
		return
	case m.first == nil || m.last == nil || m.last.cpu.total-m.first.cpu.total < 2:
		env.Load = "not measured: the sample was shorter than two /proc/stat ticks (20 ms) between live readings"
		return
	}
	tick := 1000.0 / clockTicksPerSecond
	env.WallMs = ms(m.last.at.Sub(m.first.at))
	env.BusyMs = float64(m.last.cpu.busy-m.first.cpu.busy) * tick
	env.SampleCPUMs = float64(m.last.sample-m.first.sample) * tick
	// Both ends are read to a clock tick, so the difference can exceed the window by up to a tick;
	// a CPU cannot be busier than the window is long, so the excess is rounding, not load.
	env.CompetingMs = min(max(0, env.BusyMs-env.SampleCPUMs), env.WallMs)
	env.CompetingLimitMs = max(fraction*env.WallMs, competingLoadFloorMs)
}

// procStat is what the monitor needs of /proc/<pid>/stat.
type procStat struct {
	state        byte
	utime, stime uint64
}

func readProcStat(pid int) (procStat, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	// The command name may hold spaces and parentheses: the fields start after the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: no ')'", pid)
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields after the command", pid, len(f))
	}
	var st procStat
	st.state = f[0][0]
	if st.utime, err = strconv.ParseUint(f[11], 10, 64); err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat utime %q", pid, f[11])
	}
	if st.stime, err = strconv.ParseUint(f[12], 10, 64); err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat stime %q", pid, f[12])
	}
	return st, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
