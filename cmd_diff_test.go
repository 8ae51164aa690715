package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/diffview"
	"kvparity/diffview/diagnose"
	fx "kvparity/diffview/difftest"
	"kvparity/exceptions"
)

func writeReports(t *testing.T) (dir, a, b string) {
	t.Helper()
	dir = t.TempDir()
	ra := fx.Report(30, 5)
	rb := fx.Clone(ra)
	fx.Set(rb, "/per_request/12/routing_history/1/logical_worker_id", fx.Int(0))
	fx.Set(rb, "/per_request/12/decode_worker_idx", fx.Int(0))
	fx.Shift(rb, "/per_request/12/terminal_time_ms", 3.5)
	a, b = filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(a, fx.Encode(ra), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, fx.Encode(rb), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, a, b
}

func TestCmdDiffTextAndExitStatus(t *testing.T) {
	_, a, b := writeReports(t)
	var out, errb bytes.Buffer
	if code := runDiff([]string{a, a}, &out, &errb); code != 0 || !strings.Contains(out.String(), "identical") {
		t.Fatalf("same file: exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := runDiff([]string{a, b}, &out, &errb); code != 1 {
		t.Fatalf("differing: exit %d\n%s", code, errb.String())
	}
	for _, w := range []string{
		"3 differing pointer(s) in 2 group(s)",
		"first divergence: t=",
		"routing decision #1 (pool decode)",
		"diagnosis (most specific first):",
		"1. decision-flip cascade",
		"request " + fx.UUID(12) + " (2)",
		"changed  /per_request/12/routing_history/1/logical_worker_id: 1 → 0",
	} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
}

func TestCmdDiffJSONAndFlagsAfterArgs(t *testing.T) {
	_, a, b := writeReports(t)
	var out, errb bytes.Buffer
	if code := runDiff([]string{a, b, "--json"}, &out, &errb); code != 1 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r diagnose.JSONReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if r.Equal || r.Count != 3 || len(r.Groups) != 2 || r.First == nil || r.First.AtMs == nil || len(r.Diagnosis) == 0 {
		t.Fatalf("report %+v", r)
	}
	if r.Diagnosis[0].Code != diagnose.SigCascade || r.First.Pointer != "/per_request/12/routing_history/1/logical_worker_id" {
		t.Fatalf("diagnosis %s first %s", r.Diagnosis[0].Code, r.First.Pointer)
	}
}

func TestCmdDiffCampaignVerdict(t *testing.T) {
	dir, a, b := writeReports(t)
	rec := exceptions.ExceptionRecord{
		Differs: "decode routing of one request", Pointers: []string{"/per_request/12/**"},
		Baseline: "b", Candidate: "c", Cause: "x", RegressionTest: "t", Impact: "none", Disposition: "accepted",
	}
	if _, err := exceptions.PutException(dir, rec); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := runDiff([]string{"--campaign", dir, a, b}, &out, &errb); code != 0 || !strings.Contains(out.String(), "semantic verdict: PASS_WITH_SEMANTIC_EXCEPTIONS (1 exception record(s))") {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := runDiff([]string{"--campaign", dir, "--unstable", a, b}, &out, &errb); code != 1 || !strings.Contains(out.String(), "semantic verdict: FAIL") {
		t.Fatalf("unstable: exit %d\n%s", code, out.String())
	}
}

func TestCmdDiffUsageAndInputErrors(t *testing.T) {
	_, a, _ := writeReports(t)
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"summary":{"x":1,}}`), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{a}, "usage: kvparity diff"},
		{[]string{a, bad}, "bad.jsonl:1:19: at /summary: expected a string key"},
		{[]string{a, "/nonexistent.jsonl"}, "/nonexistent.jsonl"},
		{[]string{"--bogus", a, a}, "flag provided but not defined"},
		{[]string{"--campaign", filepath.Dir(bad), a, a}, ""},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := runDiff(c.args, &out, &errb)
		if c.want == "" {
			if code != 0 {
				t.Errorf("%v: exit %d %s", c.args, code, errb.String())
			}
			continue
		}
		if code != 3 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 3 and %q", c.args, code, errb.String(), c.want)
		}
	}
}

func TestCmdExceptionsListAndDelete(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := runExceptions([]string{"list", dir}, &out, &errb); code != 0 || !strings.Contains(out.String(), "no exception records") {
		t.Fatalf("empty: %d %s", code, out.String())
	}
	rec, err := exceptions.PutException(dir, exceptions.ExceptionRecord{
		Differs: "d", Pointers: []string{"/summary/**"}, Baseline: "b", Candidate: "c", Cause: "x",
		RegressionTest: "TestX", Impact: "none", Disposition: "accepted",
	})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := runExceptions([]string{"list", dir}, &out, &errb); code != 0 || !strings.Contains(out.String(), rec.ID+"  /summary/**") || !strings.Contains(out.String(), "regression test: TestX") {
		t.Fatalf("list: %d\n%s", code, out.String())
	}
	if code := runExceptions([]string{"delete", dir, "nope"}, &out, &errb); code != 3 || !strings.Contains(errb.String(), `no exception record with id "nope"`) {
		t.Fatalf("delete unknown: %d %s", code, errb.String())
	}
	out.Reset()
	if code := runExceptions([]string{"delete", dir, rec.ID}, &out, &errb); code != 0 {
		t.Fatalf("delete: %d %s", code, errb.String())
	}
	if recs, _ := exceptions.LoadExceptions(dir); len(recs) != 0 {
		t.Fatalf("left %v", recs)
	}
	if code := runExceptions([]string{"frobnicate", dir}, &out, &errb); code != 3 {
		t.Fatalf("bad subcommand: %d", code)
	}
}

func TestCmdDiffPatternsSumToTheTotal(t *testing.T) {
	_, a, b := writeReports(t)
	var out, errb bytes.Buffer
	if code := runDiff([]string{a, b, "--patterns"}, &out, &errb); code != 1 {
		t.Fatalf("differing: exit %d\n%s", code, errb.String())
	}
	want := "3 differing pointer(s) in 3 field pattern(s) (array indices and ids as *):\n" +
		"  1  /per_request/*/decode_worker_idx\n" +
		"  1  /per_request/*/routing_history/*/logical_worker_id\n" +
		"  1  /per_request/*/terminal_time_ms\n" +
		"  3  total\n"
	if !strings.HasSuffix(out.String(), want) {
		t.Fatalf("output:\n%s\nwant suffix\n%s", out.String(), want)
	}
	out.Reset()
	if code := runDiff([]string{"--patterns", "--json", a, b}, &out, &errb); code != 1 {
		t.Fatalf("json: exit %d\n%s", code, errb.String())
	}
	var r diffview.JSONPatterns
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, p := range r.Patterns {
		sum += p.Count
	}
	if r.Count != 3 || len(r.Patterns) != 3 || sum != 3 {
		t.Fatalf("json: %+v", r)
	}
}

// A flood of uncovered pointers is counted whole and listed in part: 20 lines of text (then
// how many more), the first 1,000 in --json with the count beside them.
func TestCmdDiffCampaignListsTheFirstUncovered(t *testing.T) {
	dir := t.TempDir()
	ra, rb := fx.Flood(fx.Report(5, 0), "events", 3000, nil)
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, fx.Encode(ra), 0o644)
	os.WriteFile(b, fx.Encode(rb), 0o644)
	var out, errb bytes.Buffer
	if code := runDiff([]string{"--campaign", dir, a, b}, &out, &errb); code != 1 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if n := strings.Count(out.String(), "\n  uncovered /events/"); n != 20 || !strings.Contains(out.String(), "  … 2980 more uncovered (--json lists the first 1000)") {
		t.Fatalf("%d uncovered lines:\n%s", n, out.String()[max(0, out.Len()-600):])
	}
	out.Reset()
	if code := runDiff([]string{"--campaign", dir, "--json", a, b}, &out, &errb); code != 1 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r diagnose.JSONReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Semantic == nil {
		t.Fatalf("not JSON: %v", err)
	}
	if r.Semantic.UncoveredCount != 3000 || len(r.Semantic.Uncovered) != 1000 || r.Semantic.Uncovered[999] != "/events/999" || len(r.Pointers) != 3000 {
		t.Fatalf("semantic: %d uncovered, %d listed, %d pointers", r.Semantic.UncoveredCount, len(r.Semantic.Uncovered), len(r.Pointers))
	}
}

// A release replay's outputs: records and summaries as a pair (--summary A.json B.json, before
// or after the records), the summaries alone, and the flag's misuse.
func TestCmdDiffReleaseOutputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rec := `{"uuid":"u-1","arrival_time_ms":0.0,"first_token_ms":5.0,"last_token_ms":9.0,"decode_worker_idx":%d}` + "\n"
	ra, rb := write("a.jsonl", fmt.Sprintf(rec, 0)), write("b.jsonl", fmt.Sprintf(rec, 0))
	sa := write("a.json", "{\n  \"mean_ttft_ms\": 5.0,\n  \"wall_time_ms\": 900.1\n}\n")
	sb := write("b.json", "{\n  \"mean_ttft_ms\": 5.0,\n  \"wall_time_ms\": 700.3\n}\n")
	for _, args := range [][]string{{ra, rb, "--summary", sa, sb}, {"--summary", sa, sb, ra, rb}, {"--summary=" + sa, sb, ra, rb}, {"--summary", sa, sb}} {
		var out, errb bytes.Buffer
		code := runDiff(args, &out, &errb)
		if code != 0 || !strings.Contains(out.String(), "identical: no differing pointer") ||
			!strings.Contains(out.String(), "excluded by the canonical profile (not compared): /summary/wall_time_ms 900.1 → 700.3") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out.String(), errb.String())
		}
	}
	bad := write("bad.json", "{\n  \"mean_ttft_ms\": 5.0,\n  \"wall_time_ms\": 1e\n}\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{ra, rb, "--summary", sa}, "--summary takes two files"},
		{[]string{ra, rb, "--summary", sa, sb, "--summary", sa, sb}, "--summary given twice"},
		{[]string{ra, rb, "--summary", sa, bad}, "bad.json:3:19: at /summary/wall_time_ms"},
	} {
		var out, errb bytes.Buffer
		if code := runDiff(c.args, &out, &errb); code != 3 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 3 and %q", c.args, code, errb.String(), c.want)
		}
	}
}
