package exceptions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/diffview"
	fx "kvparity/diffview/difftest"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

func validRecord(patterns ...string) ExceptionRecord {
	return ExceptionRecord{
		Differs:        "decode admission times of preempted requests",
		Pointers:       patterns,
		Baseline:       "LIFO victim; vLLM's scheduler preempts the last running request only in LIFO mode",
		Candidate:      "FIFO victim as configured by preemption_mode=fifo (vllm/v1/core/sched/scheduler.py)",
		Cause:          "both arms are STABLE over 2 repetitions; only the preemption policy changed",
		RegressionTest: "TestPreemptionFIFOVictim fails on the baseline",
		Impact:         "none: report schema unchanged",
		Disposition:    "accepted by reviewer",
	}
}

// mustDiff diffs two fixture reports.
func mustDiff(t *testing.T, a, b map[string]any) *diffview.Diff {
	t.Helper()
	return fx.Diff(t, diffview.DiffBytes, a, b)
}

func TestExceptionValidationNamesTheField(t *testing.T) {
	r := validRecord("/summary/**")
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	r.Impact = "  "
	if err := r.Validate(); err == nil || err.(*FieldError).Field != "impact" {
		t.Fatalf("want impact error, got %v", err)
	}
	r = validRecord()
	if err := r.Validate(); err == nil || err.(*FieldError).Field != "pointers" {
		t.Fatalf("want pointers error, got %v", err)
	}
	r = validRecord("summary/x")
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "must start with '/'") {
		t.Fatalf("want pattern error, got %v", err)
	}
}

func TestExceptionsSaveEditDelete(t *testing.T) {
	dir := t.TempDir()
	recs, err := LoadExceptions(dir)
	if err != nil || len(recs) != 0 {
		t.Fatalf("missing file: %v %v", recs, err)
	}
	r1, err := PutException(dir, validRecord("/summary/**"))
	if err != nil {
		t.Fatal(err)
	}
	r2, err := PutException(dir, validRecord("/per_request/*/decode_admit_ms"))
	if err != nil {
		t.Fatal(err)
	}
	if r1.ID == "" || r1.ID == r2.ID || r1.Created.IsZero() {
		t.Fatalf("ids %q %q", r1.ID, r2.ID)
	}
	r1.Disposition = "rejected: needs a regression test"
	if _, err := PutException(dir, r1); err != nil {
		t.Fatal(err)
	}
	recs, err = LoadExceptions(dir)
	if err != nil || len(recs) != 2 || recs[0].Disposition != "rejected: needs a regression test" || recs[0].Created != r1.Created {
		t.Fatalf("after edit: %+v %v", recs, err)
	}
	if err := DeleteException(dir, r1.ID); err != nil {
		t.Fatal(err)
	}
	recs, _ = LoadExceptions(dir)
	if len(recs) != 1 || recs[0].ID != r2.ID {
		t.Fatalf("after delete: %+v", recs)
	}
	if err := DeleteException(dir, "nope"); err == nil || !strings.Contains(err.Error(), `no exception record with id "nope"`) {
		t.Fatalf("delete unknown: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 || ents[0].Name() != layout.FileExceptions || ents[1].Name() != layout.FileExceptionsLock {
		t.Fatalf("temporary files left behind (only the records and their lock stay): %v", ents)
	}
	if _, err := PutException(dir, ExceptionRecord{Pointers: []string{"/x"}}); err == nil {
		t.Fatal("an invalid record must not be saved")
	}
}

func TestLoadExceptionsBadLines(t *testing.T) {
	good := `{"id":"e1","differs":"d","pointers":["/a"],"baseline":"b","candidate":"c","cause":"x","regression_test":"t","impact":"i","disposition":"ok"}`
	cases := map[string]string{
		"exceptions.jsonl:2: byte 1: expected a string key":      good + "\n{oops\n",
		"exceptions.jsonl:1: record e1: baseline: required":      strings.Replace(good, `"baseline":"b"`, `"baseline":""`, 1),
		"exceptions.jsonl:2: id: \"e1\" already used on line 1":  good + "\n" + good,
		"exceptions.jsonl:1: key \"colour\": not a field":        strings.Replace(good, `{"id"`, `{"colour":1,"id"`, 1),
		"exceptions.jsonl:1: record e1: pointers: a record must": strings.Replace(good, `["/a"]`, `[]`, 1),
	}
	for want, content := range cases {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, layout.FileExceptions), []byte(content), 0o644)
		_, err := LoadExceptions(dir)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}

func TestSemanticVerdict(t *testing.T) {
	a := fx.Report(20, 0)
	b := fx.Clone(a)
	fx.Set(b, "/metadata/engine_config/decode/preemption_mode", "fifo")
	fx.Shift(b, "/per_request/4/decode_admit_ms", 1)
	fx.Shift(b, "/per_request/9/decode_admit_ms", 1)
	fx.Set(b, "/summary/mean_ttft_ms", fx.Num(30))
	d := mustDiff(t, a, b)

	same := mustDiff(t, a, fx.Clone(a))
	if v, x := SemanticVerdict(same, nil, false); v != verdict.Pass || x.Uncovered != 0 || x.First != nil {
		t.Fatalf("identical: %s %+v", v, x)
	}
	if v, x := SemanticVerdict(d, nil, false); v != verdict.Fail || x.Uncovered != 4 || len(x.First) != 4 {
		t.Fatalf("no records: %s %+v", v, x)
	}
	recs := []ExceptionRecord{
		validRecord("/metadata/engine_config/*/preemption_mode"),
		validRecord("/per_request/*/decode_admit_ms", "/summary/**"),
	}
	if v, x := SemanticVerdict(d, recs, false); v != verdict.PassWithSemanticExceptions || x.Uncovered != 0 {
		t.Fatalf("covered: %s %+v", v, x)
	}
	if v, _ := SemanticVerdict(d, recs, true); v != verdict.Fail {
		t.Fatalf("unstable arm must FAIL, got %s", v)
	}
	v, x := SemanticVerdict(d, recs[1:], false)
	if v != verdict.Fail || x.Uncovered != 1 || strings.Join(x.First, ",") != "/metadata/engine_config/decode/preemption_mode" {
		t.Fatalf("one record removed: %s %+v", v, x)
	}
	bad := validRecord("/**")
	bad.Cause = ""
	if v, _ := SemanticVerdict(d, []ExceptionRecord{bad}, false); v != verdict.Fail {
		t.Fatalf("an invalid record covers nothing, got %s", v)
	}
}

func TestRootPatternsAndBroadRecords(t *testing.T) {
	for p, want := range map[string]bool{
		"/**": true, "/per_request/**": true, "/summary/**": true, "/**/ttft_ms": true, "/*": true, "/*/**": true,
		" /coverage/** ": true, "/per_request/*/ttft_ms": false, "/per_request/*/routing_history/**": false,
		"/summary/mean_ttft_ms": false, "/coverage/pressure/**": false, "": false,
	} {
		if rootPattern(p) != want {
			t.Errorf("rootPattern(%q) = %v, want %v", p, !want, want)
		}
	}
	if r := BroadReason([]string{"/per_request/*/ttft_ms"}, 40, 100); r != "" {
		t.Errorf("40 of 100 is not broad: %q", r)
	}
	if r := BroadReason([]string{"/per_request/*/ttft_ms"}, 51, 100); !strings.Contains(r, "covers 51 of 100 differing pointers (51%, more than half)") {
		t.Errorf("51 of 100: %q", r)
	}
	if r := BroadReason([]string{"/summary/x", "/**"}, 1, 100); r != "names a root pattern (/**)" {
		t.Errorf("root: %q", r)
	}
}
