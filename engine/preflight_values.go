package engine

// TooShortToJudge reports whether the probe ran too little CPU time to say anything about the
// replay (its threads starting up in parallel look multi-core), so the arm was taken as
// single-core whatever its parallelism. The words for people are the surfaces'
// (campaignreport.PreflightText); engine only says what it decided.
func (p Preflight) TooShortToJudge() bool {
	return p.CPUMs < minJudgedCPUMs && p.Parallelism > singleCoreParallelism
}
