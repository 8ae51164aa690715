package run

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// An Owner names one kvparity process so that a later process can tell whether it is still
// alive: a pid alone is recycled, so the pid is paired with the process's start time (clock
// ticks since boot, /proc/PID/stat field 22) and the boot's id. run_start records its owner,
// and the campaign lock names its holder with one.
type Owner struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start_ticks"`
	Boot  string `json:"boot_id,omitempty"`
	Host  string `json:"host,omitempty"`
}

var (
	selfOnce sync.Once
	self     Owner
)

// Self is this process as an Owner.
func Self() Owner {
	selfOnce.Do(func() {
		self = Owner{PID: os.Getpid(), Boot: bootID()}
		self.Start, _ = startTicks(self.PID)
		self.Host, _ = os.Hostname()
	})
	return self
}

// Alive reports whether the process o names still runs. An owner on another host or another
// boot cannot be checked from here: it is taken as alive on another host (its processes are
// not this machine's to kill) and as dead after a reboot of this one.
func (o Owner) Alive() bool {
	me := Self()
	if o.Host != "" && me.Host != "" && o.Host != me.Host {
		return true
	}
	if o.Boot != "" && me.Boot != "" && o.Boot != me.Boot {
		return false
	}
	if o.PID <= 0 {
		return false
	}
	st, ok := ReadProc(o.PID)
	if !ok || st.State == 'Z' || st.State == 'X' {
		return false
	}
	if o.Start == 0 {
		return true // recorded without a start time: the pid is all there is to go on
	}
	start, ok := startTicks(o.PID)
	return ok && start == o.Start
}

// startTicks is a process's start time in clock ticks since boot (/proc/PID/stat field 22).
func startTicks(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	// After "pid (comm)": state is field 3, so starttime (field 22) is the 20th of the rest.
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, false
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	return v, err == nil
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
