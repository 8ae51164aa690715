package corpus

import (
	"fmt"
	"strings"
	"testing"
)

// A release record as the truth reads it: identity, arrival, lengths, placement and times
// (held = the disaggregated hand-off instant, 0 for none).
type relRec struct {
	uuid                 string
	arrival, held, first float64
	input, worker        int
}

func relRecords(rs []relRec, extra string) []byte {
	var b strings.Builder
	for _, r := range rs {
		held := "null"
		if r.held > 0 {
			held = fmt.Sprint(r.held)
		}
		fmt.Fprintf(&b, `{"uuid":"%s","arrival_time_ms":%v,"input_length":%d,"decode_worker_idx":%d,"source_held_ms":%s,"first_token_ms":%v%s}`+"\n",
			r.uuid, r.arrival, r.input, r.worker, held, r.first, extra)
	}
	return []byte(b.String())
}

// The truth of a real pair is read off the two runs: records alike pair by outcome across a
// renaming; a renaming is a placement tie, the uuids beside it named too (issue 41); placements
// that follow no renaming with every outcome equal are a tie; a placement both runs made at
// the first instant, with times after it moved, a cascade; a hand-off made at another instant,
// the timing model's.
func TestReleasePairTruth(t *testing.T) {
	a := []relRec{{"a1", 0, 0, 5, 100, 0}, {"a2", 0, 0, 6, 100, 1}, {"a3", 2, 0, 9, 120, 2}, {"a4", 4, 0, 12, 130, 0}}
	renamed := []relRec{{"b2", 0, 0, 6, 100, 2}, {"b1", 0, 0, 5, 100, 1}, {"b3", 2, 0, 9, 120, 0}, {"b4", 4, 0, 12, 130, 1}}
	tie := []relRec{{"b1", 0, 0, 5, 100, 0}, {"b2", 0, 0, 6, 100, 1}, {"b3", 2, 0, 9, 120, 0}, {"b4", 4, 0, 12, 130, 0}}
	cascade := []relRec{{"b1", 0, 0, 5, 100, 0}, {"b2", 0, 0, 6, 100, 1}, {"b3", 2, 0, 9, 120, 1}, {"b4", 4, 0, 14.5, 130, 0}}
	da := []relRec{{"a1", 0, 3, 5, 100, 0}, {"a2", 1, 4, 7, 110, 1}}
	moved := []relRec{{"b1", 0, 3, 5, 100, 0}, {"b2", 1, 4.5, 7.5, 110, 0}}
	for _, c := range []struct {
		name     string
		a, b     []relRec
		versions bool
		want     string
	}{
		// (a renaming is a placement tie beside the uuids, between versions too: issue 41)
		{"renamed", a, renamed, false, "tie-order"},
		{"renamed between versions", a, renamed, true, "tie-order"},
		{"tie", a, tie, false, "tie-order"},
		{"cascade", a, cascade, false, "decision-cascade"},
		{"hand-off moved", da, moved, true, "timing-change"},
	} {
		extra := ""
		if c.versions {
			extra = `,"terminal_time_ms":1`
		}
		va, vb := "1.3.1", "1.3.1"
		if c.versions {
			vb = "1.4.0"
		}
		ra := releaseReplay{Name: "A", Version: va, Config: "x", Rep: 1}
		rb := releaseReplay{Name: "B", Version: vb, Config: "x", Rep: 2}
		got := releasePair("v", ra, rb, map[string][]byte{"A": relRecords(c.a, ""), "B": relRecords(c.b, extra)})
		if got.Problem != "" || got.Primary != c.want {
			t.Errorf("%s: primary %q (problem %q, %s), want %q", c.name, got.Primary, got.Problem, got.Detail, c.want)
		}
		if got.First == nil {
			t.Errorf("%s: no first divergence", c.name)
		}
		if strings.HasPrefix(c.name, "renamed") && (len(got.Secondary) != 1 || got.Secondary[0] != "id-drift") {
			t.Errorf("%s: secondary %v, want the uuids' id-drift", c.name, got.Secondary)
		}
	}
	// One version timed otherwise before any placement differs: no known cause, said.
	got := releasePair("v", releaseReplay{Name: "A", Version: "1.3.1"}, releaseReplay{Name: "B", Version: "1.3.1"},
		map[string][]byte{"A": relRecords(da, ""), "B": relRecords(moved, "")})
	if !strings.Contains(got.Problem, "before any placement: no known cause") {
		t.Errorf("one version, moved hand-off: problem %q, primary %q", got.Problem, got.Primary)
	}
}

// releaseReplays covers both topologies and both routers, every configuration twice on every
// version, and draws the same runs from the same seed.
func TestReleaseReplaysDraw(t *testing.T) {
	runs := releaseReplays(7, []string{"1.3.1", "1.4.0"})
	if len(runs) != 16 {
		t.Fatalf("%d runs", len(runs))
	}
	seen := map[string]bool{}
	for _, r := range runs {
		args := strings.Join(r.Args, " ")
		topo := "agg"
		if strings.Contains(args, "--num-decode-workers") {
			topo = "disagg"
		}
		seen[topo+" "+r.Args[len(r.Args)-5]] = true
		if r.Offset < 0 || r.Count != releasePairRequests {
			t.Errorf("%s: window %d+%d", r.Name, r.Offset, r.Count)
		}
	}
	for _, want := range []string{"agg kv_router", "agg round_robin", "disagg kv_router", "disagg round_robin"} {
		if !seen[want] {
			t.Errorf("no %s run (%v)", want, seen)
		}
	}
	if again := releaseReplays(7, []string{"1.3.1", "1.4.0"}); fmt.Sprint(again) != fmt.Sprint(runs) {
		t.Error("the same seed drew other runs")
	}
}
