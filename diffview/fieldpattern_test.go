package diffview

import (
	"fmt"
	"path"
	"strings"
	"testing"

	fx "kvparity/diffview/difftest"
)

func TestFieldPatternWildcardsIndicesAndIDs(t *testing.T) {
	for ptr, want := range map[string]string{
		"/per_request/17/ttft_ms":                           "/per_request/*/ttft_ms",
		"/per_request/3/admission_history/2/at_ms":          "/per_request/*/admission_history/*/at_ms",
		"/coverage/pressure/records/0/request_uuid":         "/coverage/pressure/records/*/request_uuid",
		"/by_id/00000000-0000-0000-0000-00000000007d/state": "/by_id/*/state",
		"/blobs/0123456789abcdef0123/size":                  "/blobs/*/size",
		"/summary/p99_ttft_ms":                              "/summary/p99_ttft_ms",
		"/metadata/engine_config/decode/preemption_mode":    "/metadata/engine_config/decode/preemption_mode",
		"/odd/a*b/x":     `/odd/a\*b/x`,
		"/":              "/",
		"/w0/cafe":       "/w0/cafe", // short hex is a name, not an id
		"/per_request/4": "/per_request/*",
		"/coverage/kv_ingest/boundaries/pass_end/last_at_ms":    "/coverage/kv_ingest/boundaries/pass_end/last_at_ms",
		"/per_request/12/routing_history/0/logical_worker_id":   "/per_request/*/routing_history/*/logical_worker_id",
		"/per_request/12/pressure_record_ordinals/1":            "/per_request/*/pressure_record_ordinals/*",
		"/metadata/determinism/candidate_order/1":               "/metadata/determinism/candidate_order/*",
		"/metadata/workload/" + strings.Repeat("ab", 32) + "/x": "/metadata/workload/*/x",
	} {
		if got := FieldPattern(ptr); got != want {
			t.Errorf("FieldPattern(%s) = %s, want %s", ptr, got, want)
		}
		if ptr != "/" && !MatchPattern(FieldPattern(ptr), ptr) {
			t.Errorf("%s does not match its own pattern %s", ptr, FieldPattern(ptr))
		}
	}
}

// patternedPair differs in one field of every request, in a routing field of a few, in eight
// summary statistics (folded into /summary/*) and in one metadata field.
func patternedPair(t *testing.T) *Diff {
	t.Helper()
	a := fx.Report(40, 5)
	b := fx.Clone(a)
	for i := 0; i < 40; i++ {
		fx.Shift(b, fmt.Sprintf("/per_request/%d/terminal_time_ms", i), 3)
	}
	for _, i := range []int{4, 9, 14} {
		fx.Set(b, fmt.Sprintf("/per_request/%d/routing_history/1/logical_worker_id", i), fx.Int(7))
	}
	for _, f := range []string{"completed_requests", "duration_ms", "mean_ttft_ms", "mean_e2e_latency_ms", "num_requests",
		"prefix_cache_reused_ratio", "total_input_tokens", "total_output_tokens"} {
		fx.Set(b, "/summary/"+f, fx.Int(1))
	}
	fx.Set(b, "/metadata/engine_config/decode/preemption_mode", "fifo")
	return mustDiff(t, a, b)
}

func TestFieldPatternsCountEveryPointerOnceLargestFirst(t *testing.T) {
	d := patternedPair(t)
	ps := d.FieldPatterns()
	var got []string
	sum := 0
	for _, p := range ps {
		got = append(got, fmt.Sprintf("%d %s", p.Count, p.Pattern))
		sum += p.Count
		if len(p.Changes) != p.Count {
			t.Errorf("%s: %d changes for count %d", p.Pattern, len(p.Changes), p.Count)
		}
	}
	want := []string{
		"40 /per_request/*/terminal_time_ms",
		"8 /summary/*",
		"3 /per_request/*/routing_history/*/logical_worker_id",
		"1 /metadata/engine_config/decode/preemption_mode",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("patterns:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if sum != len(d.Changes) {
		t.Fatalf("counts sum to %d, %d pointers differ", sum, len(d.Changes))
	}
	// Each pattern, used as an exception pattern, covers exactly the pointers it counts.
	for _, p := range ps {
		sel, _ := d.Select([]string{p.Pattern}, nil)
		if fmt.Sprint(sel) != fmt.Sprint(p.Changes) {
			t.Errorf("%s selects %v, counts %v", p.Pattern, sel, p.Changes)
		}
	}
	if &d.FieldPatterns()[0] != &ps[0] {
		t.Error("FieldPatterns should be computed once per diff")
	}
}

func TestFieldPatternsFoldOnlyWhenEverySiblingIsASingleDirectChild(t *testing.T) {
	a := fx.Report(10, 0)
	b := fx.Clone(a)
	// seven summary statistics: below the fold threshold
	for _, f := range []string{"completed_requests", "duration_ms", "mean_ttft_ms", "mean_e2e_latency_ms", "num_requests",
		"prefix_cache_reused_ratio", "total_input_tokens"} {
		fx.Set(b, "/summary/"+f, fx.Int(1))
	}
	d := mustDiff(t, a, b)
	if n := len(d.FieldPatterns()); n != 7 {
		t.Fatalf("7 singletons should stay 7 patterns, got %d", n)
	}
	// eight, but one of the kv_ingest members is nested: kv_ingest does not fold
	a = fx.Report(10, 0)
	b = fx.Clone(a)
	for _, f := range []string{"batches", "blake3_256", "blocks", "events", "encoding"} {
		fx.Set(b, "/coverage/kv_ingest/"+f, "x")
	}
	for _, f := range []string{"kind_counts/removed", "kind_counts/stored", "pool_counts/decode"} {
		fx.Set(b, "/coverage/kv_ingest/"+f, fx.Int(0))
	}
	for _, p := range mustDiff(t, a, b).FieldPatterns() {
		if strings.HasSuffix(p.Pattern, "/*") {
			t.Fatalf("nothing should fold: %s", p.Pattern)
		}
	}
}

// oldMatch is the pattern matcher before Matcher (split both sides, path.Match per segment):
// the compiled one must agree with it everywhere.
func oldMatch(pat, ptr string) bool {
	if pat == "" || ptr == "" || pat[0] != '/' {
		return false
	}
	var m func(p, s []string) bool
	m = func(p, s []string) bool {
		for len(p) > 0 {
			if p[0] == "**" {
				for k := 0; k <= len(s); k++ {
					if m(p[1:], s[k:]) {
						return true
					}
				}
				return false
			}
			if len(s) == 0 {
				return false
			}
			if ok, _ := path.Match(p[0], s[0]); !ok {
				return false
			}
			p, s = p[1:], s[1:]
		}
		return len(s) == 0
	}
	return m(strings.Split(pat[1:], "/"), strings.Split(strings.TrimPrefix(ptr, "/"), "/"))
}

func TestCompiledMatcherAgreesWithTheReference(t *testing.T) {
	pats := []string{"/**", "/summary/**", "/summary/*", "/summary", "/per_request/*/ttft_ms", "/per_request/**/at_ms",
		"/**/at_ms", "/**/**", "/per_request/1?/ttft_ms", "/per_request/[0-4]/**", "/a/**/b/**", "/", "/*", "/*/**",
		`/odd/a\*b/x`, "/per_request/*/admission_history/*/at_ms", "", "summary", "/a//b", "/a/"}
	ptrs := []string{"/summary/mean_ttft_ms", "/summary", "/per_request/3/ttft_ms", "/per_request/13/ttft_ms",
		"/per_request/3/admission_history/2/at_ms", "/a/b", "/a/x/b/y", "/a/b/b", "/", "/odd/a*b/x", "/odd/axb/x",
		"/a//b", "/a/", "", "/per_request/4"}
	for _, pat := range pats {
		for _, ptr := range ptrs {
			if got, want := MatchPattern(pat, ptr), oldMatch(pat, ptr); got != want {
				t.Errorf("matchPattern(%q, %q) = %v, reference %v", pat, ptr, got, want)
			}
		}
	}
}

func TestDescribeAndSelect(t *testing.T) {
	d := patternedPair(t)
	sel, ok := d.Select([]string{"/per_request/*/terminal_time_ms", " /per_request/*/routing_history/** "}, nil)
	if !ok || len(sel) != 43 {
		t.Fatalf("select: %d %v", len(sel), ok)
	}
	if got := d.Describe(sel); got != "43 pointer(s) in 40 request(s): terminal_time_ms 40, logical_worker_id 3" {
		t.Fatalf("describe: %q", got)
	}
	// A superseded question gives up part way through tens of thousands of changes.
	big := &Diff{Changes: make([]Change, 20000)}
	for i := range big.Changes {
		big.Changes[i].Pointer = fmt.Sprintf("/per_request/%d/ttft_ms", i)
	}
	calls := 0
	if sel, ok := big.Select([]string{"/**"}, func() bool { calls++; return calls == 2 }); ok || sel != nil || calls != 2 {
		t.Fatalf("stopped select: ok %v, %d selected, %d polls", ok, len(sel), calls)
	}
	if sel, ok := big.Select([]string{"/per_request/1*/ttft_ms"}, func() bool { return false }); !ok || len(sel) != 11111 {
		t.Fatalf("select: ok %v, %d selected", ok, len(sel))
	}
}
