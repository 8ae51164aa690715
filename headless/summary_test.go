package headless

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"kvparity/engine"
	"kvparity/verdict"
)

// run --json starts with the shared schema's keys, in the shared words, and the human summary
// ends with every verdict and the exit status.
func TestDocumentIsTheSharedSchema(t *testing.T) {
	v := verdict.Decide(verdict.Inputs{Baseline: verdict.Of(verdict.Stable, "one digest"), Candidate: verdict.Of(verdict.Stable, "one digest"),
		Parity: verdict.Of(verdict.Pass, "identical"), Evidence: verdict.Of(verdict.Pass, "rules hold"),
		Performance: verdict.Of(verdict.Fail, "lower bound 1.08 > 1.05"), Footprint: verdict.Of(verdict.Pass, "within 5%")})
	d := Document{Document: verdict.NewDocument(verdict.KindRun, v), Summary: engine.Summary{Row: "r", Arms: map[engine.Arm]*engine.ArmSummary{
		engine.Baseline: {Verdict: verdict.Stable}, engine.Candidate: {Verdict: verdict.Stable}}}}
	var b bytes.Buffer
	if err := d.Write(&b, true); err != nil {
		t.Fatal(err)
	}
	js := b.String()
	if !strings.HasPrefix(js, "{\n  \"schema_version\": 2,\n  \"kind\": \"run\",\n  \"overall\": {") {
		t.Errorf("run --json starts %q", js[:min(80, len(js))])
	}
	var back struct {
		verdict.Document
		engine.Summary
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Overall.Verdict != verdict.Fail || back.ExitCode != 1 || back.Row != "r" {
		t.Errorf("round trip: %+v %v", back.Document, err)
	}
	b.Reset()
	d.Write(&b, false)
	for _, want := range []string{"perf       FAIL — lower bound 1.08 > 1.05", "overall    FAIL — performance: lower bound", "exit status 1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("human summary lacks %q:\n%s", want, b.String())
		}
	}
}

// An UNSTABLE arm whose declared perturbed repetitions did not run says why, in the human
// summary and in run --json (the same ArmSummary field the report reads).
func TestSummarySaysWhyPerturbedRepetitionsDidNotRun(t *testing.T) {
	why := engine.ArmResult{Verdict: verdict.Unstable}.PerturbedNotRun([]engine.Variation{"tz"})
	v := verdict.Decide(verdict.Inputs{Baseline: verdict.Of(verdict.Stable, "one digest"), Candidate: verdict.Of(verdict.Unstable, "2 digests")})
	d := Document{Document: verdict.NewDocument(verdict.KindRun, v), Summary: engine.Summary{Row: "r", Arms: map[engine.Arm]*engine.ArmSummary{
		engine.Baseline: {Verdict: verdict.Stable}, engine.Candidate: {Verdict: verdict.Unstable, Reason: "2 digests", PerturbedNotRun: why}}}}
	var text, js bytes.Buffer
	d.Write(&text, false)
	if err := d.Write(&js, true); err != nil {
		t.Fatal(err)
	}
	if why == "" || !strings.Contains(text.String(), "    perturbed repetitions "+why+"\n") {
		t.Errorf("human summary lacks the perturbed repetitions' reason %q:\n%s", why, text.String())
	}
	if !strings.Contains(js.String(), `"perturbed_not_run": "`+why+`"`) || strings.Count(js.String(), "perturbed_not_run") != 1 {
		t.Errorf("run --json: %s", js.String())
	}
}
