package corpus

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScoringRules(t *testing.T) {
	at := 42.5
	tr := &truth{Primary: "decision-cascade", Secondary: []string{"float-noise"},
		First: &firstDivergence{Pointer: "/per_request/3/routing_history/0/logical_worker_id", AtMs: &at,
			Events: []string{"/per_request/3/routing_history/0", "/per_request/3"}}}
	for _, c := range []struct {
		name                    string
		r                       result
		top, first, secondaries bool
	}{
		{"exact", result{Top: "decision-cascade", Codes: []string{"decision-cascade", "float-noise"}, First: tr.First.Pointer, FirstAtMs: at, FirstTimed: true}, true, true, true},
		{"same instant, same event", result{Top: "decision-cascade", Codes: []string{"decision-cascade"}, First: "/per_request/3/prefill_worker_idx", FirstAtMs: at, FirstTimed: true}, true, true, false},
		{"same instant, another event", result{Top: "tie-order", Codes: []string{"tie-order", "float-noise"}, First: "/per_request/4/uuid", FirstAtMs: at, FirstTimed: true}, false, false, true},
		{"same event, later", result{Top: "decision-cascade", First: "/per_request/3/ttft_ms", FirstAtMs: at + 1, FirstTimed: true}, true, false, false},
		{"said equal", result{Equal: true}, false, false, false},
	} {
		top, first, sec := judge(tr, c.r)
		if top != c.top || first != c.first || sec != c.secondaries {
			t.Errorf("%s: top %v first %v secondary %v, want %v %v %v", c.name, top, first, sec, c.top, c.first, c.secondaries)
		}
	}
	// Configuration: before time 0, any metadata pointer is the same event.
	cfg := &truth{Primary: "configuration", First: &firstDivergence{Pointer: "/metadata/a", BeforeTimeZero: true, Events: []string{"/metadata"}}}
	if _, first, _ := judge(cfg, result{Top: "configuration", First: "/metadata/b", FirstAtMs: math.Inf(-1), FirstTimed: true}); !first {
		t.Error("another metadata pointer before time 0 is the configuration event")
	}
	// Untimed: only the pointer itself.
	un := &truth{Primary: "wall-clock", First: &firstDivergence{Pointer: "/summary/x", Events: []string{"/summary/x"}}}
	if _, first, _ := judge(un, result{Top: "wall-clock", First: "/summary/y"}); first {
		t.Error("an untimed divergence is right only at its pointer")
	}
	// A negative control is right when the diff is equal, in both columns.
	neg := &truth{Primary: equalCode, Equal: true}
	if top, first, _ := judge(neg, result{Equal: true}); !top || !first {
		t.Error("an equal diff of a negative control is right")
	}
	if top, first, _ := judge(neg, result{Top: "number-spelling", First: "/x"}); top || first {
		t.Error("a difference in a negative control is wrong")
	}
}

func TestScoreTalliesFamilies(t *testing.T) {
	b := testBase(t)
	cases := generate([]base{b}, 9)
	dir := t.TempDir()
	if err := write(dir, cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases[:3] {
		if _, err := os.Stat(filepath.Join(dir, c.Case, "truth.json")); err != nil {
			t.Fatalf("no truth next to the case: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "truth.json")); err != nil {
		t.Fatal(err)
	}
	// A diagnosis that always answers "tie-order" at the truth's own pointer.
	byPath := map[string]*mutationCase{}
	for i := range cases {
		byPath[cases[i].PathA] = &cases[i]
	}
	tab := score(cases, func(a, _ string) (result, error) {
		c := byPath[a]
		if c.Equal {
			return result{Equal: true}, nil
		}
		return result{Top: "tie-order", Codes: []string{"tie-order"}, First: c.First.Pointer}, nil
	})
	tie, ok := tab.Family("tie-order")
	if !ok || tie.Cases == 0 || tie.Top != tie.Cases || tie.First != tie.Cases {
		t.Fatalf("tie-order tally %+v", tie)
	}
	if tab.Total.Cases != len(cases) || tab.Total.First != len(cases) {
		t.Fatalf("total %+v of %d cases", tab.Total, len(cases))
	}
	s := tab.String()
	if !strings.Contains(s, "| tie-order | ") || !strings.Contains(s, "| **total** | ") {
		t.Fatalf("table:\n%s", s)
	}
	if !strings.Contains(tab.Misses(), "want id-drift") {
		t.Fatalf("misses do not name what was wanted:\n%s", tab.Misses())
	}
}
