package campaignreport

import (
	"fmt"
	"path/filepath"
	"slices"

	"kvparity/engine"

	"kvparity/report"
	"kvparity/verdict"
)

// protocolCount is the protocol's authoritative window size (stage 3).
const protocolCount = 5000

// protocolPairs is the protocol's measured series length (stage 7).
const protocolPairs = 60

// statements lists what this campaign did not establish, in plain words, so the verdicts above
// are never read as more than they are (stage 8: "skipped or unsupported coverage without
// overstating the result").
// goldenWindowSHA256 is the slice Dynamo's golden points were qualified on (spec §7).
const goldenWindowSHA256 = "3892ae19ae480b643155f0c6b9d798591cbe2e73bec6a0fa5ae3d3bc0332fb8a"

func (c *campaign) statements(r *Report) []statement {
	var out []statement
	add := func(topic, format string, a ...any) {
		out = append(out, statement{Topic: topic, Text: fmt.Sprintf(format, a...), md: mdf(format, a...)})
	}
	var ev *report.Evidence
	for _, a := range r.Arms {
		if a.Evidence != nil {
			ev = a.Evidence
			break
		}
	}
	builtin := false
	for _, a := range r.Artifacts {
		builtin = builtin || a.Builtin
	}
	if builtin {
		add("artifacts", "at least one arm is the embedded engine (`kvparity replay`, a built-in stand-in for a code revision), not a Dynamo `offline_replay_bench` build: this report validates the workbench path, not a Dynamo revision")
	}
	for _, rv := range r.Revisions {
		if !rv.CommitSHA {
			add("revisions", "the %s revision %q is not an immutable commit SHA", rv.Arm, rv.Revision)
		}
	}
	for _, a := range r.Arms {
		if a.Stale {
			add("stale artifact", "the %s source binary changed after generation %d was pinned: these results are about the pinned copy, not the rebuilt binary; rerun the determinism stage to pin and judge the new one", a.Arm, a.Gen)
		}
	}
	switch p := r.Config.DeterminismPatch; {
	case p == nil:
		add("determinism patch", "no temporary determinism patch was declared for either revision, so no patch checksum is recorded")
	case c.sourceBuilt():
		add("determinism patch", "the source-built revisions carry kvparity's timing extension (SHA-256 %s), their determinism patch: the verdicts are about the source code with it applied, which adds replay_execution_ms around the replay loop and changes no report field", p.SHA256)
	default:
		add("determinism patch", "the verdicts are about both revisions with the temporary determinism patch (SHA-256 %s) applied, not about the revisions as committed", p.SHA256)
	}
	if r.Trace.Generated {
		add("trace", "the trace is a generated conversation trace (%s), not the Mooncake window the protocol qualifies", r.Trace.Source)
	}
	if r.Trace.Count < protocolCount {
		add("trace", "the window holds %d requests, not the protocol's %d-request long corpus: this is not an authoritative 5,000-request campaign", r.Trace.Count, protocolCount)
	}
	if !r.Trace.Generated && r.Trace.Count >= protocolCount && r.Trace.WindowSHA256 != goldenWindowSHA256 {
		add("golden points", "the window is %s (SHA-256 %s), not the golden points' (rows 0–4,999 of Mooncake's 23,608-row tool-agent trace, slice SHA-256 %s…): their digests and capacities do not apply; this row's capacity is qualified on its own window", r.Trace.Spec, r.Trace.WindowSHA256, goldenWindowSHA256[:8])
	}
	if r.Config.QueueThreshold == "" {
		immediate, queued := 0, 0
		if ev != nil {
			for _, p := range ev.Pools {
				immediate += p.Immediate
				queued += p.Queued
			}
		}
		counted := fmt.Sprintf("%d immediate, %d queued", immediate, queued)
		if ev != nil && ev.Unrecorded != "" {
			counted = "the reports record no route decisions"
		}
		add("queueing", "router queueing was not enabled (no --router-queue-threshold): every route decision is immediate (%s); queued placement was not exercised and is not claimed, and scheduler waiting is not counted as queueing", counted)
	} else {
		add("queueing", "router queueing was enabled with threshold %s", r.Config.QueueThreshold)
	}
	if ev != nil {
		switch ev.Topology {
		case "aggregated":
			add("topology", "this row is aggregated: disaggregated prefill/decode handoff is not exercised here")
		default:
			add("topology", "this row is %s; the aggregated rows of the matrix are separate campaigns", ev.Topology)
		}
		if ev.Unrecorded != "" {
			add("lifecycle", "%s, so no routing, queueing or pressure path is claimed", ev.Unrecorded)
		}
		if ev.Engine != "trtllm" {
			add("engines", "TensorRT-LLM was not run (it is optional smoke coverage, never a substitute for the vLLM or SGLang semantics); this row covers %s only", ev.Engine)
		}
	} else {
		add("lifecycle", "no lifecycle evidence was recorded, so no lifecycle path is claimed")
	}
	add("production routing", "performance is %s; production-routing timing needs a separate build without replay-bench and is out of scope", r.Performance.Scope)
	if r.Config.TimingProxy {
		add("timing field", "the timing field %s is a declared PROXY for replay_execution_ms, not the protocol's timing boundary", r.Config.TimingField)
	}
	if res := r.Performance.Result; res != nil {
		if n := len(res.Pairs); n < protocolPairs {
			add("performance", "%d measured pairs, not the protocol's %d", n, protocolPairs)
		}
		if res.Telemetry != "available" {
			add("telemetry", "no frequency or thermal telemetry was available; only the dependence battery judged the sampling assumption")
		}
	} else {
		add("performance", "no performance result: %s", r.Performance.Reason)
	}
	switch {
	case r.Profiler != nil:
	case r.Performance.Verdict == verdict.Fail:
		add("profiling", "the performance gate failed and kvparity records no profiler findings: the regression still has to be attributed (kvparity investigate) before any waiver")
	default:
		add("profiling", "no regression was investigated, so there are no profiler findings")
	}
	out = append(out, c.fixturesStatement(r))
	add("excluded by the protocol", "round-robin routing and the same-timestamp event-only progress scenario are outside this campaign; KVBM G2–G4 replay was removed and is not emulated")
	return out
}

// sourceBuilt says the campaign built an arm from its source: its determinism patch is then
// kvparity's timing extension (a row with source arms may declare no patch of its own).
func (c *campaign) sourceBuilt() bool {
	return slices.ContainsFunc(arms, func(a engine.Arm) bool { return c.hist.Current[a].Build != nil })
}

// extensionStatement states the timing extension for one arm: the extension's checksum (the
// same for every built arm) and this arm's own applied diff, kept in the campaign under the
// arm's name.
func (c *campaign) extensionStatement(arm engine.Arm, p *engine.DeterminismPatch) string {
	b := c.hist.Current[arm].Build
	if b == nil {
		return fmt.Sprintf("none: a given binary (kvparity's timing extension, SHA-256 %s, is applied only to the arms it builds from source)", p.SHA256)
	}
	rel := engine.ExtensionPatchCopy(arm)
	return fmt.Sprintf("SHA-256 %s, kvparity's timing extension, applied identically to every source-built revision; this revision's applied diff SHA-256 %s, copy %s",
		p.SHA256, b.AppliedPatchSHA256, keptOrRemoved(c.exists(rel), filepath.ToSlash(rel)))
}
