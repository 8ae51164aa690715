package instrument

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The instruction-count instrument: a secondary, deterministic measure beside the wall-clock
// gate. Valgrind's callgrind counts the instructions a process executes inside the timed region
// only (--collect-atstart=no with --toggle-collect on the function that wraps the region), in
// software, so no neighbour on the machine can disturb the figure. It never decides the gate.

// A Region is how callgrind finds an artifact's timed region (the region replay_execution_ms
// measures) and counts nothing else.
type Region struct {
	// Toggle is the --toggle-collect pattern of a function that wraps the region; "" when the
	// program brackets the region with CALLGRIND_TOGGLE_COLLECT client requests itself.
	Toggle string
	// Env is what the counted process needs in its environment (beside kvparity's own).
	Env []string
	// Name says what is counted, for people.
	Name string
}

// The timed regions. The timing extension wraps the composed runtime's run() in a
// never-inlined bench_timing::timed_region. The embedded engine brackets its loop with client
// requests (a toggle by name loses the loop when Go moves a goroutine's stack); it runs without
// asynchronous preemption (whose signals callgrind 3.19 asserts on) and without the garbage
// collector (whose assists on the loop's thread come at times that vary from run to run: 76–86M
// counts of one tiny row with it, 66.88–66.94M without), a 4 GiB memory limit bringing it back
// only for a replay that would otherwise exhaust the machine.
var (
	RegionExtension = Region{Toggle: "*bench_timing::timed_region*", Name: "bench_timing::timed_region (kvparity's timing extension)"}
	RegionEmbedded  = Region{Env: []string{"GODEBUG=asyncpreemptoff=1", "GOGC=off", "GOMEMLIMIT=4GiB"},
		Name: "kvparity/mocker.timedRegion (CALLGRIND_TOGGLE_COLLECT client requests; GOGC=off)"}
)

// DefaultInstructionsThreshold is the count ratio above which the growth is flagged "explain"
// when the row does not declare [perf] instructions_threshold.
const DefaultInstructionsThreshold = 1.03

// Valgrind is the instrument's tool as found on this machine.
type Valgrind struct {
	Path    string `json:"path"`
	Version string `json:"version"` // "valgrind-3.19.0"
}

// ErrNoValgrind says the instrument's tool is not installed here.
var ErrNoValgrind = errors.New("valgrind is not installed (Debian: apt-get install valgrind): instruction counts are not measured; nothing else changes")

// FindValgrind looks valgrind up on PATH and asks its version.
func FindValgrind(ctx context.Context) (Valgrind, error) {
	path, err := exec.LookPath("valgrind")
	if err != nil {
		return Valgrind{}, ErrNoValgrind
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return Valgrind{}, fmt.Errorf("%s --version: %w", path, err)
	}
	return Valgrind{Path: path, Version: strings.TrimSpace(string(out))}, nil
}

// Argv is the command that counts binary's timed region (with args), writing callgrind's
// profile to out.
func (v Valgrind) Argv(out string, region Region, binary string, args []string) []string {
	argv := []string{v.Path, "--tool=callgrind", "--callgrind-out-file=" + out, "--collect-atstart=no"}
	if region.Toggle != "" {
		argv = append(argv, "--toggle-collect="+region.Toggle)
	}
	argv = append(argv, "--dump-line=no", binary)
	return append(argv, args...)
}

// ReadInstructionCount reads the Ir total of a callgrind profile: its "summary:" line, or its
// "totals:" line when it has no summary. A profile without either, or with a malformed one,
// is an error naming the file and line.
func ReadInstructionCount(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseInstructionCount(path, f)
}

func parseInstructionCount(path string, f io.Reader) (uint64, error) {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var (
		events        []string
		total         uint64
		have, summary bool
	)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		var key string
		switch {
		case bytes.HasPrefix(line, []byte("events:")):
			events = strings.Fields(string(line[len("events:"):]))
			continue
		case bytes.HasPrefix(line, []byte("summary:")):
			key = "summary:"
		case bytes.HasPrefix(line, []byte("totals:")) && !summary:
			key = "totals:"
		default:
			continue
		}
		fields := strings.Fields(string(line[len(key):]))
		at := slices.Index(events, "Ir")
		if at < 0 {
			return 0, fmt.Errorf("%s:%d: %s before an events: line naming Ir", path, n, strings.TrimSuffix(key, ":"))
		}
		if at >= len(fields) {
			// callgrind leaves trailing zero counts out.
			total, have, summary = 0, true, key == "summary:"
			continue
		}
		v, err := strconv.ParseUint(fields[at], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s:%d: %s Ir %q is not a count", path, n, strings.TrimSuffix(key, ":"), fields[at])
		}
		total, have, summary = v, true, key == "summary:"
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if !have {
		return 0, fmt.Errorf("%s: no summary: or totals: line (not a complete callgrind profile)", path)
	}
	return total, nil
}

// ArmInstructions is one arm's instruction counts of the timed region, in run order.
type ArmInstructions struct {
	Counts []uint64 `json:"counts"`
	Median uint64   `json:"median"`
	// Spread is (max − min) / median: how far the arm's runs differ (0 for one run).
	Spread float64 `json:"spread"`
}

func armInstructions(counts []uint64) ArmInstructions {
	a := ArmInstructions{Counts: slices.Clone(counts)}
	if len(counts) == 0 {
		return a
	}
	s := slices.Sorted(slices.Values(counts))
	n := len(s)
	if n%2 == 1 {
		a.Median = s[n/2]
	} else {
		a.Median = s[n/2-1] + (s[n/2]-s[n/2-1])/2
	}
	if a.Median > 0 {
		a.Spread = float64(s[n-1]-s[0]) / float64(a.Median)
	}
	return a
}

// InstructionResult is the instrument's figure for one pair of artifacts: each arm's counts
// and the ratio of their medians. It is secondary: it never decides the gate. A ratio above
// the row's threshold is flagged Explain (the report asks for an explanation, as it does for
// a footprint that grew).
type InstructionResult struct {
	Key       string          `json:"key,omitempty"`
	Tool      string          `json:"tool"`    // valgrind's version
	Regions   []string        `json:"regions"` // the timed regions counted, per arm: baseline, candidate
	Baseline  ArmInstructions `json:"baseline"`
	Candidate ArmInstructions `json:"candidate"`
	Ratio     float64         `json:"ratio"` // candidate median / baseline median
	// Spread is the larger of the two arms' spreads: how much of Ratio's distance from 1 the
	// instrument itself can explain.
	Spread    float64 `json:"spread"`
	Threshold float64 `json:"threshold"`
	Explain   bool    `json:"explain"` // Ratio > Threshold
	Reason    string  `json:"reason"`
}

// DecideInstructions compares the candidate's counts with the baseline's; threshold is the
// row's [perf] instructions_threshold (0: DefaultInstructionsThreshold).
func DecideInstructions(tool string, regions []string, base, cand []uint64, threshold float64) InstructionResult {
	if threshold <= 0 {
		threshold = DefaultInstructionsThreshold
	}
	r := InstructionResult{Tool: tool, Regions: regions, Baseline: armInstructions(base), Candidate: armInstructions(cand), Threshold: threshold}
	r.Spread = max(r.Baseline.Spread, r.Candidate.Spread)
	if r.Baseline.Median > 0 {
		r.Ratio = float64(r.Candidate.Median) / float64(r.Baseline.Median)
	}
	r.Explain = r.Ratio > threshold
	figures := fmt.Sprintf("instruction count ratio %.4f (baseline %s ±%.3f%%, candidate %s ±%.3f%%; %d and %d runs under %s)",
		r.Ratio, humanCount(r.Baseline.Median), 100*r.Baseline.Spread, humanCount(r.Candidate.Median), 100*r.Candidate.Spread,
		len(base), len(cand), tool)
	if r.Explain {
		r.Reason = figures + fmt.Sprintf(": above %.2f, explain the added work (secondary measure; the gate is the wall-clock verdict)", threshold)
	} else {
		r.Reason = figures + fmt.Sprintf(": within %.2f (secondary measure; the gate is the wall-clock verdict)", threshold)
	}
	return r
}

// humanCount writes a count in millions with 3 decimals (848.884M), or whole below a million.
func humanCount(n uint64) string {
	if n < 1_000_000 {
		return strconv.FormatUint(n, 10)
	}
	return fmt.Sprintf("%.3fM", float64(n)/1e6)
}
