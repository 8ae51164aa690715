package diffview

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	fx "kvparity/diffview/difftest"
)

func mustDiff(t *testing.T, a, b map[string]any) *Diff {
	t.Helper()
	return fx.Diff(t, DiffBytes, a, b)
}

func TestDiffGroupsAndCounts(t *testing.T) {
	a := fx.Report(20, 5)
	b := fx.Clone(a)
	fx.Set(b, "/summary/mean_ttft_ms", fx.Num(21.5))
	fx.Set(b, "/metadata/engine_config/decode/preemption_mode", "fifo")
	fx.Set(b, "/coverage/pressure/vllm_preemptions_total", fx.Int(9))
	fx.Set(b, "/per_request/3/routing_history/1/logical_worker_id", fx.Int(7))
	fx.Set(b, "/per_request/3/routing_history/1/scheduler_id", fx.Int(7))
	fx.Set(b, "/per_request/3/decode_worker_idx", fx.Int(7))
	fx.Set(b, "/coverage/pressure/records/0/worker_id", fx.Int(5))
	d := mustDiff(t, a, b)
	want := []string{
		"/coverage/pressure/records/0/worker_id",
		"/coverage/pressure/vllm_preemptions_total",
		"/metadata/engine_config/decode/preemption_mode",
		"/per_request/3/decode_worker_idx",
		"/per_request/3/routing_history/1/logical_worker_id",
		"/per_request/3/routing_history/1/scheduler_id",
		"/summary/mean_ttft_ms",
	}
	if got := d.Pointers(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("pointers:\n got %v\nwant %v", got, want)
	}
	var keys []string
	for _, g := range d.Groups {
		keys = append(keys, g.Key+"="+strconv.Itoa(len(g.Changes)))
	}
	wantG := "summary=1 metadata=1 coverage=1 coverage/pressure/records=1 request " + fx.UUID(3) + "=1 request " + fx.UUID(3) + " routing_history=2"
	if strings.Join(keys, " ") != wantG {
		t.Fatalf("groups:\n got %s\nwant %s", strings.Join(keys, " "), wantG)
	}
	c := d.Changes[3]
	if c.A != "0" || c.B != "7" || c.Request != fx.UUID(3) || c.Kind != Changed {
		t.Fatalf("change %+v", c)
	}
}

func TestDiffNumberLiteralsVerbatim(t *testing.T) {
	a := fx.Report(3, 0)
	b := fx.Clone(a)
	fx.Set(b, "/metadata/execution/arrival_speedup_ratio", fx.Int(4)) // 4.0 → 4
	d := mustDiff(t, a, b)
	if len(d.Changes) != 1 || d.Changes[0].A != "4.0" || d.Changes[0].B != "4" {
		t.Fatalf("want one change 4.0 → 4, got %+v", d.Changes)
	}
}

func TestDiffAddedRemovedMembersAndElements(t *testing.T) {
	a := fx.Report(4, 0)
	b := fx.Clone(a)
	delete(fx.Get(b, "/summary").(map[string]any), "mean_ttft_ms")
	fx.Set(b, "/summary/zz_new", fx.Int(1))
	rh := fx.Get(b, "/per_request/1/routing_history").([]any)
	fx.Set(b, "/per_request/1/routing_history", append(rh, rh[0]))
	d := mustDiff(t, a, b)
	got := map[string]Kind{}
	for _, c := range d.Changes {
		got[c.Pointer] = c.Kind
	}
	want := map[string]Kind{"/summary/mean_ttft_ms": Removed, "/summary/zz_new": Added, "/per_request/1/routing_history/2": Added}
	for p, k := range want {
		if got[p] != k {
			t.Errorf("%s: got %v want %v (all %v)", p, got[p], k, got)
		}
	}
	if len(got) != 3 {
		t.Errorf("want 3 changes, got %v", got)
	}
}

func TestDiffRequestsMatchedByUUID(t *testing.T) {
	a := fx.Report(6, 0)
	b := fx.Clone(a)
	reqs := fx.Get(b, "/per_request").([]any)
	fx.Set(b, "/per_request", append(reqs[:2:2], reqs[3:]...)) // B lacks request 3
	fx.Set(b, "/per_request/3/ttft_ms", fx.Num(99))            // that is request 5 in B
	d := mustDiff(t, a, b)
	var removed, changed *Change
	for i := range d.Changes {
		switch d.Changes[i].Kind {
		case Removed:
			removed = &d.Changes[i]
		case Changed:
			changed = &d.Changes[i]
		}
	}
	if removed == nil || removed.Request != fx.UUID(2) || removed.Pointer != "/per_request/2" {
		t.Fatalf("removed: %+v", removed)
	}
	if changed == nil || changed.Request != fx.UUID(4) || changed.Pointer != "/per_request/3/ttft_ms" || changed.IndexA != 4 {
		t.Fatalf("changed: %+v", changed)
	}
}

func TestDiffNonCanonicalKeyOrderIsComparedByKey(t *testing.T) {
	a := []byte(`{"b":1,"a":{"y":2,"x":1}}`)
	b := []byte(`{"a":{"x":1,"y":3},"b":1}`)
	d, err := DiffBytes("a.json", a, "b.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 1 || d.Changes[0].Pointer != "/a/y" {
		t.Fatalf("changes %+v", d.Changes)
	}
	if len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "a.json is not canonical") {
		t.Fatalf("notes %v", d.Notes)
	}
}

func TestDiffPointerEscaping(t *testing.T) {
	d, err := DiffBytes("a", []byte(`{"a/b":{"c~d":1}}`), "b", []byte(`{"a/b":{"c~d":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.Changes[0].Pointer != "/a~1b/c~0d" {
		t.Fatalf("pointer %q", d.Changes[0].Pointer)
	}
	if !MatchPattern("/a~1b/*", d.Changes[0].Pointer) {
		t.Fatal("escaped pattern should match")
	}
}

func TestDiffBadInputNamesFileLineAndPointer(t *testing.T) {
	good := fx.Encode(fx.Report(2, 0))
	cases := []struct {
		name string
		src  string
		want string
	}{
		{"truncated", string(good[:len(good)/2]), "bad.jsonl:1:"},
		{"bad number", strings.Replace(string(good), `"ttft_ms":20.25`, `"ttft_ms":20.`, 1), "at /per_request/0/ttft_ms: invalid number"},
		{"not object", "[1,2]\n", "bad.jsonl:1: a canonical report must be a JSON object"},
		{"empty", "\n\n", "bad.jsonl: no report line"},
		{"iterations differ", string(good) + strings.Replace(string(good), "20.25", "20.5", 1), "bad.jsonl:2: report line differs from line 1"},
		{"trailing", strings.TrimSpace(string(good)) + " x\n", "unexpected data after the report object"},
		{"dup key", `{"a":1,"a":2}`, `duplicate key "a"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			pa, pb := filepath.Join(dir, "good.jsonl"), filepath.Join(dir, "bad.jsonl")
			os.WriteFile(pa, []byte(`{"a":0}`), 0o644)
			os.WriteFile(pb, []byte(c.src), 0o644)
			_, err := DiffFiles(pa, pb)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
	if _, err := DiffFiles("/nonexistent/x.jsonl", "/nonexistent/y.jsonl"); err == nil || !strings.Contains(err.Error(), "/nonexistent/x.jsonl") {
		t.Fatalf("missing file error %v", err)
	}
}

func TestDiffMissingUUIDIsAnError(t *testing.T) {
	_, err := DiffBytes("a", []byte(`{"per_request":[{"uuid":"x"}]}`), "b", []byte(`{"per_request":[{"id":"x"}]}`))
	if err == nil || !strings.Contains(err.Error(), "b:1:") || !strings.Contains(err.Error(), "/per_request/0/uuid") {
		t.Fatalf("err %v", err)
	}
}

func TestFirstDivergenceIsEarliestVirtualTime(t *testing.T) {
	a := fx.Report(30, 0)
	b := fx.Clone(a)
	fx.Shift(b, "/per_request/20/terminal_time_ms", 5)
	fx.Shift(b, "/per_request/12/decode_admit_ms", 0.5) // 12*10.5+20.25+1.5 = 147.75
	fx.Shift(b, "/per_request/25/arrival_time_ms", 1)
	fx.Set(b, "/summary/mean_ttft_ms", fx.Num(1))
	d := mustDiff(t, a, b)
	f := d.First
	if f == nil || f.Pointer != "/per_request/12/decode_admit_ms" || f.AtMs != 147.75 || f.Request != fx.UUID(12) || f.Event != "decode admission" {
		t.Fatalf("first divergence %+v", f)
	}
	if !strings.Contains(f.String(), "t=147.75 ms · decode admission · request "+fx.UUID(12)) {
		t.Fatalf("headline %q", f.String())
	}
}

func TestFirstDivergenceEventNames(t *testing.T) {
	a := fx.Report(10, 4)
	cases := []struct {
		ptr, event string
		at         float64
	}{
		{"/per_request/2/routing_history/1/logical_worker_id", "routing decision #1 (pool decode)", 2*10.5 + 20.25 + 1.0},
		{"/per_request/2/admission_history/1/reused_input_tokens", "admission #1 (pool decode)", 2*10.5 + 20.25 + 1.0 + 1.5},
		{"/coverage/pressure/records/0/worker_id", "pressure event #0 vllm_preemption", 3*10.5 + 20.25 + 0 + 1.5 + 12},
		{"/per_request/2/ttft_ms", "ttft_ms (first token)", 2*10.5 + 20.25 + 1.0},
	}
	for _, c := range cases {
		b := fx.Clone(a)
		fx.Set(b, c.ptr, fx.Int(42))
		d := mustDiff(t, a, b)
		if d.First.Event != c.event || d.First.AtMs != c.at {
			t.Errorf("%s: got %q at %v, want %q at %v", c.ptr, d.First.Event, d.First.AtMs, c.event, c.at)
		}
	}
	// Configuration alone diverges "before time 0"; with a history difference too, the
	// divergence points into the history (the diagnosis names the setting).
	b := fx.Clone(a)
	fx.Set(b, "/metadata/engine_config/decode/preemption_mode", "fifo")
	fx.Set(b, "/summary/mean_ttft_ms", fx.Num(1))
	if d := mustDiff(t, a, b); !strings.HasPrefix(d.First.String(), "before virtual time 0 · configuration · /metadata/engine_config/decode/preemption_mode") {
		t.Errorf("metadata first: %s", d.First)
	}
	fx.Shift(b, "/per_request/3/arrival_time_ms", 1)
	if d := mustDiff(t, a, b); d.First.Pointer != "/per_request/3/arrival_time_ms" || d.First.AtMs != 31.5 {
		t.Errorf("history first: %s", d.First)
	}
}
