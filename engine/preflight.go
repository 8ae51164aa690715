package engine

import (
	"math"
)

// Preflight (protocol stage 2's "after confirming that assumption during preflight"): before
// the first repetition, one probe run per arm, alone on the machine and allowed every usable
// CPU, measures whether the replay is effectively single-core: its CPU time over its wall
// time (how many CPUs it kept busy), its CPU demand (how many of its threads were running or
// waiting to run, from each thread's /proc schedstat), how its work split over its threads,
// and its context switches. A replay that keeps more than singleCoreParallelism CPUs busy, or
// demands more than multiCoreDemand (other work may have kept it from them), is multi-core:
// both arms' repetitions then get CPU sets of the measured size, identically.

// A Preflight is one arm's probe result, recorded in the journal and the report.
type Preflight struct {
	Arm  Arm   `json:"arm"`
	Gen  int   `json:"gen"`
	Run  RunID `json:"run"`
	CPUs []int `json:"cpus_allowed"`
	// Threads is how many threads the replay ran (seen while it ran); BusyThreads those that
	// ran at least a tenth of its CPU time.
	Threads     int `json:"threads"`
	BusyThreads int `json:"busy_threads"`
	// MainShare is the busiest thread's share of the replay's CPU time.
	MainShare float64 `json:"main_thread_share"`
	// CPUMs and WallMs are the process's user+system time and its wall time, Parallelism the
	// one over the other (the CPUs it kept busy); Demand is the CPUs its threads kept busy or
	// waited for, on average.
	CPUMs       float64 `json:"cpu_ms"`
	WallMs      float64 `json:"wall_ms"`
	Parallelism float64 `json:"parallelism"`
	Demand      float64 `json:"cpu_demand"`
	// Context switches over the run (rusage).
	VoluntarySwitches   int64 `json:"voluntary_switches"`
	InvoluntarySwitches int64 `json:"involuntary_switches"`
	// SingleCore: the replay is effectively single-core (it kept at most singleCoreParallelism
	// CPUs busy), so one CPU per repetition is right; CPUsPerRun is the set size both arms'
	// repetitions get (its parallelism rounded, at least 2, when it is not).
	SingleCore bool   `json:"single_core"`
	CPUsPerRun int    `json:"cpus_per_run"`
	Error      string `json:"error,omitempty"`
}

// singleCoreParallelism is the CPU time over wall time up to which a replay counts as
// effectively single-core: one busy thread plus a runtime's helpers (the embedded engine's Go
// GC workers, running on another CPU when allowed, add up to about a quarter).
const singleCoreParallelism = 1.5

// multiCoreDemand is the CPU demand (threads running or waiting to run, over wall time) above
// which a replay is multi-core even when other work kept it from the CPUs it wanted: CPU time
// over wall time only says what it got. The embedded engine demands 1.0–1.4 (its GC workers
// wait for the CPU its replay thread holds); a replay with two busy threads about 2.
const multiCoreDemand = 1.6

// minJudgedCPUMs is the CPU time below which a probe is too short to judge.
const minJudgedCPUMs = 50

// RecPreflight records one arm's preflight (Data: Preflight).
const RecPreflight RecordType = "preflight"

func init() {
	defineRecord(RecPreflight, func(h *History, r *Record, p *Preflight) {
		h.preflight[repKey{p.Arm, max(p.Gen, 1)}] = *p
	}, func(c *Campaign, h *History, r *Record, p *Preflight) { c.emit(PreflightDone{Preflight: *p}) })
}

// Judge fills SingleCore and CPUsPerRun from the demand.
func (p *Preflight) Judge() {
	// A probe of a few milliseconds is the runtime starting up (its threads initialise in
	// parallel): too short to say anything about the replay, which is then taken as single-core.
	p.SingleCore = p.Parallelism <= singleCoreParallelism && p.Demand <= multiCoreDemand || p.CPUMs < minJudgedCPUMs
	p.CPUsPerRun = 1
	if !p.SingleCore {
		p.CPUsPerRun = max(2, min(len(p.CPUs), int(math.Round(max(p.Parallelism, p.Demand)))))
	}
}
