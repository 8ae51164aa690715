package report

// Lifecycle evidence of one canonical record (protocol stage 3). The extraction lives in
// evidence.go; these are the value types the engine publishes and the UI and campaign report
// show.

// Pool names as they appear in canonical records.
const (
	poolAgg     = "agg"
	poolPrefill = "prefill"
	poolDecode  = "decode"
)

// A PoolEvidence counts what one pool did over the whole run.
type PoolEvidence struct {
	Pool               string `json:"pool"`
	RoutingDecisions   int    `json:"routing_decisions"` // routing_history entries in this pool
	OverlapPositive    int    `json:"overlap_positive"`  // decisions with reported_overlap_tokens > 0
	Immediate          int    `json:"immediate"`
	Queued             int    `json:"queued"`         // meaningful only when the row sets --router-queue-threshold
	QueueReleased      int    `json:"queue_released"` // queued decisions with released_at_ms set
	Admissions         int    `json:"admissions"`
	Readmissions       int    `json:"readmissions"`
	PressureEvents     int    `json:"pressure_events"`
	PressureReadmitted int    `json:"pressure_readmitted"`
	RequestsWithReuse  int    `json:"requests_with_reuse"` // requests whose reused_input_tokens (this pool) > 0
	Workers            []int  `json:"workers"`
}

// A PressureRecord is one coverage.pressure.records entry.
type PressureRecord struct {
	Ordinal       int     `json:"ordinal"`
	AtMs          float64 `json:"at_ms"`
	Pool          string  `json:"pool"`
	WorkerID      int     `json:"worker_id"`
	DPRank        int     `json:"dp_rank"`
	Kind          string  `json:"kind"` // vllm_preemption | sglang_retraction
	RequestUUID   string  `json:"request_uuid"`
	ReadmittedAt  float64 `json:"readmitted_at_ms"`
	Readmitted    bool    `json:"readmitted"`
	RunningBefore int     `json:"running_before"`
	ActiveBlocks  int     `json:"active_blocks"`
}

// A HandoffEvidence summarises disaggregated prefill→decode handoffs.
type HandoffEvidence struct {
	Requests int    `json:"requests"` // requests that went through both pools
	Complete int    `json:"complete"` // all four handoff timestamps present
	InOrder  int    `json:"in_order"` // complete and ordered as the backend's HandoffOrder says
	Order    string `json:"order"`    // "source-first" (vLLM) or "destination-first" (SGLang), as observed
	// Expected is the order the engine's HandoffOrder prescribes ("source-first" for vLLM and
	// TRT-LLM, "destination-first" for SGLang); Order may also be "simultaneous" (every
	// complete handoff held the source and reserved the destination at the same virtual time)
	// or "mixed".
	Expected string `json:"expected"`
}

// A Rule is one stage-3 validity rule applied to the evidence.
type Rule struct {
	Name   string `json:"name"` // e.g. "pressure band", "no preempt/readmit cycling", "virtual time advances"
	Passed bool   `json:"passed"`
	Why    string `json:"why"` // in words, with the numbers
	// Assumed: the rule checked a default the row never declared (the protocol's starting
	// pressure band for the topology). Its failure asks for the row to be qualified, so it is
	// named after the rules the row did declare and never ahead of an unexplained difference.
	Assumed bool `json:"assumed,omitempty"`
}

// Evidence is everything stage 3 asks a frozen configuration to prove, from one record. Its
// JSON (the campaign's evidence files, run --json, report.json) is snake_case like every
// document of kvparity.
type Evidence struct {
	Topology          string           `json:"topology"`            // aggregated | disaggregated
	Engine            string           `json:"engine"`              // vllm | sglang | trtllm
	QueueThresholdSet bool             `json:"queue_threshold_set"` // router queueing explicitly enabled
	Requests          int              `json:"requests"`
	Pools             []PoolEvidence   `json:"pools"`
	Pressure          []PressureRecord `json:"pressure"`
	PreemptionsTotal  int              `json:"preemptions_total"`
	RetractionsTotal  int              `json:"retractions_total"`
	Handoffs          *HandoffEvidence `json:"handoffs"` // nil for aggregated
	Terminal          map[string]int   `json:"terminal"` // completed, rejected, canceled, failed, stranded
	VirtualStartMs    float64          `json:"virtual_start_ms"`
	VirtualEndMs      float64          `json:"virtual_end_ms"`
	KVEvents          map[string]int   `json:"kv_events"` // stored, removed, cleared (from coverage.kv_ingest)
	// Unrecorded says what the report's shape does not record ("" when it records the whole
	// lifecycle); the pools, pressure records and KV events are then absent, not zero.
	Unrecorded        string `json:"unrecorded,omitempty"`
	Rules             []Rule `json:"rules"`
	RequestsWithReuse int    `json:"requests_with_reuse"` // per_request records with reused_input_tokens > 0 (golden-point drift detector)
	PressureBand      [2]int `json:"pressure_band"`       // the band the "pressure band" rule applied (min, max)
	// Work is the run's work fingerprint, what every timed sample of its arm must match;
	// WorkError says why a record gives none.
	Work      *WorkFingerprint `json:"work,omitempty"`
	WorkError string           `json:"work_error,omitempty"`
}
