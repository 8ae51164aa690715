package perf_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kvparity/engine"
	armkind "kvparity/engine/arm"
	"kvparity/engine/enginetest"
	"kvparity/engine/journal"
	"kvparity/engine/perf"
	"kvparity/engine/run"
	"kvparity/internal/layout"
	"kvparity/stats"
)

// The perf stage is tested end to end on real processes: both arms are copies of perffake
// (engine/testdata/perffake), which writes the timing a test asks for, so bookkeeping, statistics,
// failures and invalidations are exercised through the production runner, monitor and journal.

// buildPerfFake compiles perffake into dir.
func buildPerfFake(t *testing.T, dir string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build the fake replay: %v", err)
	}
	out := filepath.Join(dir, "perffake")
	cmd := exec.Command(goBin, "build", "-o", out, "../testdata/perffake")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building perffake: %v\n%s", err, b)
	}
	return out
}

// perfRow is a small row on perffake: 20 pairs (bounds X(6)/X(15)), 2 warmups per arm.
func perfRow(fake string) *engine.Row {
	r := engine.TinyRow("", "")
	r.Name = "perf-test"
	r.Baseline = engine.ArmSpec{Revision: "aaaaaaa", Binary: fake, Features: []string{"replay-bench"}}
	r.Candidate = engine.ArmSpec{Revision: "bbbbbbb", Binary: fake, Features: []string{"replay-bench"}}
	r.Trace = engine.TraceSpec{Path: "generated:conversation?seed=7&requests=20", Count: 20}
	r.Replay.Args = []string{"--serving-mode", "aggregated", "--num-workers", "2"}
	r.Perf.Pairs = 20
	r.Perf.WarmupsPerArm = 2
	r.Perf.ScheduleSeed = 20261129
	return r
}

// perfEvents collects a campaign's events.
type perfEvents struct {
	mu   sync.Mutex
	evs  []engine.Event
	done chan struct{}
	on   func(engine.Event)
}

func collectPerf(c *engine.Campaign, on func(engine.Event)) *perfEvents {
	l := &perfEvents{done: make(chan struct{}), on: on}
	go func() {
		defer close(l.done)
		for ev := range c.Events() {
			l.mu.Lock()
			l.evs = append(l.evs, ev)
			l.mu.Unlock()
			if l.on != nil {
				l.on(ev)
			}
		}
	}()
	return l
}

func (l *perfEvents) all() []engine.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.evs)
}

type perfCase struct {
	t    *testing.T
	c    *engine.Campaign
	evs  *perfEvents
	dir  string
	opts engine.Options
}

func newPerfCase(t *testing.T, row *engine.Row, mutate func(*engine.Options), on func(engine.Event)) *perfCase {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "campaign")
	opts := engine.Options{Dir: dir, PollInterval: 20 * time.Millisecond, Warn: func(s string) { t.Log("warning:", s) }}
	// Other work on a shared host must not invalidate pairs of tests that are not about load.
	opts.Perf.CompetingLoadFraction = 1
	if mutate != nil {
		mutate(&opts)
	}
	c, err := engine.Create(row, opts)
	if err != nil {
		t.Fatal(err)
	}
	pc := &perfCase{t: t, c: c, dir: dir, opts: opts}
	pc.evs = collectPerf(c, on)
	t.Cleanup(func() { c.Close() })
	return pc
}

// run runs the perf stage (without the determinism precondition, which Start owns) and waits.
func (pc *perfCase) run() {
	pc.t.Helper()
	h := pc.c.Host()
	if err := h.Start(engine.StagePerf, func(ctx context.Context) bool { return perf.Run(ctx, h) }); err != nil {
		pc.t.Fatal(err)
	}
	pc.c.Wait()
}

func (pc *perfCase) result() *engine.PerfResult {
	pc.t.Helper()
	r, err := perfResult(pc.c)
	if err != nil {
		pc.t.Fatalf("no result: %v", err)
	}
	return r
}

// perfResult is the recorded result of the current artifacts' series, or an error while the
// stage has not decided it.
func perfResult(c *engine.Campaign) (*engine.PerfResult, error) {
	key := engine.PerfKey(c.Pinned(engine.Baseline).Gen, c.Pinned(engine.Candidate).Gen)
	h := c.History()
	if r := h.PerfDecided(key); r != nil {
		return r, nil
	}
	return nil, fmt.Errorf("no performance result for the current artifacts (series %s: %d of %d pairs)", key, h.PerfPairsDone(key), c.Row().Perf.Pairs)
}

func (pc *perfCase) records(typ engine.RecordType) []engine.Record {
	var out []engine.Record
	for _, r := range journalRecords(pc.t, pc.c) {
		if r.Type == typ {
			out = append(out, r)
		}
	}
	return out
}

// journalRecords is every record of c's journal, read back from its file.
func journalRecords(t *testing.T, c *engine.Campaign) []engine.Record {
	t.Helper()
	recs, _, err := journal.Read[engine.Record](filepath.Join(c.Dir(), layout.FileJournal), journal.RefuseDamage)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// elfSizes are a file's .text bytes and the bytes its debug sections take, as the footprint of
// a binary arm (engine/arm) reads them (engine's own tests have the same helper).
func elfSizes(path string) (text, debug int64, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, 0, err
	}
	f, err := armkind.Binary{}.Footprint(path, st.Size())
	if f.TextSize > 0 {
		debug = st.Size() - f.ShippedSize
	}
	return f.TextSize, debug, err
}

func TestPerfStage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perffake with go build and runs whole perf stages on it")
	}
	fake := buildPerfFake(t, t.TempDir())

	t.Run("slowdown fails with the protocol's bookkeeping", func(t *testing.T) {
		t.Setenv("PERFFAKE_FACTOR", "1.30")
		pc := newPerfCase(t, perfRow(fake), nil, nil)
		pc.run()
		r := pc.result()
		if r.Verdict != "FAIL" || r.LowerOrder != 6 || r.UpperOrder != 15 || !(r.Lower > 1.05) {
			t.Fatalf("verdict %s [X(%d)=%v, X(%d)=%v]: %s", r.Verdict, r.LowerOrder, r.Lower, r.UpperOrder, r.Upper, r.Reason)
		}
		checkBookkeeping(t, pc, r)
	})

	t.Run("identical arms pass", func(t *testing.T) {
		pc := newPerfCase(t, perfRow(fake), nil, nil)
		pc.run()
		r := pc.result()
		if r.Verdict != "PASS" {
			t.Fatalf("A/A verdict %s: %s", r.Verdict, r.Reason)
		}
		if r.Median < 0.99 || r.Median > 1.01 {
			t.Fatalf("A/A median ratio %v", r.Median)
		}
	})

	t.Run("crashing sample fails the row", func(t *testing.T) {
		t.Setenv("PERFFAKE_CRASH", "pair-003-candidate")
		pc := newPerfCase(t, perfRow(fake), nil, nil)
		pc.run()
		r := pc.result()
		if r.Verdict != "FAIL" || !strings.Contains(r.Reason, "pair-003-candidate") || !strings.Contains(r.Reason, "product failure") {
			t.Fatalf("verdict %s: %s", r.Verdict, r.Reason)
		}
		if len(r.Pairs) != 2 {
			t.Fatalf("%d pairs recorded after the crash in pair 3, want 2 (the stage stops)", len(r.Pairs))
		}
		var crashed *engine.PerfSample
		for i := range r.Samples {
			if strings.Contains(string(r.Samples[i].Run), "pair-003-candidate") {
				crashed = &r.Samples[i]
			}
		}
		if crashed == nil || crashed.ExitCode != 2 || crashed.Error == "" {
			t.Fatalf("the crashed sample is not kept with its status: %+v", crashed)
		}
		if len(r.Invalidations) != 0 {
			t.Fatalf("a crash was treated as environmental: %+v", r.Invalidations)
		}
		v := lastVerdict(t, pc.c, engine.StagePerf)
		if v == nil || v.Verdict != "FAIL" {
			t.Fatalf("journal verdict %+v", v)
		}
		// Starting again republishes the decision: the crash is never retried silently.
		before := len(pc.records(engine.RecRunStart))
		pc.run()
		if after := len(pc.records(engine.RecRunStart)); after != before {
			t.Fatalf("rerun started %d new processes", after-before)
		}
	})

	t.Run("malformed timing record fails the row", func(t *testing.T) {
		t.Setenv("PERFFAKE_MALFORMED", "pair-001-baseline")
		pc := newPerfCase(t, perfRow(fake), nil, nil)
		pc.run()
		r := pc.result()
		if r.Verdict != "FAIL" || !strings.Contains(r.Reason, "malformed timing record") || !strings.Contains(r.Reason, "timings.jsonl") {
			t.Fatalf("verdict %s: %s", r.Verdict, r.Reason)
		}
	})

	t.Run("missing timing field blocks with the fields written", func(t *testing.T) {
		t.Setenv("PERFFAKE_FIELDS", "replay_call_ms,wall_time_ms")
		pc := newPerfCase(t, perfRow(fake), nil, nil)
		pc.run()
		r := pc.result()
		if r.Verdict != "BLOCKED" || !strings.Contains(r.Reason, "does not write replay_execution_ms") ||
			!strings.Contains(r.Reason, "it writes iteration, replay_bench (not a number), replay_call_ms, wall_time_ms") {
			t.Fatalf("verdict %s: %s", r.Verdict, r.Reason)
		}
		if len(pc.records(engine.RecBlocked)) == 0 {
			t.Fatal("no blocked record")
		}
	})

	t.Run("replay_bench false blocks", func(t *testing.T) {
		t.Setenv("PERFFAKE_BENCH", "false")
		pc := newPerfCase(t, perfRow(fake), nil, nil)
		pc.run()
		if r := pc.result(); r.Verdict != "BLOCKED" || !strings.Contains(r.Reason, "/replay_bench is false") {
			t.Fatalf("verdict %s: %s", r.Verdict, r.Reason)
		}
	})

	t.Run("declared proxy is labelled everywhere", func(t *testing.T) {
		t.Setenv("PERFFAKE_FIELDS", "replay_call_ms")
		row := perfRow(fake)
		row.Perf.TimingField, row.Perf.TimingProxy = "replay_call_ms", true
		pc := newPerfCase(t, row, nil, nil)
		pc.run()
		r := pc.result()
		if r.Verdict != "PASS" || r.Metric != "replay_call_ms (PROXY for replay_execution_ms)" {
			t.Fatalf("verdict %s metric %q: %s", r.Verdict, r.Metric, r.Reason)
		}
		if !slices.ContainsFunc(r.Caveats, func(s string) bool { return strings.Contains(s, "PROXY") }) {
			t.Fatalf("caveats %v", r.Caveats)
		}
		bench, _ := os.ReadFile(filepath.Join(pc.dir, layout.DirPerf, "samples.txt"))
		if !strings.Contains(string(bench), "BenchmarkReplay/metric=replay_call_ms-PROXY/arm=baseline 1 ") {
			t.Fatalf("bench export does not label the proxy:\n%s", bench)
		}
		sums := enginetest.EventsOf[engine.PerfSummary](pc.evs.all())
		if len(sums) == 0 || !sums[len(sums)-1].TimingProxy || sums[len(sums)-1].TimingField != "replay_call_ms" {
			t.Fatalf("summary does not label the proxy: %+v", sums)
		}
	})

	t.Run("forced affinity violation invalidates and reruns the pair", func(t *testing.T) {
		if len(run.AllowedCPUs()) < 2 {
			t.Skip("needs two CPUs to re-pin a sample elsewhere")
		}
		t.Setenv("PERFFAKE_SLEEP_MS", "150")
		row := perfRow(fake)
		row.Perf.Pairs, row.Perf.WarmupsPerArm = 4, 1
		pc := newPerfCase(t, row, func(o *engine.Options) {
			o.Perf.ForceAffinityViolation = func(id engine.RunID) bool { return id == "perf/pair-002-candidate" }
			o.Perf.ViolationAfter = 20 * time.Millisecond
		}, nil)
		pc.run()
		r := pc.result()
		invs := pc.records(engine.RecPerfInvalid)
		if len(invs) != 1 || invs[0].Index != 2 || invs[0].Attempt != 1 || !strings.Contains(invs[0].Reason, "affinity violation") ||
			!strings.Contains(invs[0].Reason, "Cpus_allowed_list") {
			t.Fatalf("invalidations %+v", invs)
		}
		// Both attempts of pair 2 are in the journal, in the same order, and attempt 2 counts.
		var pair2 []engine.RunID
		for _, rec := range pc.records(engine.RecRunStart) {
			if rec.Kind == engine.KindSample && rec.Index == 2 {
				pair2 = append(pair2, rec.Run)
			}
		}
		sched := r.Schedule.Pairs[1]
		first, second := "baseline", "candidate"
		if sched == stats.CandidateFirst {
			first, second = second, first
		}
		want := []engine.RunID{engine.RunID("perf/pair-002-" + first), engine.RunID("perf/pair-002-" + second),
			engine.RunID("perf/pair-002-" + first + "-a2"), engine.RunID("perf/pair-002-" + second + "-a2")}
		if !slices.Equal(pair2, want) {
			t.Fatalf("pair 2 runs %v, want %v", pair2, want)
		}
		if p := r.Pairs[1]; p.Attempt != 2 || p.Pair != 2 {
			t.Fatalf("pair 2 counted from attempt %d", p.Attempt)
		}
		var forced *engine.PerfSample
		for i := range r.Samples {
			if r.Samples[i].Run == "perf/pair-002-candidate" {
				forced = &r.Samples[i]
			}
		}
		if forced == nil || forced.Env.AffinityViolation == "" || forced.Env.ForcedBy == "" || forced.Error != "" {
			t.Fatalf("forced sample %+v", forced)
		}
		if got := enginetest.EventsOf[engine.SampleInvalidated](pc.evs.all()); len(got) != 1 || got[0].Pair != 2 {
			t.Fatalf("engine.SampleInvalidated events %+v", got)
		}
	})

	t.Run("competing load on the measured CPU invalidates the pair", func(t *testing.T) {
		cpus := run.AllowedCPUs()
		if len(cpus) < 2 {
			t.Skip("needs two CPUs: kvparity keeps itself off the measured one")
		}
		measured := cpus[len(cpus)-1]
		t.Setenv("PERFFAKE_SLEEP_MS", "200")
		row := perfRow(fake)
		row.Perf.Pairs, row.Perf.WarmupsPerArm = 2, 0
		// A burner pinned to the measured CPU competes with the first samples; it is killed at
		// the first invalidation.
		// Started by the runner, pinned to the measured CPU from birth.
		burnCtx, burnCancel := context.WithCancel(context.Background())
		burning, burnt := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(burnt)
			spec := run.Spec{ID: "burner", Binary: fake, Args: []string{"--timings-jsonl", filepath.Join(t.TempDir(), "burn.jsonl")},
				Dir: filepath.Join(t.TempDir(), "burner"), CPUs: []int{measured},
				Env: append(os.Environ(), "PERFFAKE_SLEEP_MS=20000")}
			(&run.Runner{}).Run(burnCtx, spec, func(int, []int) error { close(burning); return nil })
		}()
		select {
		case <-burning:
		case <-burnt:
			t.Fatal("the burner did not start")
		}
		var once sync.Once
		stopBurner := func() { once.Do(func() { burnCancel(); <-burnt }) }
		t.Cleanup(stopBurner)
		pc := newPerfCase(t, row, func(o *engine.Options) {
			o.Perf.CompetingLoadFraction = 0 // the production limit
			o.Perf.MaxInvalidations = 3
		}, func(ev engine.Event) {
			if _, ok := ev.(engine.SampleInvalidated); ok {
				stopBurner()
			}
		})
		pc.run()
		invs := pc.records(engine.RecPerfInvalid)
		if len(invs) == 0 {
			t.Fatal("a burner on the measured CPU invalidated nothing")
		}
		var inv engine.PerfInvalidation
		json.Unmarshal(invs[0].Data, &inv)
		if inv.Attempt != 1 || len(inv.Runs) != 2 || !strings.Contains(inv.Reason, "competing load on CPU") || len(inv.Causes) == 0 || !strings.HasPrefix(inv.Causes[0], "competing load on CPU") {
			t.Fatalf("first invalidation %+v", inv)
		}
		for _, rec := range journalRecords(t, pc.c) {
			if rec.Type != engine.RecRunEnd || rec.Run != inv.Runs[0] {
				continue
			}
			var smp engine.PerfSample
			json.Unmarshal(rec.Data, &smp)
			if smp.Env.SampleCPUMs <= 0 && smp.Env.CompetingMs > smp.Env.CompetingLimitMs {
				// The sample never ran beside the burner and the rest of this machine's load: its
				// share of the evidence cannot be checked here (issue 42: skip naming the load).
				t.Skipf("the invalidated sample got no CPU time beside this machine's load (%v ms busy, %v ms competing): this check needs a quieter machine",
					smp.Env.BusyMs, smp.Env.CompetingMs)
			}
			if smp.Env.CompetingMs <= smp.Env.CompetingLimitMs || smp.Env.SampleCPUMs <= 0 || smp.Env.BusyMs <= 0 || smp.Env.CompetingLimitMs < 30 {
				t.Fatalf("evidence of the invalidated sample %+v", smp.Env)
			}
		}
		// The pair is rerun: after the burner it completes, unless the shared host stays busy,
		// in which case the row is blocked as unfit, never measured under load.
		if r, err := perfResult(pc.c); err == nil {
			if len(r.Pairs) != 2 || r.Pairs[inv.Pair-1].Attempt < 2 {
				t.Fatalf("pairs %+v", r.Pairs)
			}
		} else if b := pc.records(engine.RecBlocked); len(b) != 1 || !strings.Contains(b[0].Reason, "not fit for measurement") {
			t.Fatalf("neither a result nor a block: %v %+v", err, b)
		}
	})

	t.Run("killed campaign resumes at the next unfinished pair", func(t *testing.T) {
		t.Setenv("PERFFAKE_SLEEP_MS", "30")
		row := perfRow(fake)
		row.Perf.Pairs = 8
		var pc *perfCase
		stopped := make(chan struct{})
		var once sync.Once
		pc = newPerfCase(t, row, nil, func(ev engine.Event) {
			if p, ok := ev.(engine.PairDone); ok && p.Pair == 3 {
				once.Do(func() { pc.c.StopStage(); close(stopped) })
			}
		})
		pc.run()
		<-stopped
		if _, err := perfResult(pc.c); err == nil {
			t.Fatal("a stopped stage has a result")
		}
		pc.c.Close()
		<-pc.evs.done

		c2, err := engine.Open(pc.dir, pc.opts)
		if err != nil {
			t.Fatal(err)
		}
		pc2 := &perfCase{t: t, c: c2, dir: pc.dir, opts: pc.opts}
		pc2.evs = collectPerf(c2, nil)
		t.Cleanup(func() { c2.Close() })
		pc2.run()
		r := pc2.result()
		if len(r.Pairs) != 8 {
			t.Fatalf("%d pairs after resume", len(r.Pairs))
		}
		starts := map[int]int{}
		for _, rec := range pc2.records(engine.RecRunStart) {
			if rec.Kind == engine.KindSample {
				starts[rec.Index]++
			}
		}
		for i := 1; i <= 3; i++ {
			if starts[i] != 2 {
				t.Fatalf("pair %d started %d processes, want 2 (not rerun after resume)", i, starts[i])
			}
		}
		for _, p := range r.Pairs[3:] {
			if p.Pair == 4 && starts[4] > 2 && p.Attempt != 2 {
				t.Fatalf("interrupted pair 4 counted from attempt %d", p.Attempt)
			}
		}
		if starts[4] > 2 {
			inv := pc2.records(engine.RecPerfInvalid)
			if len(inv) != 1 || !strings.Contains(inv[0].Reason, "interrupted") {
				t.Fatalf("interrupted pair 4 not recorded: %+v", inv)
			}
		}
		warm := 0
		for _, rec := range pc2.records(engine.RecRunStart) {
			if rec.Kind == engine.KindWarmup {
				warm++
			}
		}
		if warm != 4 {
			t.Fatalf("%d warmups after resume, want the 4 of the first run", warm)
		}
		// The replayed history gives the UI the pairs done before the stop.
		if got := enginetest.EventsOf[engine.PairDone](pc2.evs.all()); len(got) < 8 {
			t.Fatalf("%d engine.PairDone events after reopening", len(got))
		}
	})

	t.Run("footprint growth fails until explained", func(t *testing.T) {
		padded := filepath.Join(t.TempDir(), "perffake-big")
		data, err := os.ReadFile(fake)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(padded, append(data, make([]byte, len(data)/10)...), 0o755); err != nil {
			t.Fatal(err)
		}
		row := perfRow(fake)
		row.Candidate.Binary = padded
		row.Perf.Pairs, row.Perf.WarmupsPerArm = 6, 0
		pc := newPerfCase(t, row, nil, nil)
		pc.run()
		v := lastVerdict(t, pc.c, engine.StageFootprint)
		// The padding grows the file by 10% and what users ship (the binary without its debug
		// sections) by more: the gate judges the latter.
		_, debug, _ := elfSizes(fake)
		shipped := int64(len(data)) - debug
		want := fmt.Sprintf("binary without debug sections %+.2f%%", 100*float64(len(data)/10)/float64(shipped))
		if v == nil || v.Verdict != "FAIL" || !strings.Contains(v.Reason, want) {
			t.Fatalf("footprint verdict %+v, want %q", v, want)
		}
		if r := pc.result(); r.Footprint == nil || r.Footprint.Verdict != "FAIL" {
			t.Fatalf("result footprint %+v", r.Footprint)
		}

		row.Perf.FootprintExplained = "request tracing tables (PR 1234), narrowed to 10%"
		pc = newPerfCase(t, row, nil, nil)
		pc.run()
		if v := lastVerdict(t, pc.c, engine.StageFootprint); v == nil || v.Verdict != "PASS" || !strings.Contains(v.Reason, "PR 1234") {
			t.Fatalf("explained footprint verdict %+v", v)
		}
	})

	t.Run("tampered artifact blocks before warmups", func(t *testing.T) {
		pc := newPerfCase(t, perfRow(fake), nil, nil)
		p := pc.c.Pinned(engine.Candidate)
		f, err := os.OpenFile(filepath.Join(pc.dir, p.Path), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("x"))
		f.Close()
		pc.run()
		blocked := pc.records(engine.RecBlocked)
		if len(blocked) != 1 || !strings.Contains(blocked[0].Reason, "modified after pinning") {
			t.Fatalf("blocked %+v", blocked)
		}
		if n := len(pc.records(engine.RecRunStart)); n != 0 {
			t.Fatalf("%d processes started on a tampered artifact", n)
		}
	})
}

// checkBookkeeping asserts the protocol's order of things on a finished series.
func checkBookkeeping(t *testing.T, pc *perfCase, r *engine.PerfResult) {
	t.Helper()
	recs := journalRecords(t, pc.c)
	schedSeq, firstSample := int64(-1), int64(-1)
	var warmups []engine.RunID
	var samples []engine.Record
	for _, rec := range recs {
		switch {
		case rec.Type == engine.RecPerfSchedule && schedSeq < 0:
			schedSeq = rec.Seq
		case rec.Type == engine.RecRunStart && rec.Kind == engine.KindWarmup:
			warmups = append(warmups, rec.Run)
		case rec.Type == engine.RecRunStart && rec.Kind == engine.KindSample:
			if firstSample < 0 {
				firstSample = rec.Seq
			}
			samples = append(samples, rec)
		}
	}
	if schedSeq < 0 || firstSample < 0 || schedSeq > firstSample {
		t.Fatalf("schedule record %d, first sample %d: the schedule must be persisted first", schedSeq, firstSample)
	}
	var onDisk engine.PerfScheduleData
	data, err := os.ReadFile(filepath.Join(pc.dir, "schedule.json"))
	if err != nil || json.Unmarshal(data, &onDisk) != nil || !slices.Equal(onDisk.Schedule.Pairs, r.Schedule.Pairs) {
		t.Fatalf("schedule.json %s (%v)", data, err)
	}
	if want, _ := stats.BalancedSchedule(20261129, 20); !slices.Equal(want.Pairs, r.Schedule.Pairs) {
		t.Fatal("the persisted schedule is not the row's seeded balanced schedule")
	}
	wantWarm := []engine.RunID{"perf/warmup-01-baseline", "perf/warmup-01-candidate", "perf/warmup-02-baseline", "perf/warmup-02-candidate"}
	if !slices.Equal(warmups, wantWarm) {
		t.Fatalf("warmups %v, want alternating %v", warmups, wantWarm)
	}
	// Pair members adjacent and in the scheduled order.
	if len(samples) != 40 {
		t.Fatalf("%d sample processes, want 40", len(samples))
	}
	for i := 0; i < len(samples); i += 2 {
		a, b := samples[i], samples[i+1]
		pair := i/2 + 1
		firstArm := engine.Baseline
		if r.Schedule.Pairs[pair-1] == stats.CandidateFirst {
			firstArm = engine.Candidate
		}
		if a.Index != pair || b.Index != pair || a.Arm != firstArm || b.Arm == a.Arm {
			t.Fatalf("pair %d: runs %s, %s not adjacent in order %s", pair, a.Run, b.Run, r.Schedule.Pairs[pair-1])
		}
	}
	// Every sample: a fresh process with --iterations 1, its own timings file, no report output.
	seen := map[string]bool{}
	for _, rec := range recs {
		if rec.Type != engine.RecRunStart || (rec.Kind != engine.KindSample && rec.Kind != engine.KindWarmup) {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(pc.dir, layout.DirRuns, filepath.FromSlash(string(rec.Run)), "timings.jsonl"))
		if err != nil || len(cmdline) == 0 {
			t.Fatalf("%s wrote no timings file of its own: %v", rec.Run, err)
		}
	}
	for _, smp := range r.Samples {
		spec := pc.c.Host().RunSpec(smp.Run, smp.Arm, engine.KindSample, smp.Index, smp.Attempt, false)
		_ = spec
		if seen[string(smp.Run)] {
			t.Fatalf("run id %s reused", smp.Run)
		}
		seen[string(smp.Run)] = true
	}
	// A sample's own args: engine/perf's TestSampleArgsTimeOnly.
	// r = candidate / baseline whatever the order.
	for _, pr := range r.Pairs {
		if pr.Ratio != pr.CandidateMs/pr.BaselineMs {
			t.Fatalf("pair %d ratio %v ≠ %v/%v", pr.Pair, pr.Ratio, pr.CandidateMs, pr.BaselineMs)
		}
	}
	// Exports: result.json, samples.json and a benchmark file with 40 timings and 20 ratios.
	for _, f := range []string{"result.json", "samples.json", "samples.txt"} {
		if _, err := os.Stat(filepath.Join(pc.dir, layout.DirPerf, f)); err != nil {
			t.Fatalf("export %s: %v", f, err)
		}
	}
	bench, _ := os.Open(filepath.Join(pc.dir, layout.DirPerf, "samples.txt"))
	defer bench.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(bench)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 4 && strings.HasPrefix(f[0], "Benchmark") {
			counts[f[3]]++
		}
	}
	if counts["ns/op"] != 40 || counts["ratio"] != 20 {
		t.Fatalf("benchmark export counts %v", counts)
	}
	// Events: a engine.PairDone per pair, running summaries, and a final summary with the bounds.
	evs := pc.evs.all()
	if n := len(enginetest.EventsOf[engine.PairDone](evs)); n != 20 {
		t.Fatalf("%d engine.PairDone events", n)
	}
	sums := enginetest.EventsOf[engine.PerfSummary](evs)
	final := sums[len(sums)-1]
	if !final.Final || final.Verdict != r.Verdict || final.LowerOrder != 6 || r.Telemetry == "" || len(final.Diagnostics) != 5 {
		t.Fatalf("final summary %+v", final)
	}
	if running := sums[0]; running.Final || running.Verdict != "" {
		t.Fatalf("a running summary carries a verdict: %+v", running)
	}
}

func lastVerdict(t *testing.T, c *engine.Campaign, st engine.Stage) *engine.Record {
	t.Helper()
	var v *engine.Record
	for _, r := range journalRecords(t, c) {
		if r.Type == engine.RecVerdict && r.Stage == st {
			r := r
			v = &r
		}
	}
	return v
}
