package ui

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"kvparity/engine"
	"kvparity/report"
	"kvparity/verdict"
)

// fakeController is a Controller that records calls and, when a stage starts, replays a
// scripted event sequence on its channel (what the engine would publish).
type fakeController struct {
	dir      string // the campaign folder; the goldens' fixed (absent) one when empty
	mu       sync.Mutex
	ch       chan engine.Event
	info     engine.CampaignInfo
	calls    []string
	running  bool
	watching bool
	closed   bool
	det      []engine.Event // emitted by StartDeterminism
	perf     []engine.Event // emitted by StartPerf
	perfErr  error
}

func newFake(info engine.CampaignInfo) *fakeController {
	return &fakeController{ch: make(chan engine.Event, 1<<16), info: info}
}

func (f *fakeController) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

func (f *fakeController) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeController) emit(evs []engine.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	for _, ev := range evs {
		f.ch <- ev
	}
}

func (f *fakeController) Events() <-chan engine.Event { return f.ch }
func (f *fakeController) Info() engine.CampaignInfo   { return f.info }
func (f *fakeController) StartDeterminism() error {
	f.record("StartDeterminism")
	f.emit(f.det)
	return nil
}
func (f *fakeController) StartInvestigation(equivalence string) error {
	f.record("StartInvestigation")
	return nil
}

func (f *fakeController) StartPerf() error {
	f.record("StartPerf")
	if f.perfErr != nil {
		return f.perfErr
	}
	f.emit(f.perf)
	return nil
}
func (f *fakeController) StopStage() { f.record("StopStage") }
func (f *fakeController) RerunRepetition(r engine.RunID) error {
	f.record("RerunRepetition " + string(r))
	return nil
}
func (f *fakeController) AddRepetition(a engine.Arm) error {
	f.record("AddRepetition " + string(a))
	return nil
}
func (f *fakeController) SetWatch(on bool) error {
	f.record(fmt.Sprintf("SetWatch %v", on))
	f.mu.Lock()
	f.watching = on
	f.mu.Unlock()
	return nil
}
func (f *fakeController) Watching() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.watching
}
func (f *fakeController) Running() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.running
}
func (f *fakeController) Dir() string {
	if f.dir != "" {
		return f.dir
	}
	return "/campaigns/vllm-disagg-20261129T090000Z"
}
func (f *fakeController) Close() error {
	f.record("Close")
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errors.New("closed twice")
	}
	f.closed = true
	close(f.ch)
	return nil
}

// t0 is the fixed instant of the scripted campaign and the goldens' clock.
var t0 = time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)

func fixedClock() time.Time { return t0.Add(90 * time.Second) }

func testInfo(requests, pairs int) engine.CampaignInfo {
	return engine.CampaignInfo{
		Row:         "vllm-disagg",
		Dir:         "/campaigns/vllm-disagg-20261129T090000Z",
		TraceSpec:   fmt.Sprintf("generated:conversation?seed=7&requests=%d", requests),
		TraceSHA256: "b8cbb061c0ffee00112233445566778899aabbccddeeff00112233445566778",
		Window:      fmt.Sprintf("offset 0 · %d requests", requests),
		Host:        engine.HostInfo{Hostname: "node7", CPUModel: "EPYC", Cores: 2, NUMANodes: 1},
		Artifacts: map[engine.Arm]engine.ArtifactInfo{
			engine.Baseline: {Arm: engine.Baseline, Revision: "a1b2c3d4e5f6", Source: "builtin",
				SHA256: "1f2e3d4c5b6a798800112233", Size: 9_437_184, TextSize: 4_194_304, Features: []string{"replay-bench"}},
			engine.Candidate: {Arm: engine.Candidate, Revision: "e4f5a6b7c8d9", Source: "builtin",
				SHA256: "9a8b7c6d5e4f321000aabbcc", Size: 9_500_000, TextSize: 4_227_858, Features: []string{"replay-bench"}},
		},
		Repetitions: 2, Pairs: pairs, Warmups: 5, Threshold: 1.05,
		TimingField: "replay_execution_ms",
	}
}

// evidence builds lifecycle evidence of a disaggregated run of n requests with p pressure events.
func evidence(n, p int) *report.Evidence {
	e := &report.Evidence{Topology: "disaggregated", Engine: "vllm", Requests: n,
		VirtualStartMs: 0, VirtualEndMs: 1_234_000,
		Terminal: map[string]int{"completed": n, "rejected": 0, "canceled": 0, "failed": 0, "stranded": 0},
		KVEvents: map[string]int{"stored": 3 * n, "removed": 2 * n, "cleared": 0},
		Handoffs: &report.HandoffEvidence{Requests: n, Complete: n, InOrder: n, Order: "source-first"},
		Rules: []report.Rule{
			{Name: "pressure band", Passed: true, Why: fmt.Sprintf("%d events in 10–20", p)},
			{Name: "no preempt/readmit cycling", Passed: true, Why: "no request preempted twice"},
			{Name: "virtual time advances", Passed: true, Why: "0 → 1234 s"},
			{Name: "overlap-sensitive routing", Passed: true, Why: fmt.Sprintf("%d decisions with overlap", n-12)},
			{Name: "handoff complete", Passed: true, Why: fmt.Sprintf("%d/%d", n, n)},
			{Name: "terminal cleanup", Passed: true, Why: "no stranded request"},
		},
	}
	for _, pool := range []string{"prefill", "decode"} {
		e.Pools = append(e.Pools, report.PoolEvidence{Pool: pool, RoutingDecisions: n, OverlapPositive: n - 12,
			Immediate: n, Admissions: n, Readmissions: p / 2, PressureEvents: p / 2, PressureReadmitted: p / 2,
			RequestsWithReuse: n * 3 / 4, Workers: []int{0, 1}})
	}
	for i := 0; i < p; i++ {
		at := float64(40_000 + i*1_234_000/max(p, 1))
		e.Pressure = append(e.Pressure, report.PressureRecord{Ordinal: i + 1, AtMs: at, Pool: "decode",
			WorkerID: i % 2, Kind: "vllm_preemption", RequestUUID: fmt.Sprintf("%08x-4a1b-9c2d-%012x", 0x3f2a0000+i, i),
			ReadmittedAt: at + 2_500, Readmitted: true, RunningBefore: 16, ActiveBlocks: 5500})
	}
	e.PreemptionsTotal = p
	return e
}

const goodDigest = "dd69381f4b0a9c2e7d5b3a1c0e9f8d7c6b5a49382716aa00bb11cc22dd33ee44"

// determinismScript is the event sequence of a determinism stage with two repetitions per arm
// over n requests, p pressure events each, ending in STABLE, STABLE and parity PASS.
func determinismScript(n, p int) []engine.Event {
	evs := []engine.Event{engine.StageStarted{Stage: engine.StageDeterminism},
		engine.PreflightDone{Preflight: engine.Preflight{Arm: engine.Baseline, SingleCore: true, MainShare: 0.64, CPUsPerRun: 1}},
		engine.PreflightDone{Preflight: engine.Preflight{Arm: engine.Candidate, SingleCore: true, MainShare: 0.61, CPUsPerRun: 1}}}
	i := 0
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		for rep := 1; rep <= 2; rep++ {
			id := engine.RunID(fmt.Sprintf("det/%s-%d", arm, rep))
			at := t0.Add(time.Duration(i) * 2 * time.Second)
			i++
			evs = append(evs, engine.RunStarted{Run: id, Arm: arm, Kind: engine.KindRepetition, Repetition: rep,
				CPUs: []int{rep - 1}, PID: 1000 + i, At: at})
			for _, frac := range []int{25, 50, 75, 100} {
				evs = append(evs, engine.RunProgress{Run: id, VirtualTimeMs: float64(12_340 * frac), Completed: n * frac / 100,
					Total: n, Elapsed: time.Duration(frac) * 19 * time.Millisecond})
			}
			ev := evidence(n, p)
			for _, r := range ev.Pressure {
				evs = append(evs, engine.PressureEvent{Run: id, Record: r})
			}
			evs = append(evs, engine.LogLine{Run: id, Line: fmt.Sprintf("replayed %d requests", n)},
				engine.RunFinished{Run: id, Arm: arm, Kind: engine.KindRepetition, Elapsed: 1900 * time.Millisecond},
				engine.DigestReady{Run: id, Arm: arm, Repetition: rep, Digest: goodDigest,
					ReportPath: "/campaigns/x/runs/" + string(id) + "/canonical.json"},
				engine.CoverageReady{Run: id, Arm: arm, Evidence: ev})
		}
	}
	// The perturbed repetitions after the plain ones: one per arm, the row's whole set at once.
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		id := engine.RunID(fmt.Sprintf("det/%s-perturbed", arm))
		evs = append(evs, engine.RunStarted{Run: id, Arm: arm, Kind: engine.KindPerturbed, Repetition: 1, Variation: "set",
			CPUs: []int{0, 1}, PID: 1100, At: t0.Add(8 * time.Second)},
			engine.RunFinished{Run: id, Arm: arm, Kind: engine.KindPerturbed, Elapsed: 2100 * time.Millisecond},
			engine.DigestReady{Run: id, Arm: arm, Repetition: 1, Digest: goodDigest,
				ReportPath: "/campaigns/x/runs/" + string(id) + "/canonical.json"})
	}
	return append(evs,
		engine.StageVerdict{Stage: engine.StageDeterminism, Arm: engine.Baseline, Verdict: "STABLE", Reason: "one digest over 2 repetitions"},
		engine.StageVerdict{Stage: engine.StageDeterminism, Arm: engine.Candidate, Verdict: "STABLE", Reason: "one digest over 2 repetitions"},
		engine.StageVerdict{Stage: engine.StageParity, Verdict: "PASS", Reason: "baseline and candidate are byte-identical"},
		engine.StageStopped{Stage: engine.StageDeterminism})
}

// ratio is a deterministic ratio series around 1.004.
func ratio(pair int) float64 { return 1.004 + 0.006*float64((pair*37)%11-5)/5 }

// perfScript is a performance stage of pairs pairs and 5 warmups per arm ending in PASS.
func perfScript(pairs int) []engine.Event {
	evs := []engine.Event{engine.StageStarted{Stage: engine.StagePerf}}
	for w := 1; w <= 10; w++ {
		arm := engine.Baseline
		if w%2 == 0 {
			arm = engine.Candidate
		}
		id := engine.RunID(fmt.Sprintf("perf/warmup-%02d-%s", w, arm))
		evs = append(evs, engine.RunStarted{Run: id, Arm: arm, Kind: engine.KindWarmup, Repetition: w, At: t0},
			engine.RunFinished{Run: id, Arm: arm, Kind: engine.KindWarmup, Elapsed: time.Second},
			engine.SampleDone{Run: id, Arm: arm, Warmup: true, Index: w, Attempt: 1, Ms: 1000})
	}
	for p := 1; p <= pairs; p++ {
		r := ratio(p)
		for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
			id := engine.RunID(fmt.Sprintf("perf/pair-%03d-%s", p, arm))
			ms := 1000.0
			if arm == engine.Candidate {
				ms = 1000 * r
			}
			evs = append(evs, engine.RunStarted{Run: id, Arm: arm, Kind: engine.KindSample, Repetition: p, At: t0},
				engine.RunFinished{Run: id, Arm: arm, Kind: engine.KindSample, Elapsed: time.Second},
				engine.SampleDone{Run: id, Arm: arm, Index: p, Attempt: 1, Ms: ms})
		}
		evs = append(evs, engine.PairDone{Pair: p, BaselineFirst: p%2 == 0, BaselineMs: 1000, CandidateMs: 1000 * r,
			Ratio: r, Done: p, Total: pairs})
		if p >= 10 {
			evs = append(evs, engine.PerfSummary{Done: p, Total: pairs, Median: 1.004, Diagnostics: []engine.Diagnostic{
				{Name: "lag-1 r", Statistic: 0.05, Threshold: 0.3},
				{Name: "order trend", Statistic: 0.02, Threshold: 0.3},
			}})
		}
	}
	return append(evs,
		engine.PerfSummary{Done: pairs, Total: pairs, Median: 1.004, Final: true, Lower: 0.999, Upper: 1.008,
			Verdict: "PASS", Reason: "upper bound 1.008 ≤ 1.05", Diagnostics: []engine.Diagnostic{
				{Name: "lag-1 r", Statistic: 0.05, Threshold: 0.3},
				{Name: "order trend", Statistic: 0.02, Threshold: 0.3},
			}},
		engine.StageVerdict{Stage: engine.StagePerf, Verdict: "PASS", Reason: "upper bound 1.008 ≤ 1.05"},
		engine.StageVerdict{Stage: engine.StageFootprint, Verdict: "PASS", Reason: ".text +0.8%"},
		engine.StageStopped{Stage: engine.StagePerf})
}

// assess stands in for campaignreport.Assess: stage 8's rules over the verdicts the fake has
// emitted so far (lifecycle evidence taken as holding), so the header's words follow the script.
func (f *fakeController) assess(string) (verdict.Verdicts, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	in := verdict.Inputs{Evidence: verdict.Of(verdict.Pass, "every rule holds")}
	var emitted []engine.Event
	for _, c := range f.calls {
		switch c {
		case "StartDeterminism":
			emitted = append(emitted, f.det...)
		case "StartPerf":
			emitted = append(emitted, f.perf...)
		}
	}
	for _, ev := range emitted {
		v, ok := ev.(engine.StageVerdict)
		if !ok {
			continue
		}
		o := verdict.Outcome{Verdict: v.Verdict, Reason: v.Reason}
		switch {
		case v.Stage == engine.StageDeterminism && v.Arm == engine.Baseline:
			in.Baseline = o
		case v.Stage == engine.StageDeterminism && v.Arm == engine.Candidate:
			in.Candidate = o
		case v.Stage == engine.StageParity:
			in.Parity = o
		case v.Stage == engine.StagePerf:
			in.Performance = o
		case v.Stage == engine.StageFootprint:
			in.Footprint = o
		}
	}
	return verdict.Decide(in), nil
}
