package engine

import (
	"fmt"
	"kvparity/engine/run"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPerfGateFigures measures the gate on the real embedded engine: whole campaigns
// (determinism, then the full perf stage) of the default row for each candidate variant, several
// times each, and logs median ratio, bounds, bound width, verdict, invalidations and the perf
// stage's wall time. It takes minutes per campaign, so it runs only with KVPARITY_SLOW=1:
//
//	KVPARITY_SLOW=1 go test -count=1 -run TestPerfGateFigures -v -timeout 2h ./engine/
//
// KVPARITY_FIGURES_VARIANTS (default ",slowdown-30"; "" is the A/A row, identical arms) and
// KVPARITY_FIGURES_CAMPAIGNS (default 3) choose the grid; KVPARITY_FIGURES_REQUESTS shrinks the
// generated trace (default: the default row's 5000 requests); KVPARITY_FIGURES_LOAD_FRACTION
// overrides the competing-load limit (1 turns the guard off, for a host shared with other work;
// the log says so); KVPARITY_FIGURES_PLAIN_DETERMINISM=1 turns the perturbed repetitions off
// (the perf stage needs a finished determinism stage, not its perturbations). Campaign k of a variant uses schedule seed 20261129 + k − 1, so the
// campaigns are independent replications of the schedule too. Each line says which rule decided
// (the order statistics, the row's dependence-aware method, or none).
func TestPerfGateFigures(t *testing.T) {
	if os.Getenv("KVPARITY_SLOW") != "1" {
		t.Skip("set KVPARITY_SLOW=1 to measure the gate (minutes per campaign)")
	}
	variants := []string{"", "slowdown-30"}
	if v, ok := os.LookupEnv("KVPARITY_FIGURES_VARIANTS"); ok {
		variants = strings.Split(v, ",")
	}
	campaigns := 3
	if n, err := strconv.Atoi(os.Getenv("KVPARITY_FIGURES_CAMPAIGNS")); err == nil && n > 0 {
		campaigns = n
	}
	requests, _ := strconv.Atoi(os.Getenv("KVPARITY_FIGURES_REQUESTS"))
	loadFraction, _ := strconv.ParseFloat(os.Getenv("KVPARITY_FIGURES_LOAD_FRACTION"), 64)
	if loadFraction > 0 {
		t.Logf("competing-load limit overridden: %.0f%% of each sample's window", 100*loadFraction)
	}

	tmp := t.TempDir()
	bin := buildKvparity(t, tmp)
	var table []string
	for _, v := range variants {
		for k := 1; k <= campaigns; k++ {
			row := DefaultRow()
			row.Candidate.Variant = v
			row.Perf.ScheduleSeed += int64(k - 1)
			if os.Getenv("KVPARITY_FIGURES_PLAIN_DETERMINISM") == "1" {
				row.Determinism.Perturbations = []Variation{}
			}
			if requests > 0 {
				row.Trace = TraceSpec{Path: fmt.Sprintf("generated:conversation?seed=7&requests=%d", requests), Count: requests}
				row.Determinism.PressureBand = nil
			}
			dir := filepath.Join(tmp, fmt.Sprintf("c-%s-%d", strings.ReplaceAll(v+"aa", "-", ""), k))
			c, err := Create(row, Options{Dir: dir, BuiltinPath: bin, Warn: func(s string) { t.Log("warning:", s) },
				Perf: PerfOptions{CompetingLoadFraction: loadFraction}})
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				for range c.Events() {
				}
			}()
			if err := ctl(c).StartDeterminism(); err != nil {
				t.Fatal(err)
			}
			c.Wait()
			start := time.Now()
			if err := ctl(c).StartPerf(); err != nil {
				t.Fatalf("%s #%d: %v", v, k, err)
			}
			c.Wait()
			wall := time.Since(start)
			line := fmt.Sprintf("variant %-12q campaign %d: ", v, k)
			if r, err := perfResultOf(c); err != nil {
				line += fmt.Sprintf("no result: %v (blocked: %v)", err, c.History().blocked)
			} else {
				valid := "battery valid"
				if r.Analysis != nil && !r.Analysis.Battery.Valid {
					var names []string
					for _, d := range r.Analysis.Battery.Diagnostics {
						if d.Breached() {
							names = append(names, fmt.Sprintf("%s=%.3g", d.Name, d.Statistic))
						}
					}
					valid = "battery BREACHED (" + strings.Join(names, ", ") + ")"
				}
				line += fmt.Sprintf("%-12s by %-16s median %.4f  [X(%d) %.4f, X(%d) %.4f] width %.4f  %s  invalidated %d  perf stage %s",
					r.Verdict, r.DecidedBy, r.Median, r.LowerOrder, r.Lower, r.UpperOrder, r.Upper, r.Upper-r.Lower, valid, len(r.Invalidations), wall.Round(time.Second))
				if d := r.Analysis; d != nil && d.Dependent != nil {
					line += fmt.Sprintf("  block medians [%.4f, %.4f] (%s)", d.Dependent.Lower, d.Dependent.Upper, d.Dependent.Basis())
				}
				if len(r.Invalidations) > 0 {
					line += "  first: " + r.Invalidations[0].Reason
				}
			}
			t.Log(line)
			table = append(table, line)
			c.Close()
		}
	}
	t.Log("figures:\n" + strings.Join(table, "\n"))
}

// TestPerfBuiltinAffinityViolation forces an affinity violation on the real embedded engine:
// the sample is re-pinned to another CPU 20 ms after it starts, the read-back from /proc
// invalidates its pair, and the pair is rerun in the same order; both attempts stay in the
// journal. KVPARITY_SLOW=1 only (it builds kvparity).
func TestPerfBuiltinAffinityViolation(t *testing.T) {
	if os.Getenv("KVPARITY_SLOW") != "1" {
		t.Skip("set KVPARITY_SLOW=1 to run on the embedded engine (builds kvparity)")
	}
	if len(run.AllowedCPUs()) < 2 {
		t.Skip("needs two CPUs")
	}
	tmp := t.TempDir()
	bin := buildKvparity(t, tmp)
	row := TinyRow("", "")
	row.Trace = TraceSpec{Path: "generated:conversation?seed=7&requests=1000", Count: 1000}
	row.Perf.Pairs, row.Perf.WarmupsPerArm = 6, 1
	c, err := Create(row, Options{Dir: filepath.Join(tmp, "c"), BuiltinPath: bin, Perf: PerfOptions{
		CompetingLoadFraction:  1, // about affinity, not the shared host's load (see PerfOptions)
		ForceAffinityViolation: func(id RunID) bool { return id == "perf/pair-002-candidate" },
		ViolationAfter:         20 * time.Millisecond,
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		for range c.Events() {
		}
	}()
	if err := ctl(c).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if err := ctl(c).StartPerf(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	r, err := perfResultOf(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Invalidations) != 1 || r.Invalidations[0].Pair != 2 || !strings.Contains(r.Invalidations[0].Reason, "affinity violation") {
		t.Fatalf("invalidations %+v", r.Invalidations)
	}
	var runs []RunID
	for _, rec := range c.journal.Records() {
		if rec.Type == RecRunEnd && rec.Kind == KindSample && rec.Index == 2 {
			runs = append(runs, rec.Run)
		}
	}
	if len(runs) != 4 || r.Pairs[1].Attempt != 2 {
		t.Fatalf("pair 2 runs %v, counted attempt %d", runs, r.Pairs[1].Attempt)
	}
	t.Logf("invalidated: %s", r.Invalidations[0].Reason)
	t.Logf("pair 2 runs in the journal: %v; verdict %s (%s)", runs, r.Verdict, r.Reason)
}

// buildKvparity builds the kvparity command into dir: the figures replay with its embedded
// engine exactly as a user's kvparity would.
func buildKvparity(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "kvparity")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kvparity: %v\n%s", err, out)
	}
	return bin
}

// perfResultOf is the recorded result of the current artifacts' series, or an error while the
// stage has not decided it.
func perfResultOf(c *Campaign) (*PerfResult, error) {
	key := perfKey(c.Pinned(Baseline).Gen, c.Pinned(Candidate).Gen)
	s := c.History().perfSeries(key)
	if s.result == nil {
		return nil, fmt.Errorf("no performance result for the current artifacts (series %s: %d of %d pairs)", key, len(s.pairs), c.row.Perf.Pairs)
	}
	return s.result, nil
}
