package bisect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/engine/build/buildtest"
)

// The bisect tests build a checkout's commits with the fake Rust toolchain (buildtest): the
// bench it builds is this test binary, which plays the replay when started with fakeEnv=1. A
// commit whose tree holds buildtest.VariantFile builds that variant into its bench; the fake
// replay reads it back (buildtest.BuiltVariant): "fifo-preemption" writes another canonical
// report (a semantic change), "leak-random-uuid" a random one per process (UNSTABLE), "slow-30"
// the same report 30% slower (a performance regression).
//
// childEnv makes the test binary a bisect of its own (the options in the variable, JSON), so a
// test can SIGKILL a bisect mid-way and resume it.

const (
	fakeEnv  = "KVPARITY_BISECT_FAKE_REPLAY"
	childEnv = "KVPARITY_BISECT_CHILD"
)

func TestMain(m *testing.M) {
	if code, ok := buildtest.Main(); ok {
		os.Exit(code)
	}
	if spec := os.Getenv(childEnv); spec != "" {
		os.Unsetenv(childEnv) // the child's replays are replays, not bisects
		os.Setenv(fakeEnv, "1")
		os.Exit(runChild(spec))
	}
	if os.Getenv(fakeEnv) == "1" {
		os.Exit(fakeReplay(os.Args[1:]))
	}
	os.Setenv(fakeEnv, "1")
	buildtest.NoRaceExitSleep() // every fake replay is this binary: 243 s → 9 s for the perf judge's probes under -race
	os.Exit(m.Run())
}

// childSpec is what a child bisect runs.
type childSpec struct {
	Repo, Dir, Cache, Good, Bad string
}

func runChild(spec string) int {
	var s childSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	_, err := Run(context.Background(), testOptions(s.Repo, s.Dir, s.Cache, nil))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	return 0
}

// fakeReplay writes a canonical report that passes every stage-3 rule (one request, one
// readmitted preemption), whose bytes depend on the trace window and the built variant.
func fakeReplay(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "error: missing trace file")
		return 2
	}
	flags := map[string]string{}
	for i := 1; i+1 < len(args); i += 2 {
		flags[args[i]] = args[i+1]
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	sum := sha256.Sum256(data)
	uuid, mode := "00000000-0000-0000-0000-000000000001", "lifo"
	// The timing: 12.5 ms with 2% of noise (a constant series is no sample: the battery
	// cannot be computed on it); "slow-30" takes 30% longer and reports the same. The noise is
	// a hash of the run's id (the timings file's folder, "perf/pair-012-baseline"): the same
	// series in every run of the test, so the gate's battery cannot flake on it.
	execMs := 12.5
	if p := flags["--timings-jsonl"]; p != "" {
		h := fnv.New64a()
		h.Write([]byte(filepath.Base(filepath.Dir(filepath.Dir(p))) + "/" + filepath.Base(filepath.Dir(p))))
		execMs *= 1 + 0.02*float64(h.Sum64()%1000)/1000
	}
	switch v := buildtest.BuiltVariant(); v {
	case "":
	case "slow-30":
		execMs *= 1.3
	case "fifo-preemption":
		mode = "fifo"
	case "leak-random-uuid":
		b := make([]byte, 6)
		f, _ := os.Open("/dev/urandom")
		f.Read(b)
		f.Close()
		uuid = "00000000-0000-4000-8000-" + hex.EncodeToString(b)
	default:
		fmt.Fprintf(os.Stderr, "error: unknown variant %q\n", v)
		return 2
	}
	total := strings.Count(string(data), "\n")
	rec := fmt.Sprintf(`{"coverage":{"capture_canonical_evidence":true,"capture_per_request":true,"capture_planner_details":false,"per_request_records":1,`+
		`"pressure":{"records":[{"at_ms":5.0,"dp_rank":0,"kind":"vllm_preemption","pool":"agg","pressure_ordinal":0,"readmitted_at_ms":8.0,"request_uuid":"%[3]s","state_before":{"active_blocks":7,"running_requests":2},"worker_id":0}],"sglang_retractions_total":0,"vllm_preemptions_total":1}},`+
		`"metadata":{"engine_config":{"aggregated":{"engine_type":"vllm","preemption_mode":"%[1]s"}},"execution":{"topology":"aggregated"},"replay_bench":true,"workload":{"digest":"%[2]s","requests":%[4]d}},`+
		`"per_request":[{"admission_count":2,"admission_history":[{"at_ms":0.0,"is_readmission":false,"pool":"agg","reused_input_tokens":16},{"at_ms":8.0,"is_readmission":true,"pool":"agg","reused_input_tokens":16}],"arrival_time_ms":0.0,"reused_input_tokens":16,`+
		`"routing_history":[{"logical_worker_id":0,"outcome":"immediate","pool":"agg","released_at_ms":null,"reported_overlap_tokens":16}],"terminal_status":"completed","terminal_time_ms":28.354,"uuid":"%[3]s"}],`+
		`"planner":null,"summary":{"completed_requests":1,"duration_ms":28.354,"num_requests":1,"wall_time_ms":13.0}}`+"\n",
		mode, hex.EncodeToString(sum[:]), uuid, total)
	if p := flags["--canonical-reports-jsonl"]; p != "" {
		if err := os.WriteFile(p, []byte(rec), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "Error:", err)
			return 1
		}
	}
	if p := flags["--timings-jsonl"]; p != "" {
		os.WriteFile(p, []byte(fmt.Sprintf(`{"iteration":0,"replay_bench":true,"replay_execution_ms":%.4f,"wall_time_ms":13.0}`+"\n", execMs)), 0o644)
	}
	return 0
}
