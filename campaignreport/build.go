package campaignreport

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"kvparity/engine"
	"kvparity/engine/run"
	"kvparity/report"
	"kvparity/verdict"
)

var commitSHA = regexp.MustCompile(`^[0-9a-f]{7,40}$`)

var arms = []engine.Arm{engine.Baseline, engine.Candidate}

// build assembles the report from the recorded campaign. files receives the focused diffs to
// write next to it.
func (c *campaign) build() (*Report, map[string][]byte, error) {
	files := map[string][]byte{}
	r := &Report{SchemaVersion: verdict.SchemaVersion, Kind: verdict.KindReport, Row: c.row.Name, Host: c.host, DeskBuild: c.row.DeskBuild()}
	span := c.hist.Span()
	r.Journal = journalInfo{Records: span.Records, LastSeq: span.LastSeq, First: span.First, Last: span.Last}
	for _, arm := range arms {
		spec := c.row.Arm(arm)
		rev := spec.Revision
		if rev == "" { // an arm named by its source: the pin records what the source pins
			rev = c.hist.Current[arm].Revision
		}
		r.Revisions = append(r.Revisions, revision{Arm: arm, Revision: rev, Variant: spec.Variant, Source: spec.Source,
			CommitSHA: commitSHA.MatchString(rev), DeterminismPatch: c.patchStatement(arm)})
	}
	r.Trace = c.traceInfo()
	r.Artifacts = c.artifactInfos()
	r.Config = c.configInfo()

	var err error
	for _, arm := range arms {
		a, err := c.armReport(arm)
		if err != nil {
			return nil, nil, err
		}
		r.Arms = append(r.Arms, a)
	}
	r.Placement = c.placement()
	for i := range r.Arms {
		if r.Arms[i].Verdict == verdict.Unstable {
			if r.Arms[i].Instability, err = c.instability(r.Arms[i], files); err != nil {
				return nil, nil, err
			}
		}
	}
	// Stage 8: the journal's inputs, the exception coverage of a byte mismatch, one decision.
	in := c.hist.Inputs(c.dir)
	if r.Semantic, in.Exceptions, err = c.semantic(r.Arms, in.Parity, files); err != nil {
		return nil, nil, err
	}
	r.Semantic.flagBroad()
	v := verdict.Decide(in)
	r.Overall, r.Semantic.Outcome, r.Coverage, r.Parity, r.Determinism = v.Overall, v.Semantic, v.Coverage, v.Parity, v.Determinism
	r.Blocked, r.ExitCode, r.Scope, r.SemanticExitCode = v.Blocked, v.ExitCode, v.Scope, v.SemanticExitCode
	r.Performance = c.performance(v.Performance)
	r.Footprint = Footprint{Outcome: v.Footprint, Result: c.perf.Footprint}
	r.Instructions, r.InstructionsFrom, r.InstructionsNote = c.instructions()
	if r.Profiler, err = engine.LoadInvestigation(c.dir); err != nil {
		return nil, nil, err
	}
	r.Fixtures = c.hist.Fixtures()
	r.Statements = c.statements(r)
	return r, files, nil
}

func (c *campaign) traceInfo() traceInfo {
	t := c.trace
	return traceInfo{Spec: fmt.Sprintf("%s[%d:%d]", t.Source, t.Offset, t.Offset+t.Count), Source: t.Source,
		Generated: strings.HasPrefix(t.Source, "generated:"), SourceSHA256: t.SourceSHA256, Offset: t.Offset,
		Count: t.Count, WindowSHA256: t.WindowSHA256, WindowBytes: t.WindowBytes, WindowFile: keptOrRemoved(c.exists(t.Window), t.Window)}
}

// patchStatement states the determinism patch (protocol stage 1.3) arm's revision was built
// with, as the campaign recorded it.
func (c *campaign) patchStatement(arm engine.Arm) string {
	p := c.hist.Patch
	if p == nil {
		return "none declared"
	}
	if c.sourceBuilt() { // kvparity's timing extension: each built arm has its own applied diff
		return c.extensionStatement(arm, p)
	}
	s := "SHA-256 " + p.SHA256 + ", applied identically to both revisions"
	switch {
	case p.Path != "" && p.Declared:
		s += fmt.Sprintf("; declared in row.toml and verified against %s", p.Source)
	case p.Path != "":
		s += fmt.Sprintf("; computed from %s", p.Source)
	default:
		s += "; declared in row.toml (the patch file was not given to kvparity)"
	}
	if p.Path != "" {
		s += "; copy " + keptOrRemoved(c.exists(p.Path), p.Path)
	}
	return s
}

func keptOrRemoved(kept bool, rel string) string {
	if kept {
		return "kept: " + rel
	}
	return "removed at cleanup (stage 9); its SHA-256 is recorded"
}

func (c *campaign) artifactInfos() []ArtifactInfo {
	out := []ArtifactInfo{}
	for _, p := range c.pins {
		a := ArtifactInfo{Arm: p.Arm, Gen: p.Gen, Current: p.Gen == c.hist.Current[p.Arm].Gen, Revision: p.Revision, Source: p.Source,
			Builtin: p.Builtin, Path: p.Path, Variant: p.Variant, Features: p.Features, SHA256: p.SHA256, Size: p.Size,
			TextSize: p.TextSize, PinnedAt: p.PinnedAt, Build: p.Build}
		if a.Features == nil {
			a.Features = []string{}
		}
		a.Stale = a.Current && c.hist.Current[p.Arm].Stale
		a.ReplayBench = c.replayBench(p.Arm, p.Gen)
		a.Copy = keptOrRemoved(c.exists(p.Path), p.Path)
		out = append(out, a)
	}
	return out
}

// replayBench counts the outputs of one artifact that passed the replay_bench check: every
// digest (engine/outputs.go refuses a canonical report without replay_bench: true) and every
// timing record that gave a sample (engine/instrument/timing.go refuses one without it).
func (c *campaign) replayBench(arm engine.Arm, gen int) replayBench {
	var rb replayBench
	for _, run := range c.hist.Runs() {
		r := run.End
		if r == nil || r.Arm != arm || max(r.Gen, 1) != gen {
			continue
		}
		switch r.Kind {
		case engine.KindRepetition:
			if r.Digest != "" {
				rb.CanonicalReports++
			}
		case engine.KindWarmup, engine.KindSample:
			if s := run.Sample; s != nil && s.Error == "" && s.Ms > 0 {
				rb.TimingRecords++
				if s.WorkVerified() {
					rb.SeededTimingRecords++
				}
			}
		}
	}
	if rb.CanonicalReports+rb.TimingRecords == 0 {
		rb.Assertion = "not established: no output of this artifact was checked"
	} else {
		rb.Assertion = fmt.Sprintf("replay_bench: true in %d canonical report(s) and %d timing record(s)", rb.CanonicalReports, rb.TimingRecords)
		switch {
		case rb.TimingRecords == 0:
		case rb.SeededTimingRecords == rb.TimingRecords:
			rb.Assertion += fmt.Sprintf("; all %d timed runs did the canonical run's work (seeded matched routing, by work fingerprint)", rb.TimingRecords)
		default:
			rb.Assertion += fmt.Sprintf("; %d of %d timed runs shown by work fingerprint to do the canonical run's work (seeded matched routing not established for the others)", rb.SeededTimingRecords, rb.TimingRecords)
		}
	}
	return rb
}

func (c *campaign) configInfo() ConfigInfo {
	row := c.row
	ci := ConfigInfo{RowSHA256: c.rowSHA, Args: row.Replay.Args, Repetitions: row.Determinism.Repetitions,
		Timeout: row.Determinism.Timeout.String(), PressureBand: row.Band(), QueueThreshold: row.ReplayArg("--router-queue-threshold"),
		Pairs: row.Perf.Pairs, Warmups: row.Perf.WarmupsPerArm, ScheduleSeed: row.Perf.ScheduleSeed, Threshold: row.Perf.Threshold,
		TimingField: row.Perf.TimingField, TimingProxy: row.Perf.TimingProxy, Exclusions: row.Canonical.Exclusions,
		Unordered: row.Canonical.Unordered, ProtocolList: slices.Equal(row.Canonical.Exclusions, engine.ProtocolExclusions),
		FootprintNote: row.Perf.FootprintExplained, RowTOML: c.rowTOML, DeterminismPatch: c.hist.Patch,
		Perturbations: append([]engine.Variation{}, row.Determinism.Perturbations...)}
	if ci.Exclusions == nil {
		ci.Exclusions = []string{}
	}
	for _, arm := range arms {
		if n := c.hist.Added[arm]; n > 0 {
			if ci.AddedReps == nil {
				ci.AddedReps = map[string]int{}
			}
			ci.AddedReps[string(arm)] = n
		}
	}
	return ci
}

func (c *campaign) armReport(arm engine.Arm) (armReport, error) {
	pin := c.hist.Current[arm]
	a := armReport{Arm: arm, Gen: c.hist.Gen(arm), Stale: pin.Stale, Repetitions: c.hist.Repetitions(arm), Digests: []string{}, Runs: []RunInfo{},
		Revision: pin.Revision, Variant: pin.Variant, SHA256: pin.SHA256}
	all, older := c.hist.Attempts(arm)
	a.OlderRuns = older
	var evidence []*report.Evidence
	done := 0
	for _, at := range all {
		ri := runInfo(at)
		if at.Latest && ri.Repetition <= a.Repetitions {
			ri.Status = statusCounted
		} else if at.End != nil {
			ri.Status = statusSuperseded
		}
		ri.FullReport = c.fullReportState(ri)
		if ri.Status == statusCounted && at.End != nil {
			done++
			if ri.Digest != "" && !slices.Contains(a.Digests, ri.Digest) {
				a.Digests = append(a.Digests, ri.Digest)
			}
			ev, err := c.evidence(at.End.Evidence)
			if err != nil {
				return a, err
			}
			if ev != nil {
				evidence = append(evidence, ev)
				if a.Evidence == nil {
					a.Evidence, a.EvidenceRun = ev, ri.Run
				}
			}
		}
		a.Runs = append(a.Runs, ri)
	}
	a.EvidenceAgree = len(evidence) > 0
	for _, ev := range evidence[min(1, len(evidence)):] {
		x, _ := json.Marshal(ev)
		y, _ := json.Marshal(evidence[0])
		if string(x) != string(y) {
			a.EvidenceAgree = false
		}
	}
	res := c.hist.ArmResult(arm)
	a.Verdict, a.Reason = res.Verdict, res.Reason
	a.Perturbed, a.Finding = append([]engine.PerturbedRun{}, res.Perturbed...), res.Finding
	a.PerturbedNotRun = res.PerturbedNotRun(c.row.Determinism.Perturbations)
	if p, ok := c.hist.Preflight(arm); ok {
		a.Preflight = &p
	}
	return a, nil
}

func runInfo(at engine.RepetitionAttempt) RunInfo {
	s := at.Start
	ri := RunInfo{Run: s.Run, Repetition: s.Index, Attempt: s.Attempt, Status: statusInterrupted, CPUs: s.CPUs, PID: s.PID, StartedAt: s.At}
	if ri.CPUs == nil {
		ri.CPUs = []int{}
	}
	if e := at.End; e != nil {
		t := e.At
		ri.EndedAt = &t
		ri.ExitCode, ri.Signal, ri.TimedOut, ri.ElapsedMs = e.ExitCode, e.Signal, e.TimedOut, e.ElapsedMs
		ri.Digest, ri.FixedPoint, ri.Error, ri.reportPath = e.Digest, e.FixedPoint, e.Error, e.ReportPath
		if len(e.CPUs) > 0 {
			ri.CPUs = e.CPUs
		}
		if e.PID != 0 {
			ri.PID = e.PID
		}
	}
	return ri
}

// fullReportState says where a repetition's full canonical report is, or why it is not there.
func (c *campaign) fullReportState(ri RunInfo) string {
	switch {
	case ri.reportPath == "":
		return "none written"
	case c.exists(ri.reportPath):
		return "kept: " + ri.reportPath
	}
	if seq, ok := c.hist.Gone[ri.Run]; ok {
		return fmt.Sprintf("deleted: it matched, its digest is recorded (journal seq %d)", seq)
	}
	return "deleted at cleanup: its digest is recorded"
}

func (c *campaign) placement() placement {
	p := placement{Node: c.host.Hostname, NUMANodes: c.host.NUMANodes}
	var cpus []int
	armCPUs := map[engine.Arm][]int{}
	for _, run := range c.hist.Runs() {
		if r := run.Start; r != nil && r.Kind == engine.KindRepetition {
			for _, cpu := range r.CPUs {
				cpus = addCPU(cpus, cpu)
				armCPUs[r.Arm] = addCPU(armCPUs[r.Arm], cpu)
			}
		}
	}
	p.Determinism = run.FormatCPUList(cpus)
	if c.perf.Result != nil {
		cpu := c.perf.Result.MeasuredCPU
		p.PerfCPU = &cpu
	}
	p.NUMA = c.numaPlacement(armCPUs, p.PerfCPU)
	if len(c.host.NUMA) > 0 {
		p.CPUNodes = map[int]int{}
		for _, cpu := range addCPU(cpus, deref(p.PerfCPU, -1)) {
			if n, ok := c.host.NodeOf(cpu); ok {
				p.CPUNodes[cpu] = n
			}
		}
	}
	p.Note = "every process is pinned to one CPU, the same CPU-set size and affinity rules for baseline and candidate; the whole row ran on this one node"
	return p
}

// numaPlacement states the NUMA node of each CPU set the row's processes ran on, from the
// per-node CPU lists in host.json.
func (c *campaign) numaPlacement(armCPUs map[engine.Arm][]int, perfCPU *int) string {
	if len(c.host.NUMA) == 0 {
		if c.host.NUMANodes <= 1 {
			return "one NUMA node: every process of both arms ran on node 0"
		}
		return fmt.Sprintf("%d NUMA nodes; host.json does not record each CPU's node (the campaign predates it), so the placement is the CPU list of every run below", c.host.NUMANodes)
	}
	var parts []string
	all := map[int]bool{}
	nodes := func(cpus []int) []int {
		var ns []int
		for _, cpu := range cpus {
			n, ok := c.host.NodeOf(cpu)
			if !ok {
				n = -1 // a CPU outside every recorded node
			}
			if !slices.Contains(ns, n) {
				ns = append(ns, n)
			}
			all[n] = true
		}
		slices.Sort(ns)
		return ns
	}
	armNodes := map[engine.Arm][]int{}
	for _, arm := range arms {
		if cpus := armCPUs[arm]; len(cpus) > 0 {
			armNodes[arm] = nodes(cpus)
			parts = append(parts, fmt.Sprintf("%s repetitions on CPUs %s (%s)", arm, run.FormatCPUList(cpus), nodeList(armNodes[arm])))
		}
	}
	if perfCPU != nil {
		parts = append(parts, fmt.Sprintf("performance samples on CPU %d (%s)", *perfCPU, nodeList(nodes([]int{*perfCPU}))))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%d NUMA node(s) recorded; no process has run yet", len(c.host.NUMA))
	}
	s := strings.Join(parts, "; ")
	switch {
	case all[-1]:
		s += "; a CPU is in no NUMA node host.json recorded: the placement is not established"
	case len(all) == 1:
		for n := range all {
			s += fmt.Sprintf(": every process of both arms ran on NUMA node %d", n)
		}
	case !slices.Equal(armNodes[engine.Baseline], armNodes[engine.Candidate]):
		s += ": baseline and candidate repetitions ran on different NUMA nodes"
	default:
		s += ": baseline and candidate repetitions ran on the same NUMA nodes"
	}
	return s
}

func nodeList(ns []int) string {
	words := make([]string, len(ns))
	for i, n := range ns {
		if n < 0 {
			words[i] = "no recorded node"
		} else {
			words[i] = fmt.Sprintf("node %d", n)
		}
	}
	return strings.Join(words, ", ")
}

// addCPU inserts cpu into the ascending set cpus (a negative cpu is no CPU).
func addCPU(cpus []int, cpu int) []int {
	if cpu < 0 || slices.Contains(cpus, cpu) {
		return cpus
	}
	cpus = append(cpus, cpu)
	slices.Sort(cpus)
	return cpus
}

func deref(p *int, none int) int {
	if p == nil {
		return none
	}
	return *p
}

// performance is the stage-7 section: the gate's outcome (as Decide gave it) with its details.
func (c *campaign) performance(o verdict.Outcome) Performance {
	row := c.row
	p := Performance{Outcome: o, Scope: c.perf.Scope, Metric: row.Perf.TimingField, Proxy: row.Perf.TimingProxy, Result: c.perf.Result}
	if p.Proxy {
		p.Metric += " (PROXY for replay_execution_ms)"
	}
	p.Sampling = "the ratios are treated as exchangeable only when the predeclared dependence battery (lag-1 autocorrelation, Ljung–Box, Mann–Kendall, runs about the median, order effect; α = 0.01 each) finds no breach; pair adjacency alone does not establish it, and the order-statistic bounds are conditional on this assumption"
	switch {
	case c.perf.Result != nil:
		p.Status = "decided"
	case o.Verdict == verdict.Blocked:
		p.Status = "blocked" // the stage ended on a block (Decide's reason says which): never "in progress"
	case c.perf.Started:
		p.Status = "in progress"
	default:
		p.Status = "not run"
	}
	return p
}
