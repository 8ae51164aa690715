package instrument

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// clockTicksPerSecond is USER_HZ, the unit of /proc/stat. It is 100 on every Linux ABI Go
// supports (the kernel exports USER_HZ, not HZ, for exactly this reason).
const clockTicksPerSecond = 100

// cpuTimes is one CPU's line of /proc/stat, in ticks.
type cpuTimes struct {
	busy, total uint64
}

// readCPUTimes reads the measured CPU's cumulative busy and total ticks. Busy is everything but
// idle and iowait: user, nice, system, irq, softirq and steal (a hypervisor taking the CPU is
// competing load too).
func readCPUTimes(cpu int) (cpuTimes, error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return cpuTimes{}, err
	}
	defer f.Close()
	prefix := "cpu" + strconv.Itoa(cpu) + " "
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		fields := strings.Fields(line)[1:]
		var t cpuTimes
		for i, s := range fields {
			if i >= 8 { // guest and guest_nice are already inside user and nice
				break
			}
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return cpuTimes{}, fmt.Errorf("/proc/stat cpu%d field %d: %q is not a tick count", cpu, i+1, s)
			}
			t.total += v
			if i != 3 && i != 4 { // idle, iowait
				t.busy += v
			}
		}
		return t, nil
	}
	if err := sc.Err(); err != nil {
		return cpuTimes{}, err
	}
	return cpuTimes{}, fmt.Errorf("/proc/stat has no line for cpu%d", cpu)
}

// A Telemetry is a snapshot of the measured CPU: frequency, temperatures and throttle counters where
// the host exposes them (cpufreq, thermal_zone, thermal_throttle). A KVM guest usually has none
// of them.
type Telemetry struct {
	FreqKHz    int64             `json:"freq_khz,omitempty"`     // scaling_cur_freq
	TempMilliC map[string]int64  `json:"temp_milli_c,omitempty"` // thermal_zone type → millidegrees
	Throttle   map[string]uint64 `json:"throttle,omitempty"`     // core/package_throttle_count
}

// Available reports whether any telemetry source exists.
func (t Telemetry) Available() bool {
	return t.FreqKHz > 0 || len(t.TempMilliC) > 0 || len(t.Throttle) > 0
}

// sysRoot is where telemetry is read from; tests point it at a fake tree.
var sysRoot = "/sys"

// ReadTelemetry snapshots cpu's telemetry (an empty one where /sys has none).
func ReadTelemetry(cpu int) Telemetry {
	var t Telemetry
	cpuDir := filepath.Join(sysRoot, "devices/system/cpu", "cpu"+strconv.Itoa(cpu))
	if v, ok := readInt(filepath.Join(cpuDir, "cpufreq/scaling_cur_freq")); ok {
		t.FreqKHz = v
	}
	for _, name := range []string{"core_throttle_count", "package_throttle_count"} {
		if v, ok := readInt(filepath.Join(cpuDir, "thermal_throttle", name)); ok {
			if t.Throttle == nil {
				t.Throttle = map[string]uint64{}
			}
			t.Throttle[name] = uint64(v)
		}
	}
	zones, _ := filepath.Glob(filepath.Join(sysRoot, "class/thermal/thermal_zone*"))
	sort.Strings(zones)
	for _, z := range zones {
		v, ok := readInt(filepath.Join(z, "temp"))
		if !ok {
			continue
		}
		typ, err := os.ReadFile(filepath.Join(z, "type"))
		name := filepath.Base(z)
		if err == nil {
			name += ":" + strings.TrimSpace(string(typ))
		}
		if t.TempMilliC == nil {
			t.TempMilliC = map[string]int64{}
		}
		t.TempMilliC[name] = v
	}
	return t
}

func readInt(path string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return v, err == nil
}

// throttled names the counters that rose between two snapshots.
func throttled(before, after Telemetry) []string {
	var rose []string
	for name, a := range after.Throttle {
		if b, ok := before.Throttle[name]; ok && a > b {
			rose = append(rose, fmt.Sprintf("%s +%d", name, a-b))
		}
	}
	sort.Strings(rose)
	return rose
}
