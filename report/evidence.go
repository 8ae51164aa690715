package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Stage-3 rule names, as they appear in Evidence.Rules.
const (
	ruleOverlapRouting   = "overlap-sensitive routing"
	ruleImmediate        = "immediate placement"
	ruleQueueAccounting  = "queue accounting"
	rulePressureExercise = "pressure exercised"
	rulePressureBand     = "pressure band"
	ruleReadmitted       = "pressure readmitted"
	ruleNoCycling        = "no preempt/readmit cycling"
	ruleNoRunaway        = "no pressure runaway"
	ruleVirtualTime      = "virtual time advances"
	ruleTerminal         = "terminal cleanup"
	ruleHandoffs         = "handoffs complete"
	// ruleRecorded fails when the report's shape records no lifecycle (the 1.4.x release line):
	// it stands for every rule that needs routing, admission or pressure records.
	ruleRecorded = "lifecycle recorded"
)

// Thresholds of the stage-3 rules. The protocol names the failure modes in words ("repeated
// preempt/re-admit cycling", "a rapidly growing pressure count"); these make them checkable.
const (
	// maxPressurePerRequest: a request preempted or retracted more than this many times is
	// cycling. The qualified seeds show at most one event per request; three leaves room for a
	// request caught twice at a genuine edge.
	maxPressurePerRequest = 3
	// runawayShare: more pressure events than this share of the requests (and more than twice
	// the band's maximum) is a pressure flood, whatever the band says.
	runawayShare = 0.05
	// runawayMinEvents and runawayLastQuarter: with at least runawayMinEvents events, more than
	// runawayLastQuarter of them in the last quarter of the virtual-time span means the count
	// is growing rather than bounded.
	runawayMinEvents   = 8
	runawayLastQuarter = 0.75
)

// DefaultPressureBand is the band used when EvidenceOptions.PressureBand is zero: the protocol's
// 10 to 20 fully readmitted events for the throttle-oriented disaggregated seeds, and one to
// three ("when no seed exists") for aggregated rows, whose qualified seeds show one. It is a
// starting point for qualification (stage 3), not a band any seed was qualified at.
func DefaultPressureBand(disaggregated bool) [2]int {
	if disaggregated {
		return [2]int{10, 20}
	}
	return [2]int{1, 3}
}

// EvidenceOptions carries what the record alone cannot say.
type EvidenceOptions struct {
	// QueueThresholdSet: the row passes --router-queue-threshold. A record whose
	// metadata.router.config.router_queue_threshold is non-null counts as set too.
	QueueThresholdSet bool
	// PressureBand is the row's declared band (min, max pressure events); zero means the row
	// declares none and DefaultPressureBand for the record's topology is assumed (the rule
	// then says so and is marked Assumed).
	PressureBand [2]int
}

// The parts of a canonical record the evidence reads (aisimulate-core canonical.rs). Unknown
// fields are ignored, so newer harnesses still parse.
type evRecord struct {
	Coverage struct {
		Pressure *struct {
			Records                []evPressure `json:"records"`
			VllmPreemptionsTotal   int          `json:"vllm_preemptions_total"`
			SglangRetractionsTotal int          `json:"sglang_retractions_total"`
		} `json:"pressure"`
		KVIngest *struct {
			KindCounts map[string]int `json:"kind_counts"`
		} `json:"kv_ingest"`
	} `json:"coverage"`
	Metadata struct {
		Execution struct {
			Topology string `json:"topology"`
		} `json:"execution"`
		// The backend of each role: engine_config.<role>.engine_type up to Dynamo 1.5 (and in
		// the embedded engine), engine_config.<role>.engine.backend from 1.6 on.
		EngineConfig map[string]struct {
			EngineType string `json:"engine_type"`
			Engine     struct {
				Backend string `json:"backend"`
			} `json:"engine"`
		} `json:"engine_config"`
		Router struct {
			Config map[string]json.RawMessage `json:"config"`
		} `json:"router"`
	} `json:"metadata"`
	PerRequest []evRequest `json:"per_request"`
	// EngineType is the 1.4.x shape's backend, at the root (it has no metadata).
	EngineType string `json:"engine_type"`
	Summary    struct {
		NumRequests *int     `json:"num_requests"`
		DurationMs  *float64 `json:"duration_ms"`
		// The totals only the work fingerprint reads, kept as written.
		Completed           json.Number `json:"completed_requests"`
		InputTokens         json.Number `json:"total_input_tokens"`
		OutputTokens        json.Number `json:"total_output_tokens"`
		PrefixReuse         json.Number `json:"prefix_cache_reused_ratio"`
		FirstAdmissionReuse json.Number `json:"first_admission_prefix_cache_reused_ratio"`
	} `json:"summary"`
}

type evPressure struct {
	Ordinal        int      `json:"pressure_ordinal"`
	AtMs           float64  `json:"at_ms"`
	Pool           string   `json:"pool"`
	WorkerID       int      `json:"worker_id"`
	DPRank         int      `json:"dp_rank"`
	Kind           string   `json:"kind"`
	RequestUUID    string   `json:"request_uuid"`
	ReadmittedAtMs *float64 `json:"readmitted_at_ms"`
	StateBefore    struct {
		RunningRequests int `json:"running_requests"`
		ActiveBlocks    int `json:"active_blocks"`
	} `json:"state_before"`
}

type evRequest struct {
	UUID                   string   `json:"uuid"`
	ArrivalTimeMs          *float64 `json:"arrival_time_ms"`
	TerminalTimeMs         *float64 `json:"terminal_time_ms"`
	TerminalStatus         *string  `json:"terminal_status"`
	ReusedInputTokens      *float64 `json:"reused_input_tokens"`
	SourceHeldMs           *float64 `json:"source_held_ms"`
	PrefillWorkerIdx       *int     `json:"prefill_worker_idx"` // the 1.4.x shape's placement
	DestinationReservedMs  *float64 `json:"destination_reserved_ms"`
	DestinationActivatedMs *float64 `json:"destination_activated_ms"`
	SourceReleasedMs       *float64 `json:"source_released_ms"`
	RoutingHistory         []struct {
		Pool                  string   `json:"pool"`
		Outcome               string   `json:"outcome"`
		ReleasedAtMs          *float64 `json:"released_at_ms"`
		LogicalWorkerID       *int     `json:"logical_worker_id"`
		DPRank                int      `json:"dp_rank"`
		ReportedOverlapTokens float64  `json:"reported_overlap_tokens"`
	} `json:"routing_history"`
	AdmissionHistory []struct {
		Pool              string  `json:"pool"`
		AtMs              float64 `json:"at_ms"`
		ReusedInputTokens float64 `json:"reused_input_tokens"`
		IsReadmission     bool    `json:"is_readmission"`
	} `json:"admission_history"`
}

// Terminal status words; "stranded" is kvparity's: a request with no terminal status (or one it
// does not know), a non-completed status without a terminal time, or a request the summary
// counts but per_request does not list (the collector emits only terminal requests).
var terminalWords = []string{"completed", "rejected", "canceled", "failed", "stranded"}

// ExtractEvidence reads the lifecycle evidence of one canonical record and applies the
// protocol's stage-3 validity rules (each Rule says why, with the numbers). It is not on the
// hot path, so it decodes with encoding/json; malformed records are errors naming the field.
func ExtractEvidence(canonical []byte, o EvidenceOptions) (*Evidence, error) {
	var rec evRecord
	dec := json.NewDecoder(bytes.NewReader(canonical))
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("lifecycle evidence: %w", err)
	}
	e := &Evidence{
		Topology: rec.Metadata.Execution.Topology,
		Terminal: map[string]int{},
		KVEvents: map[string]int{"stored": 0, "removed": 0, "cleared": 0},
	}
	shape14 := line14(canonical)
	if e.Topology == "" {
		e.Topology = "aggregated"
		if _, ok := rec.Metadata.EngineConfig["prefill"]; ok || shape14 && handedOff(rec.PerRequest) {
			e.Topology = "disaggregated"
		}
	}
	disagg := e.Topology == "disaggregated"
	for _, role := range []string{"aggregated", "prefill", "decode"} {
		if c, ok := rec.Metadata.EngineConfig[role]; ok && (c.EngineType != "" || c.Engine.Backend != "") {
			e.Engine = c.EngineType
			if e.Engine == "" {
				e.Engine = c.Engine.Backend
			}
			break
		}
	}
	if e.Engine == "" {
		e.Engine = rec.EngineType
	}
	if raw, ok := rec.Metadata.Router.Config["router_queue_threshold"]; ok && string(bytes.TrimSpace(raw)) != "null" {
		e.QueueThresholdSet = true
	}
	e.QueueThresholdSet = e.QueueThresholdSet || o.QueueThresholdSet
	e.PressureBand = o.PressureBand
	if e.PressureBand == [2]int{} {
		e.PressureBand = DefaultPressureBand(disagg)
	}
	for _, w := range terminalWords {
		e.Terminal[w] = 0
	}

	pools := map[string]*PoolEvidence{}
	var order []string
	pool := func(name string) *PoolEvidence {
		if p, ok := pools[name]; ok {
			return p
		}
		p := &PoolEvidence{Pool: name}
		pools[name] = p
		order = append(order, name)
		return p
	}
	if disagg {
		pool(poolPrefill)
		pool(poolDecode)
	} else {
		pool(poolAgg)
	}

	e.Requests = len(rec.PerRequest)
	if n := rec.Summary.NumRequests; n != nil && *n > e.Requests {
		e.Terminal["stranded"] += *n - e.Requests
		e.Requests = *n
	}
	t := newTimeCheck()
	var handoff *HandoffEvidence
	if disagg {
		handoff = &HandoffEvidence{Expected: handoffOrder(e.Engine)}
	}
	orders := map[string]int{}
	workers := map[string]map[int]bool{}
	unknownOutcomes := 0
	for i := range rec.PerRequest {
		r := &rec.PerRequest[i]
		if r.ReusedInputTokens != nil && *r.ReusedInputTokens > 0 {
			e.RequestsWithReuse++
		}
		e.Terminal[terminalWord(r)]++
		t.request(r)
		for _, d := range r.RoutingHistory {
			p := pool(d.Pool)
			p.RoutingDecisions++
			if d.ReportedOverlapTokens > 0 {
				p.OverlapPositive++
			}
			switch d.Outcome {
			case "immediate":
				p.Immediate++
			case "queued":
				p.Queued++
				if d.ReleasedAtMs != nil {
					p.QueueReleased++
				}
			default:
				unknownOutcomes++
			}
			if d.LogicalWorkerID != nil {
				if workers[d.Pool] == nil {
					workers[d.Pool] = map[int]bool{}
				}
				workers[d.Pool][*d.LogicalWorkerID] = true
			}
		}
		reused := map[string]bool{}
		for _, a := range r.AdmissionHistory {
			p := pool(a.Pool)
			p.Admissions++
			if a.IsReadmission {
				p.Readmissions++
			}
			if a.ReusedInputTokens > 0 && !reused[a.Pool] {
				reused[a.Pool] = true
				p.RequestsWithReuse++
			}
		}
		if handoff != nil {
			countHandoff(handoff, r, orders)
		}
	}
	for name, ws := range workers {
		for w := range ws {
			pools[name].Workers = append(pools[name].Workers, w)
		}
		sort.Ints(pools[name].Workers)
	}
	if handoff != nil {
		handoff.Order = observedOrder(orders)
		e.Handoffs = handoff
	}

	perRequest := map[string]int{}
	if pr := rec.Coverage.Pressure; pr != nil {
		e.PreemptionsTotal = pr.VllmPreemptionsTotal
		e.RetractionsTotal = pr.SglangRetractionsTotal
		for _, p := range pr.Records {
			rec := PressureRecord{
				Ordinal: p.Ordinal, AtMs: p.AtMs, Pool: p.Pool, WorkerID: p.WorkerID, DPRank: p.DPRank,
				Kind: p.Kind, RequestUUID: p.RequestUUID, Readmitted: p.ReadmittedAtMs != nil,
				RunningBefore: p.StateBefore.RunningRequests, ActiveBlocks: p.StateBefore.ActiveBlocks,
			}
			if p.ReadmittedAtMs != nil {
				rec.ReadmittedAt = *p.ReadmittedAtMs
			}
			e.Pressure = append(e.Pressure, rec)
			pp := pool(p.Pool)
			pp.PressureEvents++
			if rec.Readmitted {
				pp.PressureReadmitted++
			}
			perRequest[p.RequestUUID]++
			t.pressure(rec)
		}
	}
	if ki := rec.Coverage.KVIngest; ki != nil {
		for k, v := range ki.KindCounts {
			e.KVEvents[k] = v
		}
	}
	e.VirtualStartMs, e.VirtualEndMs = t.span(rec.Summary.DurationMs)
	for _, name := range order {
		e.Pools = append(e.Pools, *pools[name])
	}
	e.Rules = rules(e, o.PressureBand == [2]int{}, unknownOutcomes, perRequest, t)
	if shape14 {
		unrecorded(e)
	}
	if w, err := workOf(&rec); err != nil {
		e.WorkError = err.Error()
	} else {
		e.Work = w
	}
	return e, nil
}

func terminalWord(r *evRequest) string {
	if r.TerminalStatus == nil {
		return "stranded"
	}
	switch s := *r.TerminalStatus; s {
	case "completed":
		return s
	case "rejected", "canceled", "failed":
		if r.TerminalTimeMs == nil {
			return "stranded"
		}
		return s
	}
	return "stranded"
}

// handoffOrder is the backend's HandoffOrder (Dynamo's lib/mocker/src/replay/offline/disagg.rs).
func handoffOrder(engine string) string {
	if engine == "sglang" {
		return "destination-first"
	}
	return "source-first"
}

// countHandoff classifies one request's handoff. SourceFirst (vLLM): source held <= destination
// reserved <= destination activated <= source released; DestinationFirst (SGLang): destination
// reserved <= source held <= destination activated <= source released. Equal times satisfy both.
func countHandoff(h *HandoffEvidence, r *evRequest, orders map[string]int) {
	stamps := []*float64{r.SourceHeldMs, r.DestinationReservedMs, r.DestinationActivatedMs, r.SourceReleasedMs}
	present := 0
	for _, s := range stamps {
		if s != nil {
			present++
		}
	}
	completed := r.TerminalStatus != nil && *r.TerminalStatus == "completed"
	if present == 0 && !completed {
		return // never reached a handoff (e.g. rejected at prefill)
	}
	h.Requests++
	if present < 4 {
		return
	}
	h.Complete++
	held, reserved, activated, released := *r.SourceHeldMs, *r.DestinationReservedMs, *r.DestinationActivatedMs, *r.SourceReleasedMs
	switch {
	case held < reserved:
		orders["source-first"]++
	case reserved < held:
		orders["destination-first"]++
	default:
		orders["simultaneous"]++
	}
	var inOrder bool
	if h.Expected == "destination-first" {
		inOrder = reserved <= held && held <= activated
	} else {
		inOrder = held <= reserved && reserved <= activated
	}
	if inOrder && activated <= released {
		h.InOrder++
	}
}

func observedOrder(orders map[string]int) string {
	sf, df := orders["source-first"], orders["destination-first"]
	switch {
	case sf > 0 && df > 0:
		return "mixed"
	case sf > 0:
		return "source-first"
	case df > 0:
		return "destination-first"
	case orders["simultaneous"] > 0:
		return "simultaneous"
	}
	return ""
}

// timeCheck gathers the virtual-time facts of a record.
type timeCheck struct {
	start, end     float64
	haveStart      bool
	haveEnd        bool
	backwards      []string // first few violations, in words
	violations     int
	lastPressureAt float64
	pressureSeen   bool
}

func newTimeCheck() *timeCheck { return &timeCheck{} }

func (t *timeCheck) violate(msg string) {
	t.violations++
	if len(t.backwards) < 3 {
		t.backwards = append(t.backwards, msg)
	}
}

func (t *timeCheck) request(r *evRequest) {
	if a := r.ArrivalTimeMs; a != nil && (!t.haveStart || *a < t.start) {
		t.start, t.haveStart = *a, true
	}
	if z := r.TerminalTimeMs; z != nil {
		if !t.haveEnd || *z > t.end {
			t.end, t.haveEnd = *z, true
		}
		if a := r.ArrivalTimeMs; a != nil && *z < *a {
			t.violate(fmt.Sprintf("request %s ends at %s ms before it arrives at %s ms", r.UUID, ms3(*z), ms3(*a)))
		}
	}
	for i := 1; i < len(r.AdmissionHistory); i++ {
		if r.AdmissionHistory[i].AtMs < r.AdmissionHistory[i-1].AtMs {
			t.violate(fmt.Sprintf("request %s admission %d at %s ms precedes admission %d at %s ms", r.UUID,
				i, ms3(r.AdmissionHistory[i].AtMs), i-1, ms3(r.AdmissionHistory[i-1].AtMs)))
		}
	}
}

func (t *timeCheck) pressure(p PressureRecord) {
	if t.pressureSeen && p.AtMs < t.lastPressureAt {
		t.violate(fmt.Sprintf("pressure event %d at %s ms precedes the previous one at %s ms", p.Ordinal, ms3(p.AtMs), ms3(t.lastPressureAt)))
	}
	t.lastPressureAt, t.pressureSeen = p.AtMs, true
}

func (t *timeCheck) span(duration *float64) (float64, float64) {
	end := t.end
	if !t.haveEnd && duration != nil {
		end = *duration
	}
	return t.start, end
}

func ms3(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// rules applies the stage-3 rules; bandAssumed says the row declares no pressure band.
func rules(e *Evidence, bandAssumed bool, unknownOutcomes int, perRequest map[string]int, t *timeCheck) []Rule {
	var out []Rule
	add := func(name string, ok bool, format string, args ...any) {
		out = append(out, Rule{Name: name, Passed: ok, Why: fmt.Sprintf(format, args...)})
	}
	routing := poolAgg
	if e.Topology == "disaggregated" {
		routing = poolPrefill // the decode router is overlap-blind by construction
	}
	var rp PoolEvidence
	for _, p := range e.Pools {
		if p.Pool == routing {
			rp = p
		}
	}
	if rp.RoutingDecisions == 0 {
		add(ruleOverlapRouting, false, "no %s routing decisions recorded", routing)
	} else {
		add(ruleOverlapRouting, rp.OverlapPositive > 0, "%d of %d %s routing decisions saw KV overlap > 0", rp.OverlapPositive, rp.RoutingDecisions, routing)
	}

	var parts []string
	immediateOK := true
	for _, p := range e.Pools {
		parts = append(parts, fmt.Sprintf("%s %d immediate of %d", p.Pool, p.Immediate, p.RoutingDecisions))
		if p.Immediate == 0 {
			immediateOK = false
		}
	}
	add(ruleImmediate, immediateOK, "%s", strings.Join(parts, ", "))

	queued, released, decisions := 0, 0, 0
	for _, p := range e.Pools {
		queued += p.Queued
		released += p.QueueReleased
		decisions += p.RoutingDecisions
	}
	switch {
	case unknownOutcomes > 0:
		add(ruleQueueAccounting, false, "%d of %d routing decisions are neither immediate nor queued", unknownOutcomes, decisions)
	case !e.QueueThresholdSet && queued > 0:
		add(ruleQueueAccounting, false, "%d queued placements but no router queue threshold is set: scheduler waiting must not be counted as router queueing", queued)
	case !e.QueueThresholdSet:
		add(ruleQueueAccounting, true, "router queue threshold unset: all %d decisions immediate, 0 queued, as expected", decisions)
	default:
		add(ruleQueueAccounting, released == queued, "router queue threshold set: %d of %d queued placements released (%d decisions)", released, queued, decisions)
	}

	total := len(e.Pressure)
	kind := pressureWord(e)
	band := e.PressureBand
	if total == 0 {
		add(rulePressureExercise, false, "0 %s: the block-capacity edge was not exercised", kind)
	} else {
		add(rulePressureExercise, true, "%d %s", total, kind)
	}
	if totals := e.PreemptionsTotal + e.RetractionsTotal; totals != total {
		add(rulePressureBand, false, "coverage totals say %d pressure events but %d records are listed", totals, total)
	} else if !bandAssumed {
		add(rulePressureBand, total >= band[0] && total <= band[1], "%d %s, band %d–%d", total, kind, band[0], band[1])
	} else {
		// A band the row never declared: the protocol's starting point, which a row qualifies
		// (stage 3) rather than a measured property of the revisions, so the rule says so.
		in := total >= band[0] && total <= band[1]
		why := fmt.Sprintf("%d %s, band %d–%d assumed (the row declares no [determinism] pressure_band; the protocol's starting band for a%s %s row)",
			total, kind, band[0], band[1], article(e.Topology), e.Topology)
		if !in {
			why += ": qualify the row's band (stage 3)"
		}
		out = append(out, Rule{Name: rulePressureBand, Passed: in, Why: why, Assumed: true})
	}
	readmitted := 0
	for _, p := range e.Pressure {
		if p.Readmitted {
			readmitted++
		}
	}
	if total == 0 {
		add(ruleReadmitted, true, "no pressure events to readmit")
	} else {
		add(ruleReadmitted, readmitted == total, "%d of %d pressure events fully readmitted", readmitted, total)
	}

	worst, worstN := "", 0
	for u, n := range perRequest {
		if n > worstN || (n == worstN && u < worst) {
			worst, worstN = u, n
		}
	}
	if worstN > maxPressurePerRequest {
		add(ruleNoCycling, false, "request %s was hit by %d pressure events (limit %d): repeated preempt/readmit cycling", worst, worstN, maxPressurePerRequest)
	} else {
		add(ruleNoCycling, true, "at most %d pressure %s on one request (limit %d)", worstN, plural(worstN, "event", "events"), maxPressurePerRequest)
	}

	out = append(out, runawayRule(e, total))

	span := e.VirtualEndMs - e.VirtualStartMs
	switch {
	case !(span > 0):
		add(ruleVirtualTime, false, "virtual time does not advance: span %s ms (from %s to %s ms)", ms3(span), ms3(e.VirtualStartMs), ms3(e.VirtualEndMs))
	case t.violations > 0:
		add(ruleVirtualTime, false, "%d timestamps go backwards, e.g. %s", t.violations, strings.Join(t.backwards, "; "))
	default:
		add(ruleVirtualTime, true, "virtual time runs %s → %s ms; pressure and admission times never go backwards", ms3(e.VirtualStartMs), ms3(e.VirtualEndMs))
	}

	c := e.Terminal
	add(ruleTerminal, e.Requests > 0 && c["completed"] == e.Requests, "%d of %d requests completed; %d rejected, %d canceled, %d failed, %d stranded",
		c["completed"], e.Requests, c["rejected"], c["canceled"], c["failed"], c["stranded"])

	if h := e.Handoffs; h != nil {
		ok := h.Requests > 0 && h.Complete == h.Requests && h.InOrder == h.Complete
		add(ruleHandoffs, ok, "%d of %d handoffs complete, %d in %s order (observed %s)", h.Complete, h.Requests, h.InOrder, h.Expected, orDash(h.Order))
	}
	return out
}

func runawayRule(e *Evidence, total int) Rule {
	limit := int(math.Floor(runawayShare * float64(e.Requests)))
	limit = max(limit, 2*e.PressureBand[1])
	if total > limit {
		return Rule{Name: ruleNoRunaway, Passed: false, Why: fmt.Sprintf("%d pressure events exceed max(5%% of %d requests, twice the band maximum) = %d: a pressure flood", total, e.Requests, limit)}
	}
	span := e.VirtualEndMs - e.VirtualStartMs
	if total >= runawayMinEvents && span > 0 {
		cut := e.VirtualEndMs - span/4
		late := 0
		for _, p := range e.Pressure {
			if p.AtMs >= cut {
				late++
			}
		}
		if float64(late) > runawayLastQuarter*float64(total) {
			return Rule{Name: ruleNoRunaway, Passed: false, Why: fmt.Sprintf("%d of %d pressure events fall in the last quarter of virtual time (after %s ms): the count is growing, not bounded", late, total, ms3(cut))}
		}
	}
	return Rule{Name: ruleNoRunaway, Passed: true, Why: fmt.Sprintf("%d pressure events (limit %d), not concentrated at the end of the run", total, limit)}
}

func pressureWord(e *Evidence) string {
	switch {
	case e.Engine == "sglang":
		return "retractions"
	case e.Engine == "vllm" || e.Engine == "trtllm":
		return "preemptions"
	}
	return "pressure events"
}

// article is "n" before a topology word starting with a vowel ("an aggregated row").
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "n"
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func orDash(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// passed reports whether every stage-3 rule passed.
func (e *Evidence) passed() bool {
	return !slices.ContainsFunc(e.Rules, func(r Rule) bool { return !r.Passed })
}

// failed returns the rules that did not pass.
func (e *Evidence) failed() []Rule {
	var out []Rule
	for _, r := range e.Rules {
		if !r.Passed {
			out = append(out, r)
		}
	}
	return out
}

// handedOff reports whether any request of a 1.4.x report went through a prefill worker or a
// source hold: the shape's only sign of a disaggregated run (it has no metadata).
func handedOff(reqs []evRequest) bool {
	for i := range reqs {
		if reqs[i].PrefillWorkerIdx != nil || reqs[i].SourceHeldMs != nil {
			return true
		}
	}
	return false
}

// unrecorded turns the evidence of a 1.4.x report into what that shape can show. It records no
// routing history, admission history, pressure records or KV ingest, so zeros there would be
// claims, not counts: the pools, pressure and KV events are dropped, and the rules that read
// them give way to one failing rule that says so. The rules its per-request fields can check
// (virtual time, terminal cleanup, handoffs) stay.
func unrecorded(e *Evidence) {
	e.Unrecorded = "the report has the 1.4.x shape, which records no routing history, admission history, pressure records or KV ingest"
	e.Pools, e.Pressure, e.KVEvents = nil, nil, nil
	kept := []Rule{{Name: ruleRecorded, Why: e.Unrecorded + ": overlap-sensitive routing, immediate placement, queue accounting and the pressure rules cannot be checked on it"}}
	for _, r := range e.Rules {
		if r.Name == ruleVirtualTime || r.Name == ruleTerminal || r.Name == ruleHandoffs {
			kept = append(kept, r)
		}
	}
	e.Rules = kept
}
