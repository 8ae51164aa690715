package diffpane

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	fx "kvparity/diffview/difftest"
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

// A cause that explains only some differences drafts the field patterns it names.
func TestCausePatternsAreTheFieldsTheCauseNames(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := openPane(t, dir, a, b)
	var cfg int = -1
	for i, s := range p.diff.Diagnosis {
		if s.Code == "configuration" {
			cfg = i
		}
	}
	if cfg < 0 {
		t.Fatalf("no configuration cause in %+v", p.diff.Diagnosis)
	}
	pats, named := p.causePatterns(p.diff.Diagnosis[cfg])
	if !named || strings.Join(pats, ",") != "/metadata/engine_config/decode/preemption_mode,/metadata/engine_config/prefill/preemption_mode" {
		t.Fatalf("configuration cause patterns %v (named %v); evidence %v", pats, named, p.diff.Diagnosis[cfg].Evidence)
	}
	if namesField("worker_id 1 → 2", "id") || !namesField("worker_id 1 → 2", "worker_id") {
		t.Fatal("namesField matches whole field names only")
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
