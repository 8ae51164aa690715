package mocker

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// config is the parsed command line of `kvparity replay`: the clap flags of Dynamo's
// offline_replay_bench (lib/bench/offline_replay_bench.rs, same defaults) plus the kvparity
// extensions --variant, --progress-file and --scale-event.
type config struct {
	TracePath            string
	NumWorkers           int
	ServingMode          string // aggregated | disagg
	NumPrefillWorkers    int
	NumDecodeWorkers     int
	EngineType           string // vllm | sglang | trtllm
	RouterMode           string // kv-router | round-robin
	RouterQueueThreshold *float64
	ArrivalSpeedupRatio  float64
	TraceBlockSize       int
	BlockSize            int
	NumGPUBlocks         *int
	MaxNumSeqs           *int
	MaxNumBatchedTokens  *int
	SpeedupRatio         *float64
	DecodeSpeedupRatio   *float64
	KVBytesPerToken      *int
	KVTransferBandwidth  *float64
	KVTransferTimingMode string // full-prompt | destination-missing
	ReportJSON           string
	Iterations           int
	TimingsJSONL         string
	CanonicalJSONL       string
	RouterPolicyConfig   string

	// kvparity extensions
	Variant      string
	ProgressFile string
	ScaleEvents  []scaleEvent
}

// A scaleEvent sets the number of live aggregated workers at a virtual time (kvparity
// extension --scale-event AT_MS:WORKERS, used by the scale-to-zero fixture). Workers beyond the
// count drain: they take no new work and finish what they hold.
type scaleEvent struct {
	AtMs    float64
	Workers int
}

// A usageError is a command-line error: clap prints it as `error: ...` and exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func defaultConfig() config {
	return config{
		NumWorkers:           4,
		ServingMode:          "aggregated",
		NumPrefillWorkers:    1,
		NumDecodeWorkers:     1,
		EngineType:           "vllm",
		RouterMode:           "kv-router",
		ArrivalSpeedupRatio:  4.0,
		TraceBlockSize:       512,
		BlockSize:            64,
		KVTransferTimingMode: "full-prompt",
		Iterations:           1,
	}
}

type flagSpec struct {
	name   string
	meta   string
	values []string // value-enum choices, kebab-case
	set    func(c *config, v string) error
}

func flagTable() []flagSpec {
	usize := func(dst func(c *config) *int) func(c *config, v string) error {
		return func(c *config, v string) error {
			n, err := strconv.ParseUint(v, 10, 63)
			if err != nil {
				return fmt.Errorf("%s", rustIntErr(v))
			}
			*dst(c) = int(n)
			return nil
		}
	}
	optUsize := func(dst func(c *config) **int) func(c *config, v string) error {
		return func(c *config, v string) error {
			n, err := strconv.ParseUint(v, 10, 63)
			if err != nil {
				return fmt.Errorf("%s", rustIntErr(v))
			}
			x := int(n)
			*dst(c) = &x
			return nil
		}
	}
	f64 := func(dst func(c *config) *float64) func(c *config, v string) error {
		return func(c *config, v string) error {
			f, err := parseRustFloat(v)
			if err != nil {
				return err
			}
			*dst(c) = f
			return nil
		}
	}
	optF64 := func(dst func(c *config) **float64) func(c *config, v string) error {
		return func(c *config, v string) error {
			f, err := parseRustFloat(v)
			if err != nil {
				return err
			}
			*dst(c) = &f
			return nil
		}
	}
	str := func(dst func(c *config) *string) func(c *config, v string) error {
		return func(c *config, v string) error { *dst(c) = v; return nil }
	}
	return []flagSpec{
		{"--num-workers", "NUM_WORKERS", nil, usize(func(c *config) *int { return &c.NumWorkers })},
		{"--serving-mode", "SERVING_MODE", []string{"aggregated", "disagg"}, str(func(c *config) *string { return &c.ServingMode })},
		{"--num-prefill-workers", "NUM_PREFILL_WORKERS", nil, usize(func(c *config) *int { return &c.NumPrefillWorkers })},
		{"--num-decode-workers", "NUM_DECODE_WORKERS", nil, usize(func(c *config) *int { return &c.NumDecodeWorkers })},
		{"--engine-type", "ENGINE_TYPE", []string{"vllm", "sglang", "trtllm"}, str(func(c *config) *string { return &c.EngineType })},
		{"--router-mode", "ROUTER_MODE", []string{"round-robin", "kv-router"}, str(func(c *config) *string { return &c.RouterMode })},
		{"--router-queue-threshold", "ROUTER_QUEUE_THRESHOLD", nil, optF64(func(c *config) **float64 { return &c.RouterQueueThreshold })},
		{"--arrival-speedup-ratio", "ARRIVAL_SPEEDUP_RATIO", nil, f64(func(c *config) *float64 { return &c.ArrivalSpeedupRatio })},
		{"--trace-block-size", "TRACE_BLOCK_SIZE", nil, usize(func(c *config) *int { return &c.TraceBlockSize })},
		{"--block-size", "BLOCK_SIZE", nil, usize(func(c *config) *int { return &c.BlockSize })},
		{"--num-gpu-blocks", "NUM_GPU_BLOCKS", nil, optUsize(func(c *config) **int { return &c.NumGPUBlocks })},
		{"--max-num-seqs", "MAX_NUM_SEQS", nil, optUsize(func(c *config) **int { return &c.MaxNumSeqs })},
		{"--max-num-batched-tokens", "MAX_NUM_BATCHED_TOKENS", nil, optUsize(func(c *config) **int { return &c.MaxNumBatchedTokens })},
		{"--speedup-ratio", "SPEEDUP_RATIO", nil, optF64(func(c *config) **float64 { return &c.SpeedupRatio })},
		{"--decode-speedup-ratio", "DECODE_SPEEDUP_RATIO", nil, optF64(func(c *config) **float64 { return &c.DecodeSpeedupRatio })},
		{"--kv-bytes-per-token", "KV_BYTES_PER_TOKEN", nil, optUsize(func(c *config) **int { return &c.KVBytesPerToken })},
		{"--kv-transfer-bandwidth", "KV_TRANSFER_BANDWIDTH", nil, optF64(func(c *config) **float64 { return &c.KVTransferBandwidth })},
		{"--kv-transfer-timing-mode", "KV_TRANSFER_TIMING_MODE", []string{"full-prompt", "destination-missing"}, str(func(c *config) *string { return &c.KVTransferTimingMode })},
		{"--report-json", "REPORT_JSON", nil, str(func(c *config) *string { return &c.ReportJSON })},
		{"--iterations", "ITERATIONS", nil, usize(func(c *config) *int { return &c.Iterations })},
		{"--timings-jsonl", "TIMINGS_JSONL", nil, str(func(c *config) *string { return &c.TimingsJSONL })},
		{"--canonical-reports-jsonl", "CANONICAL_REPORTS_JSONL", nil, str(func(c *config) *string { return &c.CanonicalJSONL })},
		{"--router-policy-config", "ROUTER_POLICY_CONFIG", nil, str(func(c *config) *string { return &c.RouterPolicyConfig })},
		{"--variant", "VARIANT", nil, str(func(c *config) *string { return &c.Variant })},
		{"--progress-file", "PROGRESS_FILE", nil, str(func(c *config) *string { return &c.ProgressFile })},
		{"--scale-event", "AT_MS:WORKERS", nil, func(c *config, v string) error {
			ev, err := parseScaleEvent(v)
			if err != nil {
				return err
			}
			c.ScaleEvents = append(c.ScaleEvents, ev)
			return nil
		}},
	}
}

// parseArgs parses the command line the way clap does for offline_replay_bench: `--flag value`
// or `--flag=value`, one positional trace file, `--bench` ignored. skip reports the harness's
// no-argument invocation, which prints a notice and exits 0.
func parseArgs(args []string) (cfg config, skip bool, err error) {
	cfg = defaultConfig()
	table := flagTable()
	byName := map[string]*flagSpec{}
	for i := range table {
		byName[table[i].name] = &table[i]
	}
	seen := map[string]bool{}
	var positional []string
	onlyBench := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--bench" {
			continue
		}
		onlyBench = false
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		spec, ok := byName[name]
		if !ok {
			return cfg, false, &usageError{fmt.Sprintf("unexpected argument '%s' found", a)}
		}
		if !hasVal {
			if i+1 >= len(args) {
				return cfg, false, &usageError{fmt.Sprintf("a value is required for '%s <%s>' but none was supplied", spec.name, spec.meta)}
			}
			i++
			val = args[i]
		}
		if seen[name] && name != "--scale-event" {
			return cfg, false, &usageError{fmt.Sprintf("the argument '%s <%s>' cannot be used multiple times", spec.name, spec.meta)}
		}
		seen[name] = true
		if spec.values != nil {
			found := false
			for _, v := range spec.values {
				found = found || v == val
			}
			if !found {
				return cfg, false, &usageError{fmt.Sprintf("invalid value '%s' for '%s <%s>'\n  [possible values: %s]", val, spec.name, spec.meta, strings.Join(spec.values, ", "))}
			}
		}
		if err := spec.set(&cfg, val); err != nil {
			return cfg, false, &usageError{fmt.Sprintf("invalid value '%s' for '%s <%s>': %v", val, spec.name, spec.meta, err)}
		}
	}
	if onlyBench {
		return cfg, true, nil
	}
	switch len(positional) {
	case 0:
		return cfg, false, &usageError{"the following required arguments were not provided:\n  <TRACE_FILE>"}
	case 1:
		cfg.TracePath = positional[0]
	default:
		return cfg, false, &usageError{fmt.Sprintf("unexpected argument '%s' found", positional[1])}
	}
	return cfg, false, nil
}

// validate applies the harness's semantic checks (its exact messages) and the engine's own, in
// the order the harness meets them.
func (c *config) validate() error {
	if c.RouterPolicyConfig != "" && c.RouterMode != "kv-router" {
		return fmt.Errorf("--router-policy-config requires --router-mode kv-router")
	}
	if c.RouterQueueThreshold != nil && c.RouterMode != "kv-router" {
		return fmt.Errorf("--router-queue-threshold requires --router-mode kv-router")
	}
	if c.Iterations == 0 {
		return fmt.Errorf("iterations must be greater than 0")
	}
	if t := c.RouterQueueThreshold; t != nil && (math.IsNaN(*t) || math.IsInf(*t, 0) || *t < 0) {
		return fmt.Errorf("router_queue_threshold must be a finite non-negative number, got %v", *t)
	}
	if r := c.ArrivalSpeedupRatio; math.IsNaN(r) || math.IsInf(r, 0) || r <= 0 {
		return fmt.Errorf("arrival_speedup_ratio must be finite and greater than 0, got %v", r)
	}
	if c.TraceBlockSize == 0 {
		return fmt.Errorf("trace_block_size must be greater than 0")
	}
	if c.BlockSize == 0 {
		return fmt.Errorf("block_size must be greater than 0")
	}
	if c.ServingMode == "aggregated" && c.NumWorkers == 0 {
		return fmt.Errorf("num_workers must be greater than 0")
	}
	if c.ServingMode == "disagg" {
		if c.NumPrefillWorkers == 0 {
			return fmt.Errorf("num_prefill_workers must be greater than 0")
		}
		if c.NumDecodeWorkers == 0 {
			return fmt.Errorf("num_decode_workers must be greater than 0")
		}
		if c.EngineType == "trtllm" {
			return fmt.Errorf("TRT-LLM does not support destination handoff")
		}
	}
	for _, o := range []struct {
		name string
		p    *int
	}{{"num_gpu_blocks", c.NumGPUBlocks}, {"max_num_seqs", c.MaxNumSeqs}, {"max_num_batched_tokens", c.MaxNumBatchedTokens}} {
		if o.p != nil && *o.p == 0 {
			return fmt.Errorf("%s must be greater than 0", o.name)
		}
	}
	for _, o := range []struct {
		name string
		p    *float64
	}{{"speedup_ratio", c.SpeedupRatio}, {"decode_speedup_ratio", c.DecodeSpeedupRatio}, {"kv_transfer_bandwidth", c.KVTransferBandwidth}} {
		if o.p != nil && (math.IsNaN(*o.p) || math.IsInf(*o.p, 0)) {
			return fmt.Errorf("%s must be finite, got %v", o.name, *o.p)
		}
	}
	if len(c.ScaleEvents) > 0 && c.ServingMode != "aggregated" {
		return fmt.Errorf("--scale-event requires --serving-mode aggregated")
	}
	for i, ev := range c.ScaleEvents {
		if ev.Workers > c.NumWorkers {
			return fmt.Errorf("--scale-event %d: %d workers exceeds --num-workers %d", i+1, ev.Workers, c.NumWorkers)
		}
		if i > 0 && ev.AtMs < c.ScaleEvents[i-1].AtMs {
			return fmt.Errorf("--scale-event %d: times must be non-decreasing (%v after %v)", i+1, ev.AtMs, c.ScaleEvents[i-1].AtMs)
		}
	}
	if _, err := parseVariant(c.Variant); err != nil {
		return err
	}
	return nil
}

func parseScaleEvent(v string) (scaleEvent, error) {
	at, n, ok := strings.Cut(v, ":")
	if !ok {
		return scaleEvent{}, fmt.Errorf("expected AT_MS:WORKERS")
	}
	f, err := strconv.ParseFloat(at, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return scaleEvent{}, fmt.Errorf("AT_MS must be a finite non-negative number")
	}
	w, err := strconv.ParseUint(n, 10, 31)
	if err != nil {
		return scaleEvent{}, fmt.Errorf("WORKERS must be a non-negative integer")
	}
	return scaleEvent{AtMs: f, Workers: int(w)}, nil
}

// rustIntErr is the message Rust's usize parser gives.
func rustIntErr(v string) string {
	switch {
	case v == "":
		return "cannot parse integer from empty string"
	case strings.HasPrefix(v, "-"):
		return "invalid digit found in string"
	}
	if _, err := strconv.ParseUint(v, 10, 64); err != nil && strings.Trim(v, "0123456789") == "" {
		return "number too large to fit in target type"
	}
	return "invalid digit found in string"
}

// parseRustFloat accepts what Rust's f64::from_str accepts (including inf and NaN, which the
// validators then reject by name).
func parseRustFloat(v string) (float64, error) {
	switch strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(v, "+"), "-")) {
	case "inf", "infinity":
		if strings.HasPrefix(v, "-") {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	}
	if strings.ContainsAny(v, "xX_pP") || strings.TrimSpace(v) != v {
		return 0, fmt.Errorf("invalid float literal")
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid float literal")
	}
	return f, nil
}
