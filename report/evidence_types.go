package report

// Lifecycle evidence of one canonical record (protocol stage 3). The extraction lives in
// evidence.go; these are the value types the engine publishes and the UI and campaign report
// show.

// Pool names as they appear in canonical records.
const (
	PoolAgg     = "agg"
	PoolPrefill = "prefill"
	PoolDecode  = "decode"
)

// A PoolEvidence counts what one pool did over the whole run.
type PoolEvidence struct {
	Pool               string
	RoutingDecisions   int // routing_history entries in this pool
	OverlapPositive    int // decisions with reported_overlap_tokens > 0
	Immediate          int
	Queued             int // meaningful only when the row sets --router-queue-threshold
	QueueReleased      int // queued decisions with released_at_ms set
	Admissions         int
	Readmissions       int
	PressureEvents     int
	PressureReadmitted int
	RequestsWithReuse  int // requests whose reused_input_tokens (this pool) > 0
	Workers            []int
}

// A PressureRecord is one coverage.pressure.records entry.
type PressureRecord struct {
	Ordinal       int
	AtMs          float64
	Pool          string
	WorkerID      int
	DPRank        int
	Kind          string // vllm_preemption | sglang_retraction
	RequestUUID   string
	ReadmittedAt  float64
	Readmitted    bool
	RunningBefore int
	ActiveBlocks  int
}

// A HandoffEvidence summarises disaggregated prefill→decode handoffs.
type HandoffEvidence struct {
	Requests int    // requests that went through both pools
	Complete int    // all four handoff timestamps present
	InOrder  int    // complete and ordered as the backend's HandoffOrder says
	Order    string // "source-first" (vLLM) or "destination-first" (SGLang), as observed
	// Expected is the order the engine's HandoffOrder prescribes ("source-first" for vLLM and
	// TRT-LLM, "destination-first" for SGLang); Order may also be "simultaneous" (every
	// complete handoff held the source and reserved the destination at the same virtual time)
	// or "mixed".
	Expected string
}

// A Rule is one stage-3 validity rule applied to the evidence.
type Rule struct {
	Name   string // e.g. "pressure band", "no preempt/readmit cycling", "virtual time advances"
	Passed bool
	Why    string // in words, with the numbers
}

// Evidence is everything stage 3 asks a frozen configuration to prove, from one record.
type Evidence struct {
	Topology          string // aggregated | disaggregated
	Engine            string // vllm | sglang | trtllm
	QueueThresholdSet bool   // router queueing explicitly enabled
	Requests          int
	Pools             []PoolEvidence
	Pressure          []PressureRecord
	PreemptionsTotal  int
	RetractionsTotal  int
	Handoffs          *HandoffEvidence // nil for aggregated
	Terminal          map[string]int   // completed, rejected, canceled, failed, stranded
	VirtualStartMs    float64
	VirtualEndMs      float64
	KVEvents          map[string]int // stored, removed, cleared (from coverage.kv_ingest)
	Rules             []Rule
	RequestsWithReuse int    // per_request records with reused_input_tokens > 0 (golden-point drift detector)
	PressureBand      [2]int // the band the "pressure band" rule applied (min, max)
}
