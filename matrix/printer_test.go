package matrix

import (
	"testing"

	schedule "kvparity/engine/matrix"
	"kvparity/verdict"
)

// The matrix line's verdict words: the report's decided words once the row has them, else what
// its journal says so far (these phrases were engine/matrix's RowStatus.VerdictPhrase).
func TestMatrixLineWords(t *testing.T) {
	decided := verdict.Decide(verdict.Inputs{Baseline: verdict.Of(verdict.Stable, ""), Candidate: verdict.Of(verdict.Stable, ""),
		Parity: verdict.Of(verdict.Pass, ""), Evidence: verdict.Of(verdict.Pass, ""), Performance: verdict.Of(verdict.Fail, "slow"),
		Footprint: verdict.Of(verdict.Pass, "")})
	for _, c := range []struct {
		s    schedule.RowStatus
		want string
	}{
		{schedule.RowStatus{Parity: verdict.Pass, Perf: verdict.Inconclusive}, "parity PASS · perf INCONCLUSIVE"},
		{schedule.RowStatus{Stage: schedule.RowStageDone, Verdicts: &decided}, "semantic PASS · perf FAIL · overall FAIL"},
		{schedule.RowStatus{Parity: verdict.Pass, Footprint: verdict.Fail}, "parity PASS · footprint FAIL"},
		{schedule.RowStatus{Blocked: "perf: replay_bench is false"}, "BLOCKED"},
		{schedule.RowStatus{Stage: schedule.RowStageWaiting}, ""},
	} {
		if got := verdictPhrase(c.s); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
	line := Line(schedule.RowStatus{Row: "vllm-agg", Node: "n1", Stage: schedule.RowStagePerf, Done: 2, Total: 4, Parity: verdict.Pass, Perf: verdict.Inconclusive})
	if want := "vllm-agg         · node n1 · perf 2/4 · parity PASS · perf INCONCLUSIVE"; line != want {
		t.Errorf("matrix line %q, want %q", line, want)
	}
}
