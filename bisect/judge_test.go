package bisect

import (
	"errors"
	"strings"
	"testing"

	"kvparity/engine/instrument"
	"kvparity/verdict"
)

// Each judge reads the probe's verdicts as stage 8 decided them; what is not decided is
// skipped, never guessed.
func TestBisectJudges(t *testing.T) {
	stable := verdict.Of(verdict.Stable, "2 repetitions, one digest")
	v := func(cand verdict.Outcome, parity, semantic, perf verdict.Outcome) verdict.Verdicts {
		return verdict.Verdicts{Determinism: verdict.Arms{Baseline: stable, Candidate: cand}, Parity: parity, Semantic: semantic, Performance: perf}
	}
	pass, fail := verdict.Of(verdict.Pass, "identical"), verdict.Of(verdict.Fail, "differ")
	none := verdict.Outcome{}
	for _, c := range []struct {
		judge Judge
		v     verdict.Verdicts
		want  Outcome
		says  string
	}{
		{JudgeSemantic, v(stable, pass, pass, none), Good, "equals the good commit's"},
		{JudgeSemantic, v(stable, fail, verdict.Of(verdict.Fail, "1 of 1 differing pointers are covered by no exception record"), none), Bad, "covered by no exception record"},
		{JudgeSemantic, v(stable, fail, verdict.Of(verdict.PassWithSemanticExceptions, "2 differing pointers, every one covered"), none), Good, "exception records explain every difference"},
		{JudgeSemantic, v(verdict.Of(verdict.Unstable, "2 digests"), fail, fail, none), Skip, "needs a STABLE arm"},
		{JudgeSemantic, v(verdict.Of(verdict.Blocked, "the replay failed"), none, none, none), Skip, "the replay failed"},
		{JudgeSemantic, verdict.Verdicts{Determinism: verdict.Arms{Baseline: verdict.Of(verdict.Unstable, "x"), Candidate: stable}}, Skip, "the good commit is UNSTABLE"},
		{JudgeDeterminism, v(verdict.Of(verdict.Unstable, "2 digests over 4 repetitions"), none, none, none), Bad, "UNSTABLE: 2 digests"},
		{JudgeDeterminism, v(stable, fail, fail, none), Good, "STABLE"},
		{JudgeDeterminism, v(none, none, none, none), Skip, "UNDECIDED"},
		{JudgePerf, v(stable, pass, pass, verdict.Of(verdict.Fail, "12% slower")), Bad, "12% slower"},
		{JudgePerf, v(stable, pass, pass, verdict.Of(verdict.Pass, "within 2%")), Good, "within 2%"},
		{JudgePerf, v(stable, pass, pass, verdict.Of(verdict.Inconclusive, "bounds straddle")), Skip, "INCONCLUSIVE (bounds straddle): never guessed"},
		{JudgePerf, v(stable, pass, pass, verdict.Of(verdict.Blocked, "load")), Skip, "BLOCKED"},
	} {
		got, why := judge(c.judge, c.v)
		if got != c.want || !strings.Contains(why, c.says) {
			t.Errorf("%s judge of %+v: %s (%s), want %s saying %q", c.judge, c.v.Determinism.Candidate, got, why, c.want, c.says)
		}
	}
}

// The search narrows between the last good and the first bad commit, probing around skipped
// ones, and stops when only skipped commits are left between them.
func TestBisectSearchAroundSkippedCommits(t *testing.T) {
	commits := []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"}
	judged := map[string]Step{"c8": {Outcome: Bad}}
	if got := pick(bounds(commits, judged)); got != 3 {
		t.Fatalf("first pick %d, want 3 (c4, the middle)", got)
	}
	judged["c4"] = Step{Outcome: Skip}
	if got := pick(bounds(commits, judged)); got != 2 {
		t.Fatalf("with c4 skipped: pick %d, want 2 (c3, next to it)", got)
	}
	judged["c3"], judged["c5"], judged["c6"] = Step{Outcome: Good}, Step{Outcome: Skip}, Step{Outcome: Bad}
	lo, hi, skipped := bounds(commits, judged)
	if lo != 2 || hi != 5 || !skipped[4] || skipped[3] != true {
		t.Errorf("bounds %d %d %v, want c3 good, c6 first bad, c4 and c5 skipped between", lo, hi, skipped)
	}
	if got := pick(lo, hi, skipped); got != -1 {
		t.Errorf("pick %d with only skipped commits between, want none", got)
	}
}

// A failed build's reason is the compiler's error, not cargo's progress before it.
func TestBisectBuildErrorIsTheCompilersError(t *testing.T) {
	err := errors.New("candidate arm (git:/d@abc): building git:/d@abc: cargo build --release: exit status 101\n" +
		"   Locking 1 package to latest Rust 1.95.0 compatible version\n   Compiling dynamo-kv-router v1.5.1 (/x/lib/kv-router)\n" +
		"error[E0308]: mismatched types\n  --> lib/kv-router/src/lib.rs:94:38")
	got := buildError(err)
	if want := "error[E0308]: mismatched types · --> lib/kv-router/src/lib.rs:94:38 (exit status 101)"; got != want {
		t.Errorf("buildError: %q, want %q", got, want)
	}
	if stopped(err) || !stopped(errors.New("candidate arm (x): building x: cargo build: signal: terminated\n")) {
		t.Error("stopped: a compiler error is no signal, a terminated cargo is")
	}
}

// The range the bisect view draws: where the first bad commit can still be, and how many
// probes the search needs at most.
func TestRangeOf(t *testing.T) {
	commits := []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"}
	step := func(o Outcome) Step { return Step{Outcome: o} }
	for _, c := range []struct {
		judged map[string]Step
		want   Range
	}{
		{map[string]Step{}, Range{-1, -1, 1}},                                                 // the bad ref first
		{map[string]Step{"c8": step(Good)}, Range{7, -1, 0}},                                  // not reproduced
		{map[string]Step{"c8": step(Skip)}, Range{-1, -1, 0}},                                 // undecided
		{map[string]Step{"c8": step(Bad)}, Range{-1, 7, 3}},                                   // 7 untried: 3 probes
		{map[string]Step{"c8": step(Bad), "c4": step(Skip)}, Range{-1, 7, 3}},                 // 6 untried
		{map[string]Step{"c8": step(Bad), "c4": step(Good)}, Range{3, 7, 2}},                  // 3 untried
		{map[string]Step{"c8": step(Bad), "c5": step(Good), "c6": step(Bad)}, Range{4, 5, 0}}, // found
	} {
		if got := rangeOf(commits, c.judged); got != c.want {
			t.Errorf("%v: %+v, want %+v", c.judged, got, c.want)
		}
	}
}

// The instruction judge reads the counted ratio against the row's threshold; a probe that was
// not counted is skipped, never guessed.
func TestInstructionJudge(t *testing.T) {
	slower := instrument.DecideInstructions("valgrind-3.19.0", nil, []uint64{1000}, []uint64{1100}, 0)
	same := instrument.DecideInstructions("valgrind-3.19.0", nil, []uint64{1000}, []uint64{1001}, 0)
	for _, c := range []struct {
		r       *instrument.InstructionResult
		failure string
		v       verdict.Verdicts
		want    Outcome
		says    string
	}{
		{&slower, "", verdict.Verdicts{}, Bad, "10.00% more instructions than the good commit's (ratio 1.1000 > 1.03)"},
		{&same, "", verdict.Verdicts{}, Good, "ratio 1.0010 ≤ 1.03"},
		{nil, "instructions/b1-c1/candidate-01 (candidate): exited with status 1", verdict.Verdicts{}, Skip, "no instruction count was recorded (instructions/b1-c1/candidate-01 (candidate): exited with status 1): not judged"},
		{nil, "", verdict.Verdicts{Blocked: []string{"instructions: the artifact changed"}}, Skip, "no instruction count was recorded (instructions: the artifact changed): not judged"},
	} {
		got, why := judgeInstructions(c.r, c.failure, c.v)
		if got != c.want || !strings.Contains(why, c.says) {
			t.Errorf("judged %s (%s), want %s saying %q", got, why, c.want, c.says)
		}
	}
	if j, err := ParseJudge("instructions"); err != nil || j != JudgeInstructions {
		t.Errorf("ParseJudge: %v %v", j, err)
	}
}
