package instrument

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kvparity/engine/run"
	"kvparity/verdict"
)

func TestReadCPUTimes(t *testing.T) {
	cpu := run.AllowedCPUs()[0]
	a, err := readCPUTimes(cpu)
	if err != nil {
		t.Fatal(err)
	}
	if a.total == 0 || a.busy > a.total {
		t.Fatalf("cpu%d times %+v", cpu, a)
	}
	if _, err := readCPUTimes(1 << 20); err == nil || !strings.Contains(err.Error(), "no line for cpu1048576") {
		t.Fatalf("absent CPU: %v", err)
	}
}

func writeSys(t *testing.T, root, rel, val string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(val+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTelemetry(t *testing.T) {
	old := sysRoot
	defer func() { sysRoot = old }()

	sysRoot = t.TempDir() // a KVM guest: nothing there
	if tel := ReadTelemetry(1); tel.Available() {
		t.Fatalf("empty /sys gave telemetry %+v", tel)
	}

	root := t.TempDir()
	sysRoot = root
	writeSys(t, root, "devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "2400000")
	writeSys(t, root, "devices/system/cpu/cpu1/thermal_throttle/core_throttle_count", "7")
	writeSys(t, root, "devices/system/cpu/cpu1/thermal_throttle/package_throttle_count", "2")
	writeSys(t, root, "class/thermal/thermal_zone0/temp", "41000")
	writeSys(t, root, "class/thermal/thermal_zone0/type", "x86_pkg_temp")
	before := ReadTelemetry(1)
	if !before.Available() || before.FreqKHz != 2400000 || before.Throttle["core_throttle_count"] != 7 ||
		before.TempMilliC["thermal_zone0:x86_pkg_temp"] != 41000 {
		t.Fatalf("telemetry %+v", before)
	}
	writeSys(t, root, "devices/system/cpu/cpu1/thermal_throttle/core_throttle_count", "9")
	after := ReadTelemetry(1)
	if rose := throttled(before, after); !slices.Equal(rose, []string{"core_throttle_count +2"}) {
		t.Fatalf("throttled %v", rose)
	}
	env := SampleEnv{CPU: 1, CompetingLimitMs: 30}
	if why := Invalidity(env, before, after, DefaultCompetingLoadFraction); !strings.Contains(why, "thermal throttling during the sample: core_throttle_count +2") {
		t.Fatalf("invalidity %q", why)
	}
}

func TestInvalidityCompetingLoad(t *testing.T) {
	env := SampleEnv{CPU: 1, WallMs: 1000, BusyMs: 1000, SampleCPUMs: 850, CompetingMs: 150, CompetingLimitMs: 100}
	if why := Invalidity(env, Telemetry{}, Telemetry{}, DefaultCompetingLoadFraction); !strings.Contains(why, "competing load on CPU 1: 150 ms") {
		t.Fatalf("invalidity %q", why)
	}
	env.CompetingMs = 90
	if why := Invalidity(env, Telemetry{}, Telemetry{}, DefaultCompetingLoadFraction); why != "" {
		t.Fatalf("below the limit: %q", why)
	}
	env.Load = "not measured: /proc/stat missing"
	env.CompetingMs = 500
	if why := Invalidity(env, Telemetry{}, Telemetry{}, DefaultCompetingLoadFraction); why != "" {
		t.Fatalf("unmeasured load must not invalidate: %q", why)
	}
}

// kvparity's own threads leave the measured CPU during samples and get their mask back after.
func TestSelfPlacement(t *testing.T) {
	cpus := run.AllowedCPUs()
	if len(cpus) < 2 {
		p := NewSelfPlacement(cpus[0])
		if p.Caveat() == "" || p.Apply() != nil {
			t.Fatalf("one CPU: caveat %q", p.Caveat())
		}
		return
	}
	measured := cpus[len(cpus)-1]
	p := NewSelfPlacement(measured)
	if p.Caveat() != "" {
		t.Fatalf("caveat on %d CPUs: %s", len(cpus), p.Caveat())
	}
	if err := p.Apply(); err != nil {
		t.Fatal(err)
	}
	defer p.Restore()
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range tasks {
		got, err := run.ReadAllowedList(filepath.Join("/proc/self/task", task.Name(), "status"))
		if err != nil {
			continue
		}
		if slices.Contains(got, measured) {
			t.Fatalf("thread %s still allowed on measured CPU %d: %v", task.Name(), measured, got)
		}
	}
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	if got := run.AllowedCPUs(); !slices.Equal(got, cpus) {
		t.Fatalf("mask after restore %v, want %v", got, cpus)
	}
}

func TestDecideFootprint(t *testing.T) {
	base := Binary{Size: 1000, TextSize: 400}
	cases := []struct {
		size, text int64
		explained  string
		want       string
	}{
		{1040, 410, "", "PASS"},
		{1060, 410, "", "FAIL"}, // binary +6%
		{1000, 430, "", "FAIL"}, // .text +7.5%
		{1060, 430, "adds the tracing tables", "PASS"},
		{900, 0, "", "PASS"}, // not ELF: size only
	}
	for _, c := range cases {
		f := DecideFootprint(base, Binary{Size: c.size, TextSize: c.text}, c.explained)
		if f.Verdict != verdict.Word(c.want) {
			t.Errorf("size %d text %d explained %q: %s (%s)", c.size, c.text, c.explained, f.Verdict, f.Reason)
		}
		if c.explained != "" && !strings.Contains(f.Reason, c.explained) {
			t.Errorf("explanation missing from %q", f.Reason)
		}
	}
	// Line tables grow +64% with the code but the shipped binary +3%: the shipped one is judged.
	f := DecideFootprint(Binary{Size: 90e6, ShippedSize: 6e6, TextSize: 4e6}, Binary{Size: 156e6, ShippedSize: 6.18e6, TextSize: 4.1e6}, "")
	if f.Verdict != verdict.Pass || !f.Shipped || f.BaselineSize != 90e6 ||
		!strings.HasPrefix(f.Reason, "binary without debug sections +3.00% (6000000 → 6180000 bytes)") || !strings.Contains(f.Reason, "with debug sections 90000000 → 156000000 bytes") {
		t.Errorf("shipped sizes: %s %+v", f.Verdict, f)
	}
}
