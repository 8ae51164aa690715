package replaytest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Env, set to "1" in a test binary's environment, makes it the fake replay: TestMain calls
// Main first, and the children the tests start (the runs) are fakes.
const Env = "KVPARITY_FAKE_REPLAY"

// Main runs Replay on the process's arguments when Env is "1" (never in a fuzz worker, which
// inherits it) and says whether it did; TestMain exits with the code.
func Main() (int, bool) {
	if os.Getenv(Env) != "1" || slices.ContainsFunc(os.Args, func(a string) bool { return strings.HasPrefix(a, "-test.fuzzworker") }) {
		return 0, false
	}
	return Replay(os.Args[1:]), true
}

// Replay writes a canonical report whose bytes depend on the trace window and the variant:
//
//	""                 deterministic
//	leak-tz, leak-umask, leak-cwd, leak-locale, leak-env-order, leak-threads, leak-all-cores,
//	leak-aslr          a second digest only under that one variation of a perturbed repetition
//	multi-thread       deterministic, keeping four threads busy (a multi-core replay)
//	leak-random-uuid   a random uuid per process (UNSTABLE)
//	fifo-preemption    deterministic but different (parity FAIL)
//	exit-nonzero       "Error: ..." on stderr, status 3
//	hang               sleeps past any timeout
//	malformed          a truncated report
//	no-replay-bench    metadata.replay_bench = false
//
// KVPARITY_FAKE_SLEEP_MS makes each run take that long (progress lines meanwhile).
func Replay(args []string) int {
	if len(args) > 0 && args[0] == "replay" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "error: missing trace file")
		return 2
	}
	trace := args[0]
	flags := map[string]string{}
	for i := 1; i+1 < len(args); i += 2 {
		if !strings.HasPrefix(args[i], "--") {
			fmt.Fprintf(os.Stderr, "error: unexpected argument %q\n", args[i])
			return 2
		}
		flags[args[i]] = args[i+1]
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	sum := sha256.Sum256(data)
	variant := flags["--variant"]
	sleep, _ := strconv.Atoi(os.Getenv("KVPARITY_FAKE_SLEEP_MS"))
	if variant == "hang" {
		sleep = 3600_000
	}
	total := strings.Count(string(data), "\n")
	deadline := time.Now().Add(time.Duration(sleep) * time.Millisecond)
	for step := 0; ; step++ {
		if pf := flags["--progress-file"]; pf != "" {
			f, err := os.OpenFile(pf, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err == nil {
				done := total
				if sleep > 0 {
					done = min(total, total*int(time.Since(deadline.Add(-time.Duration(sleep)*time.Millisecond)))/max(1, int(time.Duration(sleep)*time.Millisecond)))
				}
				if step == 0 { // the one preemption of the report below, as the embedded engine announces it
					fmt.Fprint(f, `{"pressure":{"ordinal":0,"at_ms":5.0,"pool":"agg","worker_id":0,"dp_rank":0,"kind":"vllm_preemption","request_uuid":"00000000-0000-0000-0000-000000000001","running_before":2,"active_blocks":7}}`+"\n")
				}
				fmt.Fprintf(f, "{\"virtual_time_ms\":%d.5,\"completed\":%d,\"total\":%d}\n", step*100, done, total)
				f.Close()
			}
		}
		if !time.Now().Before(deadline) {
			break
		}
		time.Sleep(min(50*time.Millisecond, time.Until(deadline))) // the fake replay takes KVPARITY_FAKE_SLEEP_MS, reporting progress
	}
	fmt.Fprintln(os.Stderr, "fake replay: replayed", total, "requests")
	uuid := "00000000-0000-0000-0000-000000000001"
	semantic := "lifo"
	replayBench := "true"
	switch variant {
	case "":
	case "leak-random-uuid":
		uuid = fmt.Sprintf("%08x-0000-4000-8000-%012x", rand.Uint32(), rand.Uint64()&0xffffffffffff)
	case "fifo-preemption":
		semantic = "fifo"
	case "exit-nonzero":
		fmt.Fprintln(os.Stderr, "Error: the fake replay failed on purpose")
		return 3
	case "malformed":
		os.WriteFile(flags["--canonical-reports-jsonl"], []byte(`{"coverage":{"capture_per_request":tr`), 0o644)
		return 0
	case "no-replay-bench":
		replayBench = "false"
	case "leak-tz", "leak-umask", "leak-cwd", "leak-locale", "leak-env-order", "leak-threads", "leak-all-cores", "leak-aslr":
		// Deterministic under the plain repetitions' environment; a second digest only when
		// the one variation its name gives is applied (perturbed repetitions find and name it).
		uuid = fmt.Sprintf("00000000-0000-0000-0000-%012x", envLeak(variant))
	case "multi-thread":
		spinThreads(4, 300*time.Millisecond) // demands several CPUs when allowed them
	default:
		fmt.Fprintf(os.Stderr, "error: unknown variant %q\n", variant)
		return 2
	}
	// One request that passes every stage-3 rule: overlap-sensitive routing, one readmitted
	// preemption, completed, virtual time advancing.
	rec := fmt.Sprintf(`{"coverage":{"capture_canonical_evidence":true,"capture_per_request":true,"capture_planner_details":false,"per_request_records":1,`+
		`"pressure":{"records":[{"at_ms":5.0,"dp_rank":0,"kind":"vllm_preemption","pool":"agg","pressure_ordinal":0,"readmitted_at_ms":8.0,"request_uuid":"%[4]s","state_before":{"active_blocks":7,"running_requests":2},"worker_id":0}],"sglang_retractions_total":0,"vllm_preemptions_total":1}},`+
		`"metadata":{"engine_config":{"aggregated":{"engine_type":"vllm","preemption_mode":"%[1]s"}},"execution":{"topology":"aggregated"},"replay_bench":%[2]s,"workload":{"digest":"%[3]s","requests":%[5]d}},`+
		`"per_request":[{"admission_count":2,"admission_history":[{"at_ms":0.0,"is_readmission":false,"pool":"agg","reused_input_tokens":16},{"at_ms":8.0,"is_readmission":true,"pool":"agg","reused_input_tokens":16}],"arrival_time_ms":0.0,"reused_input_tokens":16,`+
		`"routing_history":[{"logical_worker_id":0,"outcome":"immediate","pool":"agg","released_at_ms":null,"reported_overlap_tokens":16}],"terminal_status":"completed","terminal_time_ms":28.354,"uuid":"%[4]s"}],`+
		`"planner":null,"summary":{"completed_requests":1,"duration_ms":28.354,"num_requests":1,"wall_time_ms":%[6]d.0}}`+"\n",
		semantic, replayBench, hex.EncodeToString(sum[:]), uuid, total, time.Now().UnixNano()%1000)
	if p := flags["--canonical-reports-jsonl"]; p != "" {
		if err := os.WriteFile(p, []byte(rec), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "Error:", err)
			return 1
		}
	}
	if p := flags["--timings-jsonl"]; p != "" {
		os.WriteFile(p, []byte(`{"iteration":0,"replay_bench":true,"replay_execution_ms":12.5,"wall_time_ms":13.0}`+"\n"), 0o644)
	}
	return 0
}

// envLeak is what a fake environment leak puts in its report: 1 when the variation it leaks
// is applied to the process, else 1 too only if that already held for a plain repetition.
func envLeak(variant string) uint64 {
	leaked := false
	switch variant {
	case "leak-tz":
		leaked = os.Getenv("TZ") == "Pacific/Chatham"
	case "leak-umask":
		m := syscall.Umask(0)
		syscall.Umask(m)
		leaked = m == 0o077
	case "leak-cwd":
		wd, _ := os.Getwd()
		leaked = strings.Contains(wd, " ")
	case "leak-locale":
		leaked = strings.HasPrefix(os.Getenv("LC_ALL"), "tr_TR")
	case "leak-env-order":
		leaked = envReversed()
	case "leak-threads":
		leaked = os.Getenv("GOMAXPROCS") != ""
	case "leak-all-cores":
		var set unix.CPUSet
		leaked = unix.SchedGetaffinity(0, &set) == nil && set.Count() > 1
	case "leak-aslr":
		b, _ := os.ReadFile("/proc/self/personality")
		p, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 16, 64)
		leaked = p&0x0040000 != 0
	}
	if leaked {
		return 2
	}
	return 1
}

// envReversed says whether this process's environment is in the reverse of the test
// process's order: a test's TestMain appends Env after PATH, so reversed it comes before.
func envReversed() bool {
	path, fake := -1, -1
	for i, e := range os.Environ() {
		switch {
		case strings.HasPrefix(e, "PATH="):
			path = i
		case strings.HasPrefix(e, Env+"="):
			fake = i
		}
	}
	return path >= 0 && fake >= 0 && fake < path
}

// spinThreads keeps n goroutines busy with arithmetic for about d (a multi-threaded replay,
// for the preflight; its own function on the hot path, for the investigation).
func spinThreads(n int, d time.Duration) {
	// n Ps, so all n threads want a CPU at once: the preflight's demand sees them even when a
	// loaded machine (a CI run under the race detector) gives them less than two CPUs.
	runtime.GOMAXPROCS(max(n, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	var sink atomic.Uint64
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := uint64(1)
			for i := uint64(0); i < uint64(d.Milliseconds())*1_000_000; i++ {
				x = x*6364136223846793005 + i
			}
			sink.Add(x)
		}()
	}
	wg.Wait()
}
