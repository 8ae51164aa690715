package verdict

import (
	"encoding/json"
	"strings"
	"testing"
)

var (
	stable   = Of(Stable, "one digest")
	pass     = Of(Pass, "ok")
	evidence = Of(Pass, "every rule holds")
)

func TestSemanticRules(t *testing.T) {
	cases := []struct {
		name string
		in   Inputs
		want Word
		why  string
	}{
		{"identical", Inputs{Baseline: stable, Candidate: stable, Parity: pass, Evidence: evidence}, Pass, "byte for byte"},
		{"unstable fails, exceptions never waive it", Inputs{Baseline: stable, Candidate: Of(Unstable, "2 digests"), Parity: Of(Blocked, "x"),
			Exceptions: &Exceptions{Records: 1, Differing: 3}}, Fail, "candidate is UNSTABLE"},
		{"blocked arm", Inputs{Baseline: Of(Blocked, "exited 1"), Candidate: stable}, Blocked, "baseline is blocked"},
		{"unfinished arm", Inputs{Baseline: stable}, Undecided, "candidate is not finished"},
		{"parity pending", Inputs{Baseline: stable, Candidate: stable}, Undecided, "byte parity is not decided"},
		{"identical but evidence missing", Inputs{Baseline: stable, Candidate: stable, Parity: pass, Evidence: Of(Fail, "no pressure")}, Fail, "missing lifecycle evidence"},
		{"differ, all covered", Inputs{Baseline: stable, Candidate: stable, Parity: Of(Fail, "differ"), Evidence: evidence,
			Exceptions: &Exceptions{Records: 2, Differing: 10}}, PassWithSemanticExceptions, "every one covered"},
		{"differ, covered, evidence missing", Inputs{Baseline: stable, Candidate: stable, Parity: Of(Fail, "differ"), Evidence: Of(Fail, "band"),
			Exceptions: &Exceptions{Records: 2, Differing: 10}}, Fail, "missing lifecycle evidence: band"},
		{"differ, some uncovered", Inputs{Baseline: stable, Candidate: stable, Parity: Of(Fail, "differ"), Evidence: evidence,
			Exceptions: &Exceptions{Records: 1, Differing: 10, Uncovered: 4, First: []string{"/a", "/b", "/c", "/d"}}}, Fail, "4 of 10 differing pointers are covered by no exception record (first: /a, /b, /c)"},
		{"differ, unchecked", Inputs{Baseline: stable, Candidate: stable, Parity: Of(Fail, "differ"), Evidence: evidence,
			Exceptions: &Exceptions{Unchecked: "the kept reports are gone"}}, Fail, "the kept reports are gone"},
		{"differ, no records looked at", Inputs{Baseline: stable, Candidate: stable, Parity: Of(Fail, "differ"), Evidence: evidence}, Fail, "not checked"},
	}
	for _, c := range cases {
		got := Semantic(c.in)
		if got.Verdict != c.want || !strings.Contains(got.Reason, c.why) {
			t.Errorf("%s: got %s (%s), want %s containing %q", c.name, got.Verdict, got.Reason, c.want, c.why)
		}
	}
}

func TestDecideOverallAndExit(t *testing.T) {
	ok := Inputs{Baseline: stable, Candidate: stable, Parity: pass, Evidence: evidence, Performance: Of(Pass, "upper ≤ 1.05"), Footprint: Of(Pass, "within 5%")}
	cases := []struct {
		name   string
		mod    func(*Inputs)
		want   Word
		exit   int
		reason string
	}{
		{"all pass", func(*Inputs) {}, Pass, 0, "semantic PASS, performance PASS, footprint PASS"},
		{"explained pass exits 0", func(in *Inputs) {
			in.Parity = Of(Fail, "differ")
			in.Exceptions = &Exceptions{Records: 1, Differing: 3}
		}, PassWithSemanticExceptions, 0, "semantic PASS_WITH_SEMANTIC_EXCEPTIONS"},
		{"footprint fail exits 1", func(in *Inputs) { in.Footprint = Of(Fail, "+9%") }, Fail, 1, "footprint: +9%"},
		{"perf fail exits 1", func(in *Inputs) { in.Performance = Of(Fail, "lower > 1.05") }, Fail, 1, "performance: lower"},
		{"perf inconclusive exits 2", func(in *Inputs) { in.Performance = Of(Inconclusive, "straddle") }, Inconclusive, 2, "performance: straddle"},
		{"perf not run exits 2", func(in *Inputs) { in.Performance, in.Footprint = Outcome{}, Outcome{} }, Undecided, 2, "performance: the performance stage has not decided"},
		{"a fail beats a block", func(in *Inputs) { in.Performance = Of(Blocked, "x"); in.Footprint = Of(Fail, "y") }, Fail, 1, "footprint"},
		{"a recorded block", func(in *Inputs) { in.Blocked = []string{"perf: timing field missing"} }, Blocked, 2, "timing field missing"},
		{"unstable is a FAIL overall", func(in *Inputs) { in.Candidate = Of(Unstable, "2 digests") }, Fail, 1, "semantic: candidate is UNSTABLE"},
		{"semantic only ignores perf", func(in *Inputs) { in.SemanticOnly = true; in.Performance = Outcome{} }, Pass, 0, "semantic PASS"},
	}
	for _, c := range cases {
		in := ok
		c.mod(&in)
		v := Decide(in)
		if v.Overall.Verdict != c.want || v.ExitCode != c.exit || !strings.Contains(v.Overall.Reason, c.reason) {
			t.Errorf("%s: overall %s exit %d (%s); want %s exit %d containing %q", c.name, v.Overall.Verdict, v.ExitCode, v.Overall.Reason, c.want, c.exit, c.reason)
		}
	}
}

func TestPerfReasonNamesRefusal(t *testing.T) {
	v := Decide(Inputs{Baseline: stable, Candidate: Of(Unstable, "x")})
	if !strings.Contains(v.Performance.Reason, "candidate is UNSTABLE") {
		t.Fatalf("perf reason %q", v.Performance.Reason)
	}
}

func TestWordsRoundTrip(t *testing.T) {
	var zero Word
	b, _ := json.Marshal(struct{ V Word }{zero})
	if string(b) != `{"V":"UNDECIDED"}` {
		t.Fatalf("zero word marshals as %s", b)
	}
	var w struct{ V Word }
	if err := json.Unmarshal([]byte(`{"V":"PASS_WITH_SEMANTIC_EXCEPTIONS"}`), &w); err != nil || w.V != PassWithSemanticExceptions {
		t.Fatalf("%v %v", w, err)
	}
	if err := json.Unmarshal([]byte(`{"V":"NOT RUN"}`), &w); err == nil {
		t.Fatal("a word outside the vocabulary was accepted")
	}
	for w, tone := range map[Word]Tone{Pass: ToneGood, Stable: ToneGood, PassWithSemanticExceptions: ToneNote, Fail: ToneBad,
		Unstable: ToneBad, Inconclusive: ToneWarn, Blocked: ToneBad, "": TonePending} {
		if w.Tone() != tone {
			t.Errorf("%s tone %d, want %d", w, w.Tone(), tone)
		}
	}
	for w, code := range map[Word]int{Pass: 0, PassWithSemanticExceptions: 0, Fail: 1, Unstable: 1, Inconclusive: 2, Blocked: 2, Undecided: 2} {
		if ExitCode(w) != code {
			t.Errorf("ExitCode(%s) = %d, want %d", w, ExitCode(w), code)
		}
	}
}

// Stage 7 profiles only equivalent semantic work: a semantic pass, with or without exception
// records; anything else (FAIL, UNDECIDED, the zero value) is refused.
func TestEquivalentWork(t *testing.T) {
	for w, want := range map[Word]bool{Pass: true, PassWithSemanticExceptions: true, Fail: false, Undecided: false, Blocked: false} {
		v := Verdicts{Semantic: Of(w, "because")}
		s, ok := v.EquivalentWork()
		if ok != want || ok && !strings.HasSuffix(s, ": because") {
			t.Errorf("%s: %q %v, want %v", w, s, ok, want)
		}
	}
	if _, ok := (Verdicts{}).EquivalentWork(); ok {
		t.Error("an unassessed campaign is not equivalent work")
	}
}

// Issue 25, "stage-scoped runs": a determinism-only run and the full verdicts of the same
// campaign each say their scope and carry the other's exit status, so `run --stage
// determinism` exiting 0 and report.json's overall UNDECIDED (exit 2) read as one state.
func TestScopeAndSemanticExitCode(t *testing.T) {
	in := Inputs{Baseline: stable, Candidate: stable, Parity: Of(Fail, "differ"), Evidence: evidence,
		Exceptions: &Exceptions{Records: 1, Differing: 3}} // explained; perf not run
	all := Decide(in)
	if all.Scope != ScopeAll || all.Overall.Verdict != Undecided || all.ExitCode != ExitInconclusive || all.SemanticExitCode != ExitPass {
		t.Errorf("full verdicts: scope %q overall %s exit %d semantic exit %d; want all, UNDECIDED, 2, 0", all.Scope, all.Overall.Verdict, all.ExitCode, all.SemanticExitCode)
	}
	sem := all.SemanticOnly()
	if sem.Scope != ScopeSemantic || sem.Overall.Verdict != PassWithSemanticExceptions || sem.ExitCode != ExitPass || sem.SemanticExitCode != ExitPass {
		t.Errorf("semantic only: scope %q overall %s exit %d semantic exit %d; want semantic, PASS_WITH_SEMANTIC_EXCEPTIONS, 0, 0", sem.Scope, sem.Overall.Verdict, sem.ExitCode, sem.SemanticExitCode)
	}
	in.SemanticOnly = true
	if d := Decide(in); d.Scope != ScopeSemantic || d.ExitCode != sem.ExitCode {
		t.Errorf("Decide with SemanticOnly: scope %q exit %d", d.Scope, d.ExitCode)
	}
}

// Issue 44, item A: a candidate that both differs and breaks a lifecycle rule fails for the
// unexplained differences first (the protocol's order: parity and exception coverage, then
// lifecycle evidence), the broken rule named after them; once every difference is covered,
// the missing evidence alone fails the row.
func TestSemanticNamesDifferencesBeforeEvidence(t *testing.T) {
	band := Of(Fail, "candidate pressure band: 4 preemptions, band 1–3 assumed")
	cases := []struct {
		name  string
		x     *Exceptions
		first string
	}{
		{"uncovered", &Exceptions{Records: 0, Differing: 11503, Uncovered: 11503, First: []string{"/per_request/24/routing_history/0/logical_worker_id"}},
			"11503 of 11503 differing pointers are covered by no exception record"},
		{"unchecked", nil, "canonical reports differ (digests differ), and the mismatch was not checked"},
		{"no pointer", &Exceptions{Differing: 0}, "the digests differ but the structural diff finds no differing pointer"},
	}
	for _, c := range cases {
		got := Semantic(Inputs{Baseline: stable, Candidate: stable, Parity: Of(Fail, "digests differ"), Evidence: band, Exceptions: c.x})
		if got.Verdict != Fail || !strings.HasPrefix(got.Reason, c.first) {
			t.Errorf("%s: got %s (%s), want FAIL starting %q", c.name, got.Verdict, got.Reason, c.first)
		}
		if !strings.Contains(got.Reason, "; also missing lifecycle evidence: candidate pressure band") {
			t.Errorf("%s: the broken rule is not named after the differences: %s", c.name, got.Reason)
		}
	}
}

// A stage that blocked before it decided is BLOCKED with its reason, on the verdict it
// decides and overall: never UNDECIDED beside an overall BLOCKED (issue 40, item 4). A stage
// that decided keeps its word.
func TestBlockedStageIsBlocked(t *testing.T) {
	in := Inputs{Baseline: stable, Candidate: stable, Parity: pass, Evidence: evidence,
		Performance: Of(Undecided, "0 of 60 pairs recorded"), Blocked: []string{"perf: checksums"}, PerformanceBlock: "the perf stage is blocked: checksums"}
	v := Decide(in)
	if v.Performance.Verdict != Blocked || v.Performance.Reason != "the perf stage is blocked: checksums" || v.Overall.Verdict != Blocked || v.ExitCode != ExitCode(Blocked) {
		t.Errorf("perf blocked before a result: performance %+v overall %+v exit %d", v.Performance, v.Overall, v.ExitCode)
	}
	in = Inputs{Baseline: Of(Undecided, "1 of 2"), Candidate: stable, Blocked: []string{"determinism: build"}, SemanticBlock: "the determinism stage is blocked: build"}
	if v := Decide(in); v.Semantic.Verdict != Blocked || !strings.Contains(v.Semantic.Reason, "build") || v.Overall.Verdict != Blocked {
		t.Errorf("determinism blocked before a verdict: semantic %+v overall %+v", v.Semantic, v.Overall)
	}
	in = Inputs{Baseline: stable, Candidate: stable, Parity: pass, Evidence: evidence, Performance: Of(Fail, "slower"), PerformanceBlock: "x"}
	if v := Decide(in); v.Performance.Verdict != Fail {
		t.Errorf("a decided stage keeps its word: %+v", v.Performance)
	}
}
