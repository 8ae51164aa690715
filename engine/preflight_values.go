package engine

// TooShortToJudge reports whether the probe ran too little CPU time to say anything about the
// replay (its threads starting up in parallel look multi-core), so the arm was taken as
// single-core whatever its parallelism or demand. The words for people are the surfaces'
// (campaignreport.PreflightText); engine only says what it decided.
func (p Preflight) TooShortToJudge() bool {
	return p.CPUMs < minJudgedCPUMs && (p.Parallelism > singleCoreParallelism || p.Demand > multiCoreDemand)
}

// A PreflightMeasure is one statistic the preflight judged: its name (the journal's field),
// its value, the threshold it was held against, and whether the value is above it.
type PreflightMeasure struct {
	Field     string  // "parallelism", "cpu_demand" or "cpu_ms"
	Value     float64 // the probe's figure
	Threshold float64 // multi-core above it ("cpu_ms": judged only from it up)
	Above     bool
}

// Decisive is the measures that decided the probe, so every surface can print them: the CPU
// time under the minimum when the probe was too short to judge; the measures above their
// thresholds when it was judged multi-core; both measures, each at or under its threshold,
// when it was judged single-core. The same figures always give the same measures.
func (p Preflight) Decisive() []PreflightMeasure {
	par := PreflightMeasure{"parallelism", p.Parallelism, singleCoreParallelism, p.Parallelism > singleCoreParallelism}
	dem := PreflightMeasure{"cpu_demand", p.Demand, multiCoreDemand, p.Demand > multiCoreDemand}
	switch {
	case p.TooShortToJudge():
		return []PreflightMeasure{{"cpu_ms", p.CPUMs, minJudgedCPUMs, false}}
	case par.Above && dem.Above:
		return []PreflightMeasure{par, dem}
	case par.Above:
		return []PreflightMeasure{par}
	case dem.Above:
		return []PreflightMeasure{dem}
	}
	return []PreflightMeasure{par, dem}
}
