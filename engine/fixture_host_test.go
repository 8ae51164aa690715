package engine

import (
	"strings"
	"testing"

	"kvparity/engine/fixtures"
	"kvparity/verdict"
)

func TestRowFixturesAreValidated(t *testing.T) {
	base := strings.Replace(designRow, "[canonical]", "[fixtures]\nnames = %s\n\n[canonical]", 1)
	for _, c := range []struct{ names, err string }{
		{`["router-queue", "scale-to-zero"]`, ""},
		{`["router-queue", "queue"]`, `row.toml: [fixtures] names[1]: "queue" is not a stage-6 fixture (known: router-queue, preemption-edge, handoff-vllm, handoff-sglang, scale-to-zero)`},
		{`["handoff-vllm", "handoff-vllm"]`, `row.toml: [fixtures] names[1]: "handoff-vllm" is named twice`},
	} {
		_, err := ParseRow([]byte(strings.Replace(base, "%s", c.names, 1)), "row.toml")
		if (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("%s: %v, want %q", c.names, err, c.err)
		}
	}
	if _, err := ParseRow([]byte(strings.Replace(designRow, "[canonical]", "[fixtures]\nnamez = []\n\n[canonical]", 1)), "row.toml"); err == nil || !strings.Contains(err.Error(), "namez") {
		t.Errorf("unknown key: %v", err)
	}
}

// A failed stage-6 fixture is missing lifecycle evidence: the semantic verdict's coverage
// fails naming the fixture and the arm; a refused one decides nothing.
func TestFailedFixtureIsMissingLifecycleEvidence(t *testing.T) {
	row := TinyRow("", "")
	row.Fixtures.Names = []string{"router-queue", "scale-to-zero"}
	rec := func(f fixtures.Result) Record {
		return Record{Type: RecFixture, Stage: StageFixtures, Arm: Arm(f.Arm), Gen: 1, Data: MarshalData(f)}
	}
	h := FoldJournal([]Record{
		rec(fixtures.Result{Fixture: "router-queue", Arm: "candidate", Gen: 1, Verdict: verdict.Fail, Reason: "0 of 9 queued placements released"}),
		rec(fixtures.Result{Fixture: "scale-to-zero", Arm: "candidate", Gen: 1, Verdict: verdict.Blocked, Reason: "unsupported"}),
	}, row)
	ev := h.coverage(t.TempDir())
	if ev.Verdict != verdict.Fail || ev.Reason != "candidate stage-6 fixture router-queue: 0 of 9 queued placements released" {
		t.Fatalf("coverage = %+v", ev)
	}
}
