package engine

import (
	"bytes"
	"slices"

	"github.com/BurntSushi/toml"

	"kvparity/stats"
)

// defaultG1Blocks is the G1 capacity (--num-gpu-blocks) of the default row, tuned on the
// embedded engine so that the generated 5,000-request conversation trace lands inside the
// disaggregated pressure band (10-20 fully readmitted preemptions), with its nearest probes
// inside the band too: 16 preemptions, at most one per request, all 5,000 requests completed
// (probes: 3,350 gave 10, 3,300 gave 13, 3,190 gave 17, 3,150 gave 27, 3,500 gave 6). The design's
// 5,500 (qualified on the real Mooncake window) gives 0 on this generated trace.
const defaultG1Blocks = "3250"

// tinyG1Blocks is the tiny row's capacity: 3 readmitted preemptions on its 200 requests
// (probes: 2,000 gave 1, 1,900 and 1,700 gave 4, 1,600 gave 5, 1,500 gave 7). Its band,
// TinyPressureBand, is wider than the protocol's 1-3 starting band so that the smoke row stays
// qualified while the embedded engine evolves; every event must still be readmitted.
const tinyG1Blocks = "1800"

// TinyPressureBand is the tiny row's declared pressure band.
var TinyPressureBand = []int{1, 8}

// vllmDisaggArgs are the design's vllm-disagg replay args with G1 capacity blocks.
func vllmDisaggArgs(blocks string) []string {
	return []string{"--serving-mode", "disagg", "--num-prefill-workers", "2", "--num-decode-workers", "2",
		"--engine-type", "vllm", "--block-size", "64", "--num-gpu-blocks", blocks, "--max-num-seqs", "16",
		"--max-num-batched-tokens", "8192", "--kv-bytes-per-token", "1", "--kv-transfer-bandwidth", "100",
		"--arrival-speedup-ratio", "4", "--trace-block-size", "512"}
}

// DefaultRow is the built-in row the workbench opens with no row file: both arms are the
// embedded engine, replaying a generated 5,000-request conversation trace.
func DefaultRow() *Row {
	r := &Row{
		Name:      "builtin-vllm-disagg",
		Baseline:  ArmSpec{Revision: builtinBinary, Binary: builtinBinary, Features: []string{"replay-bench"}},
		Candidate: ArmSpec{Revision: builtinBinary, Binary: builtinBinary, Features: []string{"replay-bench"}},
		Trace:     TraceSpec{Path: "generated:conversation?seed=7&requests=5000", Offset: 0, Count: 5000},
		Replay:    ReplaySpec{Args: vllmDisaggArgs(defaultG1Blocks)},
		Perf:      PerfSpec{ScheduleSeed: 20261129},
	}
	r.applyDefaults(nil)
	r.Perf.DependenceMethod = stats.MethodBlockMedians // a new row: the method the study chose
	return r
}

// TinyRow is a row small enough for tests and CI smoke runs (a 200-request generated trace, a
// few seconds per process); variant names each arm's embedded-engine variant ("" for none).
func TinyRow(baselineVariant, candidateVariant string) *Row {
	r := DefaultRow()
	r.Name = "tiny"
	r.Baseline.Variant = baselineVariant
	r.Candidate.Variant = candidateVariant
	r.Trace = TraceSpec{Path: "generated:conversation?seed=7&requests=200", Offset: 0, Count: 200}
	r.Replay.Args = vllmDisaggArgs(tinyG1Blocks)
	r.Determinism.PressureBand = slices.Clone(TinyPressureBand)
	r.Perf.Pairs = 4
	r.Perf.WarmupsPerArm = 1
	return r
}

// Encode writes the row as TOML (the campaign's frozen row.toml: every default made explicit).
func (r *Row) Encode() ([]byte, error) {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ExampleRowTOML is what `kvparity init-row` writes: a commented row to start from.
const ExampleRowTOML = `# kvparity row: one frozen comparison configuration (protocol stages 1-4 and 7).
# Both arms replay the same trace window with the same [replay] args; only the artifact differs.
# Unknown keys are errors. Relative paths are resolved against this file's folder.
name = "vllm-disagg"                # names the campaign folder: letters, digits, . _ -

[baseline]
revision = "builtin"                # an immutable commit SHA for a real binary; never a branch
binary   = "builtin"                # "builtin" = this kvparity (kvparity replay), or a path to
                                    # target/release/deps/offline_replay_bench-<hash>; copied into the campaign
features = ["replay-bench"]         # exact Cargo feature names, recorded in the report
# variant = "leak-random-uuid"      # builtin only: a stand-in revision of the embedded engine

[candidate]
revision = "builtin"
binary   = "builtin"
features = ["replay-bench"]

[trace]
path   = "generated:conversation?seed=7&requests=5000"   # or a Mooncake JSONL path
offset = 0                          # first row of the contiguous window
count  = 5000                       # refused if fewer usable rows exist; never sampled or duplicated
# sha256 = "..."                    # of the source file (of the window for generated traces); checked before any run

[replay]                            # identical for both arms: never tuned per revision
args = ["--serving-mode","disagg","--num-prefill-workers","2","--num-decode-workers","2",
        "--engine-type","vllm","--block-size","64","--num-gpu-blocks","` + defaultG1Blocks + `","--max-num-seqs","16",
        "--max-num-batched-tokens","8192","--kv-bytes-per-token","1","--kv-transfer-bandwidth","100",
        "--arrival-speedup-ratio","4","--trace-block-size","512"]

[determinism]
repetitions = 2                     # per revision, each its own process (an entropy check, not a trial)
timeout = "10m"                     # one replay process; past it the run is killed and the row errs
# pressure_band = [10, 20]          # expected pressure events (default 10-20 disaggregated, 1-3 aggregated)
# patch = "fix-tie-order.patch"    # a temporary determinism correction built into BOTH revisions
                                    # (stage 1.3): copied into the campaign, its SHA-256 recorded
# patch_sha256 = "..."              # its declared SHA-256 (checked against patch when both are given)
# perturbations = ["all-cores", "threads", "sched-noise", "cwd", "env-order", "umask", "locale", "tz", "aslr"]
                                    # the perturbed repetition's variations (the default); [] turns it off

[perf]
pairs = 60                          # even: half baseline-first, half candidate-first
warmups_per_arm = 5
schedule_seed = 20261129
threshold = 1.05                    # PASS when the upper bound <= threshold, FAIL when the lower > it
timing_field = "replay_execution_ms"
# timing_proxy = true               # required for any other field, e.g. "replay_call_ms"
dependence_method = "block-medians" # when the dependence battery breaches: decide by block medians
                                    # ("inconclusive", the protocol's literal rule, when left out)

[canonical]                         # the closed exclusion allowlist; adding one needs review
exclusions = ["/summary/wall_time_ms","/summary/processed_tokens_per_s","/summary/processed_output_tokens_per_s"]
unordered = { "/per_request" = "uuid" }
`
