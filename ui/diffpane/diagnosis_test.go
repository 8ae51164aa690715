package diffpane

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"kvparity/diffview/diagnose"
	fx "kvparity/diffview/difftest"
	"kvparity/exceptions"
)

// uuidDriftPair is a candidate whose request uuids are fresh UUIDv4s (deterministic ones, so
// views are reproducible): the id-drift cause, with five evidence lines, the last the decisive
// "random UUIDv4 pattern".
func uuidDriftPair(t *testing.T) (dir, a, b string) {
	t.Helper()
	dir = t.TempDir()
	ra := fx.Report(25, 6)
	rb := fx.Clone(ra)
	rename := map[string]string{}
	reqs := fx.Get(rb, "/per_request").([]any)
	for i, r := range reqs {
		m := r.(map[string]any)
		u := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", 0x9e3779b9*(i+1)%0xffffffff, i*7919%0xffff, i, i*31, i*104729)
		rename[m["uuid"].(string)] = u
		m["uuid"] = u
	}
	for _, r := range fx.Get(rb, "/coverage/pressure/records").([]any) {
		m := r.(map[string]any)
		m["request_uuid"] = rename[m["request_uuid"].(string)]
	}
	sort.Slice(reqs, func(i, j int) bool {
		return reqs[i].(map[string]any)["uuid"].(string) < reqs[j].(map[string]any)["uuid"].(string)
	})
	a, b = writePair(t, dir, ra, rb)
	return dir, a, b
}

// The open diagnosis shows three evidence lines and says how many more there are and how to
// see them; I lists every cause with all its evidence (the UUIDv4 line among them), and esc
// goes back to the list.
func TestPaneDiagnosisSaysHowMuchMoreAndShowsItWhole(t *testing.T) {
	dir, a, b := uuidDriftPair(t)
	p := openPane(t, dir, a, b)
	if len(p.diff.Diagnosis) == 0 || p.diff.Diagnosis[0].Code != "id-drift" || len(p.diff.Diagnosis[0].Evidence) <= evidenceShown {
		t.Fatalf("want id-drift with more than %d evidence lines, got %+v", evidenceShown, p.diff.Diagnosis)
	}
	hidden := len(p.diff.Diagnosis[0].Evidence) - evidenceShown
	v := stripANSI(p.View())
	if want := fmt.Sprintf("+%d more (I shows the whole diagnosis)", hidden); !strings.Contains(v, want) {
		t.Fatalf("the open diagnosis lacks %q:\n%s", want, v)
	}
	if strings.Contains(v, "random UUIDv4 pattern") {
		t.Fatalf("the fifth evidence line is not among the first three:\n%s", v)
	}
	p, _ = press(p, "I")
	if p.mode != modeDiagnosis || !p.Modal() {
		t.Fatalf("I: mode %v", p.mode)
	}
	v = stripANSI(p.View())
	for _, w := range []string{"DIAGNOSIS: ", "▸ 1. id / uuid drift", "random UUIDv4 pattern", "c covers it · its patterns: "} {
		if !strings.Contains(v, w) {
			t.Errorf("the whole diagnosis lacks %q:\n%s", w, v)
		}
	}
	p, _ = press(p, "esc")
	if p.mode != modeList {
		t.Fatalf("esc: mode %v", p.mode)
	}
}

// c in the whole diagnosis drafts a record covering the selected cause: its patterns, the
// requests they count, and the diagnosis's words as the cause; the form counts what it covers.
func TestPaneCoverThisCauseDraftsTheRecord(t *testing.T) {
	dir, a, b := uuidDriftPair(t)
	p := openPane(t, dir, a, b)
	p, _ = press(p, "I")
	p, _ = pressSettled(t, p, "c")
	if p.mode != modeForm {
		t.Fatalf("c: mode %v, status %q", p.mode, p.status)
	}
	rec := p.form.record()
	got := strings.Join(rec.Pointers, ", ")
	if !strings.Contains(got, "/per_request/*/uuid") || !strings.Contains(got, "request_uuid") {
		t.Fatalf("the cause's patterns: %s", got)
	}
	if len(rec.Requests) == 0 || !strings.Contains(rec.Cause, "id / uuid drift") || !strings.Contains(rec.Cause, "random UUIDv4 pattern") {
		t.Fatalf("drafted requests %v, cause %q", rec.Requests, rec.Cause)
	}
	if v := stripANSI(p.View()); !strings.Contains(v, fmt.Sprintf("covers %d of %d differing pointers", p.diff.Count, p.diff.Count)) {
		t.Fatalf("the form should count the cause's coverage:\n%s", v)
	}
}

// coverCause opens the whole diagnosis, selects the cause with code, presses c and returns
// the drafted record and the whole diagnosis as it read before c.
func coverCause(t *testing.T, p Model, code diagnose.SignatureCode) (Model, exceptions.ExceptionRecord, string) {
	t.Helper()
	p, _ = press(p, "I")
	at := -1
	for i, s := range p.diff.Diagnosis {
		if s.Code == code {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("no %s cause in %v", code, p.diff.Diagnosis)
	}
	for range at {
		p, _ = press(p, "down")
	}
	if p.diagCursor != at {
		t.Fatalf("down ×%d: cause %d selected", at, p.diagCursor)
	}
	v := stripANSI(p.View())
	p, _ = pressSettled(t, p, "c")
	if p.mode != modeForm {
		t.Fatalf("c on %s: mode %v, status %q", code, p.mode, p.status)
	}
	return p, p.form.record(), v
}

// Two causes in one diff, random uuids and wall-clock readings in the first five requests:
// c on each drafts exactly the patterns of the pointers the diagnosis says that cause
// accounts for, and the selected cause's line in the whole diagnosis names them.
func TestCoverThisCauseDraftsThePointersTheCauseExplains(t *testing.T) {
	dir := t.TempDir()
	ra := fx.Report(12, 0)
	rb := fx.Clone(ra)
	for i, r := range fx.Get(rb, "/per_request").([]any) {
		r.(map[string]any)["uuid"] = fmt.Sprintf("%08x-0000-4000-8000-%012x", i+1, i+1)
		if i < 5 {
			fx.Set(ra, fmt.Sprintf("/per_request/%d/dispatched_at_ms", i), fx.Num(1764405000123.25+float64(i)))
			fx.Set(rb, fmt.Sprintf("/per_request/%d/dispatched_at_ms", i), fx.Num(1764405007456.5+float64(i)))
		}
	}
	a, b := writePair(t, dir, ra, rb)
	for _, c := range []struct {
		code    diagnose.SignatureCode
		pattern string
	}{
		{diagnose.SigIDDrift, "/per_request/*/uuid"},
		{diagnose.SigWallClock, "/per_request/*/dispatched_at_ms"},
	} {
		_, rec, v := coverCause(t, openPane(t, dir, a, b), c.code)
		if got := strings.Join(rec.Pointers, ", "); got != c.pattern {
			t.Errorf("%s: drafted patterns %q, want %q", c.code, got, c.pattern)
		}
		if !strings.Contains(rec.Cause, "diagnosis: ") {
			t.Errorf("%s: cause %q", c.code, rec.Cause)
		}
		if !strings.Contains(v, "c covers it · its patterns: "+c.pattern) {
			t.Errorf("%s: the selected cause's line should name its patterns:\n%s", c.code, v)
		}
	}
}

// The configuration cause of the semantic pair drafts its two metadata patterns, not the
// per-request ones the cascade beside it explains.
func TestCoverTheConfigurationCause(t *testing.T) {
	dir, a, b := semanticPair(t)
	_, rec, _ := coverCause(t, openPane(t, dir, a, b), diagnose.SigConfig)
	if got := strings.Join(rec.Pointers, ","); got != "/metadata/engine_config/decode/preemption_mode,/metadata/engine_config/prefill/preemption_mode" {
		t.Fatalf("configuration cause patterns %s", got)
	}
}

// The unclassified remainder drafts the patterns of the pointers no other cause names.
func TestCoverTheUnclassifiedRemainder(t *testing.T) {
	dir := t.TempDir()
	ra := fx.Report(10, 0)
	rb := fx.Clone(ra)
	fx.NextULP(rb, "/summary/mean_e2e_latency_ms")
	for i := 0; i < 6; i++ {
		fx.Set(rb, fmt.Sprintf("/per_request/%d/output_length", i), fx.Num(float64(900+i)))
	}
	a, b := writePair(t, dir, ra, rb)
	_, rec, v := coverCause(t, openPane(t, dir, a, b), diagnose.SigUnclassified)
	if got := strings.Join(rec.Pointers, ","); got != "/per_request/*/output_length" {
		t.Fatalf("unclassified remainder patterns %s", got)
	}
	if n := len(rec.Requests); n != 6 {
		t.Errorf("drafted %d requests, want the 6 whose output_length moved", n)
	}
	if !strings.Contains(v, "the patterns of what no cause above names: /per_request/*/output_length") {
		t.Errorf("the remainder's line should say whose patterns it drafts:\n%s", v)
	}
}

// When the patterns change, the requests and events are drafted again from what the new ones
// cover; a field the author typed into keeps its text, and the form says so.
func TestFormRedraftsRequestsAndEventsWhenThePatternsChange(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := openPane(t, dir, a, b)
	p, _ = press(p, "f")
	p, _ = pressSettled(t, p, "c") // the per-request at_ms pattern: three requests
	if n := len(p.form.record().Requests); n != 3 {
		t.Fatalf("drafted %d requests, want 3", n)
	}
	p, _ = pressSettled(t, p, "ctrl+u")
	p = typeSettled(t, p, "/metadata/engine_config/decode/preemption_mode")
	if r := p.form.record(); len(r.Requests) != 0 || len(r.Events) != 0 && strings.Contains(strings.Join(r.Events, ","), "admission") {
		t.Fatalf("the configuration pattern counts no request: requests %v events %v", r.Requests, r.Events)
	}
	// Typed by hand: kept, and said.
	p, _ = press(p, "tab")
	p = typeSettled(t, p, "req-by-hand")
	p, _ = press(p, "shift+tab")
	p = typeSettled(t, p, ", /per_request/*/terminal_time_ms")
	if r := p.form.record(); strings.Join(r.Requests, ",") != "req-by-hand" {
		t.Fatalf("a typed field is kept: %v", r.Requests)
	}
	if v := stripANSI(p.View()); !strings.Contains(v, "requests typed by hand: kept as typed") {
		t.Fatalf("the form should say it kept them:\n%s", v)
	}
}
