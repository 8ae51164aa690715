// Command perffake is the replay binary of the perf stage's tests: it accepts the argument
// vector of offline_replay_bench and writes one timing record whose value it chooses, so the
// stage's bookkeeping and statistics are tested without simulating anything. Which arm, pair
// and attempt it plays comes from its --timings-jsonl path (runs/perf/pair-007-candidate-a2/...),
// its behaviour from the environment:
//
//	PERFFAKE_MS            baseline time in ms (default 100)
//	PERFFAKE_FACTOR        candidate time factor (default 1)
//	PERFFAKE_NOISE         relative noise, deterministic per run id (default 0.01)
//	PERFFAKE_SLEEP_MS      how long to run (default 0)
//	PERFFAKE_CRASH         a run id substring: that run panics (exit 2)
//	PERFFAKE_FIELDS        comma-separated timing fields to write (default replay_execution_ms)
//	PERFFAKE_BENCH         the replay_bench value (default true)
//	PERFFAKE_MALFORMED     a run id substring: that run writes a truncated record
package main

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	args := os.Args[1:]
	timings := ""
	for i, a := range args {
		switch a {
		case "--timings-jsonl":
			if i+1 < len(args) {
				timings = args[i+1]
			}
		case "--canonical-reports-jsonl", "--report-json", "--progress-file":
			fmt.Fprintf(os.Stderr, "error: perffake: %s passed to a gated perf sample\n", a)
			os.Exit(2)
		}
	}
	if timings == "" {
		fmt.Fprintln(os.Stderr, "error: perffake: no --timings-jsonl")
		os.Exit(2)
	}
	run := filepath.ToSlash(filepath.Dir(timings))
	if i := strings.Index(run, "/perf/"); i >= 0 {
		run = run[i+1:]
	}
	if s := os.Getenv("PERFFAKE_CRASH"); s != "" && strings.Contains(run, s) {
		panic("perffake: crashing on purpose in " + run)
	}
	if ms, _ := strconv.Atoi(os.Getenv("PERFFAKE_SLEEP_MS")); ms > 0 {
		deadline := time.Now().Add(time.Duration(ms) * time.Millisecond)
		for time.Now().Before(deadline) { // busy, like a replay: a sleeping sample shows no load
		}
	}
	base := envFloat("PERFFAKE_MS", 100)
	factor := envFloat("PERFFAKE_FACTOR", 1)
	noise := envFloat("PERFFAKE_NOISE", 0.01)
	v := base
	if strings.Contains(run, "-candidate") {
		v *= factor
	}
	h := fnv.New64a()
	h.Write([]byte(run))
	u := float64(h.Sum64()%1_000_000)/1_000_000*2 - 1 // in [-1, 1)
	v *= 1 + noise*u

	fields := "replay_execution_ms"
	if f, ok := os.LookupEnv("PERFFAKE_FIELDS"); ok {
		fields = f
	}
	bench := "true"
	if b := os.Getenv("PERFFAKE_BENCH"); b != "" {
		bench = b
	}
	var parts []string
	parts = append(parts, `"iteration":0`, `"replay_bench":`+bench)
	for _, f := range strings.Split(fields, ",") {
		if f != "" {
			parts = append(parts, fmt.Sprintf("%q:%s", f, strconv.FormatFloat(v, 'f', -1, 64)))
		}
	}
	line := "{" + strings.Join(parts, ",") + "}\n"
	if s := os.Getenv("PERFFAKE_MALFORMED"); s != "" && strings.Contains(run, s) {
		line = line[:len(line)/2]
	}
	if err := os.WriteFile(timings, []byte(line), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func envFloat(name string, def float64) float64 {
	if s := os.Getenv(name); s != "" {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return v
		}
	}
	return def
}
