package verdict

import (
	"fmt"
	"strings"
)

// Exceptions is how a byte mismatch between baseline and candidate stands against the
// campaign's exception records (protocol stage 5).
type Exceptions struct {
	Records   int      `json:"records"`   // valid exception records
	Differing int      `json:"differing"` // differing canonical pointers
	Uncovered int      `json:"uncovered"` // differing pointers no valid record covers
	First     []string `json:"first_uncovered,omitempty"`
	// Unchecked says why the mismatch could not be checked against the records (the kept
	// reports and the focused diff are gone); "" when it was checked.
	Unchecked string `json:"unchecked,omitempty"`
}

// Inputs are what stage 8 combines. Callers fill each from the journal and the campaign's
// files; a stage that has not decided is the zero Outcome (Undecided).
type Inputs struct {
	Baseline, Candidate Outcome // determinism per revision: STABLE, UNSTABLE, BLOCKED, Undecided
	Parity              Outcome // byte parity of the canonical digests: PASS, FAIL, BLOCKED, Undecided
	Evidence            Outcome // the stage-3 lifecycle rules over every counted repetition
	Exceptions          *Exceptions
	Performance         Outcome // the paired gate: PASS, FAIL, INCONCLUSIVE, BLOCKED, Undecided
	Footprint           Outcome
	Blocked             []string // blocks recorded since the last run started, "<stage>: <reason>"
	// SemanticBlock and PerformanceBlock are the reasons of the blocks, among Blocked, of the
	// stages that decide those verdicts (determinism and parity; perf), "" for none: a stage
	// that blocked before it decided is BLOCKED with its reason, never UNDECIDED beside an
	// overall BLOCKED.
	SemanticBlock, PerformanceBlock string
	// SemanticOnly limits the overall verdict to the semantic one (kvparity run --stage
	// determinism): performance and footprint are reported but not asked for.
	SemanticOnly bool
}

// Arms is one Outcome per revision.
type Arms struct {
	Baseline  Outcome `json:"baseline"`
	Candidate Outcome `json:"candidate"`
}

// Verdicts is the campaign's decided state: every surface prints these words and exits with
// ExitCode.
type Verdicts struct {
	Overall     Outcome  `json:"overall"`
	Semantic    Outcome  `json:"semantic"`
	Performance Outcome  `json:"performance"`
	Footprint   Outcome  `json:"footprint"`
	Coverage    Outcome  `json:"coverage"`
	Parity      Outcome  `json:"parity"`
	Determinism Arms     `json:"determinism"`
	Blocked     []string `json:"blocked"`
	ExitCode    int      `json:"exit_code"`
	// Scope says what Overall and ExitCode are over: ScopeAll, or ScopeSemantic for kvparity
	// run --stage determinism. SemanticExitCode is that run's exit status whatever the scope,
	// so a stage-scoped run and the report never seem to contradict each other.
	Scope            string `json:"scope"`
	SemanticExitCode int    `json:"semantic_exit_code"`
}

// The scopes of an overall verdict.
const (
	ScopeAll      = "all"      // semantic, performance and footprint (run --stage all or perf, the report)
	ScopeSemantic = "semantic" // the semantic verdict alone (run --stage determinism)
)

// Decide applies stage 8's rules: the semantic verdict from stability, byte parity, lifecycle
// evidence and exception coverage; performance and footprint as measured; overall the worst
// of the three, PASS_WITH_SEMANTIC_EXCEPTIONS counting as a pass.
func Decide(in Inputs) Verdicts {
	v := Verdicts{
		Semantic:    blockedOr(Semantic(in), in.SemanticBlock),
		Performance: blockedOr(in.Performance.norm(), in.PerformanceBlock),
		Footprint:   in.Footprint.norm(),
		Coverage:    in.Evidence.norm(),
		Parity:      in.Parity.norm(),
		Determinism: Arms{Baseline: in.Baseline.norm(), Candidate: in.Candidate.norm()},
		Blocked:     append([]string{}, in.Blocked...),
	}
	if !v.Performance.Verdict.Decided() && v.Performance.Reason == "" {
		v.Performance.Reason = "the performance stage has not decided on these artifacts"
		for _, a := range []struct {
			name string
			o    Outcome
		}{{"baseline", v.Determinism.Baseline}, {"candidate", v.Determinism.Candidate}} {
			if a.o.Verdict != Stable {
				v.Performance.Reason = fmt.Sprintf("not run: %s is %s, and performance is only measured once both revisions are STABLE", a.name, a.o.Verdict)
				break
			}
		}
	}
	if !v.Footprint.Verdict.Decided() && v.Footprint.Reason == "" {
		v.Footprint.Reason = "the footprint gate runs at the start of the performance stage"
	}
	v.combine(in.SemanticOnly)
	return v
}

// semanticExitCode is the exit status of a run asking for the semantic verdict alone.
func (v Verdicts) semanticExitCode() int {
	v.combine(true)
	return v.ExitCode
}

// EquivalentWork says how the verdicts show both arms did the same semantic work, the
// precondition of protocol stage 7's profiling: a semantic PASS (byte-identical canonical
// reports) or PASS_WITH_SEMANTIC_EXCEPTIONS (every difference explained by a record).
func (v Verdicts) EquivalentWork() (string, bool) {
	switch v.Semantic.Verdict {
	case Pass:
		return "equivalent semantic work confirmed: " + v.Semantic.Reason, true
	case PassWithSemanticExceptions:
		return "equivalent semantic work confirmed, with exception records explaining every difference: " + v.Semantic.Reason, true
	}
	return "", false
}

// SemanticOnly is v with its overall verdict and exit code over the semantic verdict alone
// (and any block): what `kvparity run --stage determinism` was asked for.
func (v Verdicts) SemanticOnly() Verdicts {
	v.combine(true)
	return v
}

// combine sets Overall and ExitCode: the worst of the semantic, performance and footprint
// verdicts (only the semantic one when semanticOnly), then any recorded block.
func (v *Verdicts) combine(semanticOnly bool) {
	parts := []struct {
		name string
		o    Outcome
	}{{"semantic", v.Semantic}}
	if !semanticOnly {
		parts = append(parts, struct {
			name string
			o    Outcome
		}{"performance", v.Performance}, struct {
			name string
			o    Outcome
		}{"footprint", v.Footprint})
	}
	worst := -1
	for _, p := range parts {
		if r := severity(p.o.Verdict); r > worst {
			worst = r
			v.Overall = Outcome{Verdict: overallWord(p.o.Verdict), Reason: p.name + ": " + p.o.Reason}
		}
	}
	if len(v.Blocked) > 0 && severity(v.Overall.Verdict) < severity(Blocked) {
		v.Overall = Outcome{Verdict: Blocked, Reason: "blocked: " + strings.Join(v.Blocked, "; ")}
	}
	if v.Overall.Verdict.Passes() {
		v.Overall.Reason = passReason(*v, semanticOnly)
	}
	v.ExitCode = ExitCode(v.Overall.Verdict)
	v.Scope = ScopeAll
	if semanticOnly {
		v.Scope = ScopeSemantic
		v.SemanticExitCode = v.ExitCode
	} else {
		v.SemanticExitCode = v.semanticExitCode()
	}
}

func passReason(v Verdicts, semanticOnly bool) string {
	s := "semantic " + v.Semantic.Verdict.String()
	if !semanticOnly {
		s += ", performance " + v.Performance.Verdict.String() + ", footprint " + v.Footprint.Verdict.String()
	}
	return s
}

// severity orders words for "the worst of": a failure, then a block, then an inconclusive or
// undecided stage, then an explained pass, then a plain pass.
func severity(w Word) int {
	switch w.orUndecided() {
	case Pass, Stable:
		return 0
	case PassWithSemanticExceptions:
		return 1
	case Undecided:
		return 2
	case Inconclusive:
		return 3
	case Blocked:
		return 4
	}
	return 5 // FAIL, UNSTABLE
}

// overallWord is the overall word a component's word stands for.
func overallWord(w Word) Word {
	switch w.orUndecided() {
	case Unstable:
		return Fail
	case Stable:
		return Pass
	}
	return w.orUndecided()
}

func (o Outcome) norm() Outcome { o.Verdict = o.Verdict.orUndecided(); return o }

// blockedOr is o, or BLOCKED with the block's reason when o is undecided and its stage blocked.
func blockedOr(o Outcome, block string) Outcome {
	if o.Verdict.Decided() || block == "" {
		return o
	}
	return Of(Blocked, "%s", block)
}

// Semantic decides the one semantic result of stage 8. Exception records never waive an
// unstable revision or missing lifecycle evidence.
func Semantic(in Inputs) Outcome {
	for _, a := range []struct {
		name string
		o    Outcome
	}{{"baseline", in.Baseline.norm()}, {"candidate", in.Candidate.norm()}} {
		switch a.o.Verdict {
		case Stable:
		case Unstable:
			return Of(Fail, "%s is UNSTABLE (%s): an unstable revision fails the row, and exception records never waive leaked entropy", a.name, a.o.Reason)
		case Blocked:
			return Of(Blocked, "%s is blocked: %s", a.name, a.o.Reason)
		default:
			why := a.o.Reason
			if why == "" {
				why = "no repetition has finished"
			}
			return Of(Undecided, "the determinism stage of %s is not finished (%s)", a.name, why)
		}
	}
	parity := in.Parity.norm()
	missing := ""
	if ev := in.Evidence.norm(); ev.Verdict != Pass {
		why := ev.Reason
		if why == "" {
			why = "no repetition recorded lifecycle evidence"
		}
		missing = "missing lifecycle evidence: " + why
	}
	switch parity.Verdict {
	case Undecided:
		return Of(Undecided, "both revisions are STABLE but byte parity is not decided yet")
	case Pass:
		if missing != "" {
			return Of(Fail, "canonical reports are byte-identical, but %s", missing)
		}
		return Of(Pass, "all canonical outputs match byte for byte (%s), and every lifecycle rule holds", parity.Reason)
	case Fail:
	default:
		return Of(parity.Verdict, "byte parity is %s: %s", parity.Verdict, parity.Reason)
	}
	// The protocol's order: an unexplained difference (stages 4 and 5) is named first; missing
	// lifecycle evidence follows it, and fails the row alone only once every difference is
	// explained (exception records never waive it).
	also := ""
	if missing != "" {
		also = "; also " + missing
	}
	x := in.Exceptions
	switch {
	case x == nil || x.Unchecked != "":
		why := "the mismatch was not checked against exception records"
		if x != nil {
			why = x.Unchecked
		}
		return Of(Fail, "canonical reports differ (%s), and %s%s", parity.Reason, why, also)
	case x.Differing == 0:
		return Of(Fail, "the digests differ but the structural diff finds no differing pointer: no exception record can cover that%s", also)
	case x.Uncovered == 0 && missing != "":
		return Of(Fail, "%d differing pointers, every one covered by the %d exception record(s), but %s", x.Differing, x.Records, missing)
	case x.Uncovered == 0:
		return Of(PassWithSemanticExceptions, "%d differing pointers, every one covered by the %d exception record(s); each names its regression test", x.Differing, x.Records)
	}
	first := x.First[:min(3, len(x.First))]
	return Of(Fail, "%d of %d differing pointers are covered by no exception record (first: %s): an unexplained mismatch fails the row%s",
		x.Uncovered, x.Differing, strings.Join(first, ", "), also)
}
