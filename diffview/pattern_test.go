package diffview

import (
	"testing"
)

func TestPatternSyntax(t *testing.T) {
	cases := []struct {
		pat, ptr string
		want     bool
	}{
		{"/summary/mean_ttft_ms", "/summary/mean_ttft_ms", true},
		{"/summary", "/summary/mean_ttft_ms", false},
		{"/summary/**", "/summary/mean_ttft_ms", true},
		{"/summary/*_ttft_ms", "/summary/p99_ttft_ms", true},
		{"/summary/*_ttft_ms", "/summary/p99_e2e_ms", false},
		{"/per_request/*/routing_history/**", "/per_request/12/routing_history/1/logical_worker_id", true},
		{"/per_request/*/routing_history/**", "/per_request/12/decode_worker_idx", false},
		{"/**/at_ms", "/coverage/pressure/records/3/at_ms", true},
		{"/**", "/anything/at/all", true},
		{"/per_request/1?/ttft_ms", "/per_request/17/ttft_ms", true},
		{"/per_request/[0-4]/ttft_ms", "/per_request/7/ttft_ms", false},
	}
	for _, c := range cases {
		if got := MatchPattern(c.pat, c.ptr); got != c.want {
			t.Errorf("matchPattern(%q, %q) = %v, want %v", c.pat, c.ptr, got, c.want)
		}
	}
	for _, bad := range []string{"", "summary", "/a/**b", "/a/[z"} {
		if ValidatePattern(bad) == nil {
			t.Errorf("pattern %q should be invalid", bad)
		}
	}
}

// "{a,b}" alternatives name a key set in one segment (a renaming's old and new names): they
// match each alternative as a glob, compose with the other glob forms, and are refused when
// unbalanced, nested or spanning segments; a literal key with braces is escaped.
func TestPatternAlternatives(t *testing.T) {
	for _, c := range []struct {
		pat, ptr string
		want     bool
	}{
		{"/metadata/execution/{aic_x,ais_x}", "/metadata/execution/aic_x", true},
		{"/metadata/execution/{aic_x,ais_x}", "/metadata/execution/ais_x", true},
		{"/metadata/execution/{aic_x,ais_x}", "/metadata/execution/aix_x", false},
		{"/metadata/execution/{aic_x,ais_x}", "/metadata/execution/aic_x/y", false},
		{"/metadata/execution/ai{c,s}_*", "/metadata/execution/ais_prefill_load_estimator", true},
		{"/metadata/*/{engine,dynamo}/**", "/metadata/decode/dynamo/reasoning", true},
		{"/a/{x,y}{1,2}", "/a/y2", true},
		{"/a/{x,}z", "/a/z", true},
		{"/a/[{]x", "/a/{x", true},
		{`/a/\{x,y\}`, "/a/{x,y}", true},
		{`/a/\{x,y\}`, "/a/x", false},
	} {
		if got := MatchPattern(c.pat, c.ptr); got != c.want {
			t.Errorf("matchPattern(%q, %q) = %v, want %v", c.pat, c.ptr, got, c.want)
		}
		if err := ValidatePattern(c.pat); err != nil {
			t.Errorf("%q: %v", c.pat, err)
		}
	}
	for _, bad := range []string{"/a/{x,y", "/a/x}", "/a/{x,{y}}", "/a/{x,**}", "/a/{[z,y}"} {
		if ValidatePattern(bad) == nil {
			t.Errorf("pattern %q should be invalid", bad)
		}
	}
	if p := FieldPattern("/summary/{odd,key}"); p != `/summary/\{odd,key\}` || !MatchPattern(p, "/summary/{odd,key}") || MatchPattern(p, "/summary/odd") {
		t.Errorf("a literal key with braces: %q", p)
	}
}
