package engine

import (
	"fmt"
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
	if tel := readTelemetry(1); tel.available() {
		t.Fatalf("empty /sys gave telemetry %+v", tel)
	}

	root := t.TempDir()
	sysRoot = root
	writeSys(t, root, "devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "2400000")
	writeSys(t, root, "devices/system/cpu/cpu1/thermal_throttle/core_throttle_count", "7")
	writeSys(t, root, "devices/system/cpu/cpu1/thermal_throttle/package_throttle_count", "2")
	writeSys(t, root, "class/thermal/thermal_zone0/temp", "41000")
	writeSys(t, root, "class/thermal/thermal_zone0/type", "x86_pkg_temp")
	before := readTelemetry(1)
	if !before.available() || before.FreqKHz != 2400000 || before.Throttle["core_throttle_count"] != 7 ||
		before.TempMilliC["thermal_zone0:x86_pkg_temp"] != 41000 {
		t.Fatalf("telemetry %+v", before)
	}
	writeSys(t, root, "devices/system/cpu/cpu1/thermal_throttle/core_throttle_count", "9")
	after := readTelemetry(1)
	if rose := throttled(before, after); !slices.Equal(rose, []string{"core_throttle_count +2"}) {
		t.Fatalf("throttled %v", rose)
	}
	p := &perfRun{}
	env := SampleEnv{CPU: 1, CompetingLimitMs: 30}
	if why := p.invalidity(env, before, after); !strings.Contains(why, "thermal throttling during the sample: core_throttle_count +2") {
		t.Fatalf("invalidity %q", why)
	}
}

func TestInvalidityCompetingLoad(t *testing.T) {
	p := &perfRun{}
	env := SampleEnv{CPU: 1, WallMs: 1000, BusyMs: 1000, SampleCPUMs: 850, CompetingMs: 150, CompetingLimitMs: 100}
	if why := p.invalidity(env, telemetry{}, telemetry{}); !strings.Contains(why, "competing load on CPU 1: 150 ms") {
		t.Fatalf("invalidity %q", why)
	}
	env.CompetingMs = 90
	if why := p.invalidity(env, telemetry{}, telemetry{}); why != "" {
		t.Fatalf("below the limit: %q", why)
	}
	env.Load = "not measured: /proc/stat missing"
	env.CompetingMs = 500
	if why := p.invalidity(env, telemetry{}, telemetry{}); why != "" {
		t.Fatalf("unmeasured load must not invalidate: %q", why)
	}
}

// kvparity's own threads leave the measured CPU during samples and get their mask back after.
func TestSelfPlacement(t *testing.T) {
	cpus := run.AllowedCPUs()
	if len(cpus) < 2 {
		p := newSelfPlacement(cpus[0])
		if p.caveat == "" || p.apply() != nil {
			t.Fatalf("one CPU: caveat %q", p.caveat)
		}
		return
	}
	measured := cpus[len(cpus)-1]
	p := newSelfPlacement(measured)
	if p.caveat != "" {
		t.Fatalf("caveat on %d CPUs: %s", len(cpus), p.caveat)
	}
	if err := p.apply(); err != nil {
		t.Fatal(err)
	}
	defer p.restore()
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
	if err := p.restore(); err != nil {
		t.Fatal(err)
	}
	if got := run.AllowedCPUs(); !slices.Equal(got, cpus) {
		t.Fatalf("mask after restore %v, want %v", got, cpus)
	}
}

func TestDecideFootprint(t *testing.T) {
	base := PinnedArtifact{Size: 1000, TextSize: 400}
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
		f := decideFootprint(base, PinnedArtifact{Size: c.size, TextSize: c.text}, c.explained)
		if f.Verdict != verdict.Word(c.want) {
			t.Errorf("size %d text %d explained %q: %s (%s)", c.size, c.text, c.explained, f.Verdict, f.Reason)
		}
		if c.explained != "" && !strings.Contains(f.Reason, c.explained) {
			t.Errorf("explanation missing from %q", f.Reason)
		}
	}
	// Line tables grow +64% with the code but the shipped binary +3%: the shipped one is judged.
	f := decideFootprint(PinnedArtifact{Size: 90e6, ShippedSize: 6e6, TextSize: 4e6}, PinnedArtifact{Size: 156e6, ShippedSize: 6.18e6, TextSize: 4.1e6}, "")
	if f.Verdict != verdict.Pass || !f.Shipped || f.BaselineSize != 90e6 ||
		!strings.HasPrefix(f.Reason, "binary without debug sections +3.00% (6000000 → 6180000 bytes)") || !strings.Contains(f.Reason, "with debug sections 90000000 → 156000000 bytes") {
		t.Errorf("shipped sizes: %s %+v", f.Verdict, f)
	}
}

func TestPinRecordsTheShippedSize(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := pinArtifact(t.TempDir(), Candidate, 1, ArmSpec{}, self)
	if err != nil {
		t.Fatal(err)
	}
	text, debug, _ := elfSizes(self)
	if p.ShippedSize != p.Size-debug || p.ShippedSize <= 0 || p.TextSize != text { // (go test links without DWARF: debug may be 0)
		t.Errorf("size %d shipped %d (debug %d) text %d", p.Size, p.ShippedSize, debug, p.TextSize)
	}
}

// The session telemetry rules where /sys has frequencies: the frequency floor and the
// frequency/ratio confounding check.
func TestTelemetryDiagnostics(t *testing.T) {
	s := &perfSeries{pairs: map[int]*PerfPair{}}
	tel := func(khz int64) *telemetry { return &telemetry{FreqKHz: khz} }
	for i := 1; i <= 20; i++ {
		b, c := RunID(fmt.Sprintf("b%d", i)), RunID(fmt.Sprintf("c%d", i))
		fb, fc := int64(3000000), int64(3000000+1000*(i%5))
		if i == 7 {
			fb = 2500000 // one slow sample: below 0.95 × median
		}
		s.samples = append(s.samples,
			PerfSample{Run: b, Env: SampleEnv{Before: tel(fb), After: tel(fb)}},
			PerfSample{Run: c, Env: SampleEnv{Before: tel(fc), After: tel(fc)}})
		// The ratio follows the candidate's frequency advantage exactly: confounded.
		s.pairs[i] = &PerfPair{Pair: i, BaselineRun: b, CandidateRun: c, Ratio: 1 + float64(i%5)/100}
	}
	ds := telemetryDiagnostics(s, 20)
	if len(ds) != 2 {
		t.Fatalf("diagnostics %+v", ds)
	}
	if ds[0].Name != "frequency floor" || !ds[0].Breached() || !strings.Contains(ds[0].Detail, "min 2500000 kHz") {
		t.Errorf("floor %+v", ds[0])
	}
	if !strings.HasPrefix(ds[1].Name, "frequency confounding") || !ds[1].Breached() {
		t.Errorf("confounding %+v", ds[1])
	}
	if got := telemetryDiagnostics(&perfSeries{pairs: map[int]*PerfPair{}}, 20); got != nil {
		t.Errorf("no telemetry gave %+v", got)
	}
}
