package instrument

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kvparity/engine/run"

	"golang.org/x/sys/unix"
)

// The predeclared rules, alone and together: an affinity violation; competing load over its
// limit (not at it, and never when the load was not measured); a throttle counter that rose
// (one that fell, as a reset does, or that appeared mid-sample, says nothing).
func TestInvalidityRules(t *testing.T) {
	quiet := SampleEnv{CPU: 3, WallMs: 500, BusyMs: 480, SampleCPUMs: 470, CompetingMs: 10, CompetingLimitMs: 50}
	with := func(f func(*SampleEnv)) SampleEnv { e := quiet; f(&e); return e }
	throttle := func(core, pkg uint64) Telemetry {
		return Telemetry{Throttle: map[string]uint64{"core_throttle_count": core, "package_throttle_count": pkg}}
	}
	const (
		affinity = "affinity violation: thread 12 of pid 9 runs on CPUs 0-1, pinned to 3 (read back from /proc/9/task/12/status Cpus_allowed_list)"
		load     = "competing load on CPU 3: 51 ms of 480 ms busy was not the sample (limit 50 ms = max(10% of the 500 ms window, 30 ms); /proc/stat)"
	)
	cases := []struct {
		name          string
		env           SampleEnv
		before, after Telemetry
		want          string
	}{
		{"quiet", quiet, throttle(5, 1), throttle(5, 1), ""},
		{"affinity violation", with(func(e *SampleEnv) { e.AffinityViolation = affinity }), throttle(5, 1), throttle(5, 1), affinity},
		{"competing load at the limit", with(func(e *SampleEnv) { e.CompetingMs = 50 }), Telemetry{}, Telemetry{}, ""},
		{"competing load over the limit", with(func(e *SampleEnv) { e.CompetingMs = 51 }), Telemetry{}, Telemetry{}, load},
		{"competing load not measured", with(func(e *SampleEnv) {
			e.CompetingMs, e.Load = 400, "not measured: the sample was shorter than two /proc/stat ticks (20 ms) between live readings"
		}), Telemetry{}, Telemetry{}, ""},
		{"throttle rose", quiet, throttle(5, 1), throttle(7, 1), "thermal throttling during the sample: core_throttle_count +2"},
		{"throttle counter reset", quiet, throttle(5, 1), throttle(0, 1), ""},
		{"throttle counter appeared", quiet, Telemetry{}, throttle(3, 3), ""},
		{"no telemetry (a KVM guest)", quiet, Telemetry{}, Telemetry{}, ""},
		{"all three, in the rules' order", with(func(e *SampleEnv) { e.AffinityViolation, e.CompetingMs = affinity, 51 }), throttle(5, 1), throttle(7, 4),
			affinity + "; " + load + "; thermal throttling during the sample: core_throttle_count +2, package_throttle_count +3"},
	}
	for _, c := range cases {
		if got := Invalidity(c.env, c.before, c.after, DefaultCompetingLoadFraction); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// The competing-load evidence from the window's first and last live readings: competing load
// is the CPU's busy time minus the sample's own, and its limit is max(fraction of the window,
// 30 ms), so a short sample is judged by the floor and a long one by the fraction.
func TestMonitorCompetingLoadLimit(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	// ticks are /proc/stat's (10 ms each): busy and the sample's own CPU time over the window.
	window := func(wall time.Duration, busyTicks, sampleTicks uint64) *Monitor {
		total := uint64(wall / (10 * time.Millisecond))
		return &Monitor{
			first: &loadReading{at: t0, cpu: cpuTimes{busy: 5000, total: 90000}, sample: 40},
			last:  &loadReading{at: t0.Add(wall), cpu: cpuTimes{busy: 5000 + busyTicks, total: 90000 + total}, sample: 40 + sampleTicks},
		}
	}
	cases := []struct {
		name             string
		m                *Monitor
		fraction         float64
		competing, limit float64
		invalid          bool
	}{
		// A 1 s window: 10% of it, 100 ms, is above the floor.
		{"1 s, 90 ms not the sample", window(time.Second, 100, 91), DefaultCompetingLoadFraction, 90, 100, false},
		{"1 s, 100 ms not the sample (at the limit)", window(time.Second, 100, 90), DefaultCompetingLoadFraction, 100, 100, false},
		{"1 s, 110 ms not the sample", window(time.Second, 100, 89), DefaultCompetingLoadFraction, 110, 100, true},
		// A 200 ms window: 10% is 20 ms, under the 30 ms floor, so the floor is the limit.
		{"200 ms, 20 ms not the sample (10% but under the floor)", window(200*time.Millisecond, 20, 18), DefaultCompetingLoadFraction, 20, 30, false},
		{"200 ms, 40 ms not the sample", window(200*time.Millisecond, 20, 16), DefaultCompetingLoadFraction, 40, 30, true},
		// A looser limit from the stage's options (tests not about load use 1: never).
		{"1 s, 400 ms not the sample, half allowed", window(time.Second, 100, 60), 0.5, 400, 500, false},
		// Rounding: the sample's rusage-tick time above busy is no load, busy above the window is
		// no more than the window.
		{"sample time over busy time", window(time.Second, 50, 52), DefaultCompetingLoadFraction, 0, 100, false},
		{"busier than the window", window(200*time.Millisecond, 21, 0), DefaultCompetingLoadFraction, 200, 30, true},
	}
	for _, c := range cases {
		var env SampleEnv
		env.CPU = 1
		c.m.load(&env, c.fraction)
		if env.Load != "" || env.CompetingMs != c.competing || env.CompetingLimitMs != c.limit {
			t.Errorf("%s: load %q, competing %v ms (limit %v), want %v (limit %v)", c.name, env.Load, env.CompetingMs, env.CompetingLimitMs, c.competing, c.limit)
		}
		why := Invalidity(env, Telemetry{}, Telemetry{}, c.fraction)
		if invalid := strings.HasPrefix(why, "competing load on CPU 1: "); invalid != c.invalid || (!c.invalid && why != "") {
			t.Errorf("%s: invalidity %q, want invalid %v", c.name, why, c.invalid)
		}
	}

	// Load that could not be measured is said so and never invalidates.
	short := window(10*time.Millisecond, 1, 0)
	var env SampleEnv
	short.load(&env, DefaultCompetingLoadFraction)
	if !strings.HasPrefix(env.Load, "not measured: the sample was shorter than two /proc/stat ticks") || env.CompetingLimitMs != 0 {
		t.Errorf("a one-tick window: %+v", env)
	}
	unread := &Monitor{loadErr: errors.New("/proc/stat has no line for cpu7")}
	env = SampleEnv{}
	unread.load(&env, DefaultCompetingLoadFraction)
	if env.Load != "not measured: /proc/stat has no line for cpu7" {
		t.Errorf("an unreadable /proc/stat: load %q", env.Load)
	}
	env = SampleEnv{}
	(&Monitor{}).load(&env, DefaultCompetingLoadFraction)
	if !strings.HasPrefix(env.Load, "not measured: ") {
		t.Errorf("a sample that exited before the first reading: load %q", env.Load)
	}
}

// Cpus_allowed_list as the monitor reads it back from a /proc status file: the kernel's list
// format, the line found among the others (Cpus_allowed, the hex mask, is not it), and a file
// without it or with a garbled list is an error naming the file.
func TestAffinityReadBackFromStatusText(t *testing.T) {
	status := func(list string) string {
		return "Name:\toffline_replay_\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nPid:\t4243\n" +
			"Cpus_allowed:\t8d\n" + list + "Mems_allowed:\t00000001\nMems_allowed_list:\t0\nvoluntary_ctxt_switches:\t12\n"
	}
	dir := t.TempDir()
	for i, c := range []struct {
		text string
		want []int
		err  string
	}{
		{status("Cpus_allowed_list:\t3\n"), []int{3}, ""},
		{status("Cpus_allowed_list:\t0,2-3,7\n"), []int{0, 2, 3, 7}, ""},
		{status("Cpus_allowed_list:\t16-18\n"), []int{16, 17, 18}, ""},
		{status(""), nil, "has no Cpus_allowed_list"},
		{status("Cpus_allowed_list:\tx-3\n"), nil, `"x" is not a CPU number`},
		{status("Cpus_allowed_list:\t5-2\n"), nil, `bad range "5-2"`},
	} {
		path := filepath.Join(dir, fmt.Sprintf("status-%d", i))
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := run.ReadAllowedList(path)
		switch {
		case c.err == "" && (err != nil || !slices.Equal(got, c.want)):
			t.Errorf("case %d: %v, %v; want %v", i, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("case %d: error %v, want one saying %q", i, err, c.err)
		case c.err == "has no Cpus_allowed_list" && !strings.Contains(err.Error(), path):
			t.Errorf("case %d: error %v does not name %s", i, err, path)
		}
	}
}

// The monitor's read-back on a real process: pinned where it should be, no violation; moved
// off its CPU, the first violation is kept, naming the thread, both CPU sets and the file read,
// even after the process is moved back; a process that has exited is not counted as checked.
func TestMonitorCheckReadsAffinityBack(t *testing.T) {
	cpus := run.AllowedCPUs()
	measured := cpus[len(cpus)-1]
	proc := exec.Command("sleep", "300")
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	pid := proc.Process.Pid
	defer func() { proc.Process.Kill(); proc.Wait() }()
	pin := func(cpu int) {
		set := run.CPUSet([]int{cpu})
		if err := unix.SchedSetaffinity(pid, &set); err != nil {
			t.Fatal(err)
		}
	}
	pin(measured)
	// Checked by hand, without the monitor's loop (done is closed for Finish).
	m := &Monitor{pid: pid, cpu: measured, want: []int{measured}, stop: make(chan struct{}), done: make(chan struct{})}
	close(m.done)
	m.check()
	if m.checks != 1 || m.violation != "" {
		t.Fatalf("pinned to its CPU: %d checks, violation %q", m.checks, m.violation)
	}
	other, ok := OtherCPU(cpus, measured)
	if !ok {
		t.Skipf("one usable CPU (%d): no other CPU to move the process to", measured)
	}
	pin(other)
	m.check()
	want := fmt.Sprintf("affinity violation: thread %d of pid %d runs on CPUs %d, pinned to %d (read back from /proc/%d/task/%d/status Cpus_allowed_list)",
		pid, pid, other, measured, pid, pid)
	if m.checks != 2 || m.violation != want {
		t.Fatalf("moved off its CPU: %d checks, violation\n got %q\nwant %q", m.checks, m.violation, want)
	}
	pin(measured)
	m.check()
	if m.checks != 3 || m.violation != want {
		t.Errorf("moved back: violation %q; the first one must stay", m.violation)
	}
	proc.Process.Kill()
	proc.Wait()
	m.check()
	if m.checks != 3 {
		t.Errorf("an exited process counted as checked (%d checks)", m.checks)
	}
	var env SampleEnv
	m.Finish(&env, DefaultCompetingLoadFraction)
	if env.AffinityViolation != want || env.AffinityChecks != 3 || Invalidity(env, Telemetry{}, Telemetry{}, DefaultCompetingLoadFraction) != want {
		t.Errorf("finished evidence %+v", env)
	}
}
