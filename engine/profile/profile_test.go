package profile

import (
	"math"
	"strings"
	"testing"
)

// Three samples of the replay (one in the slowdown, two in the loop) and one of taskset.
const script = `kvp 
	           4a1b2 kvparity/mocker.slowdownWork
	           4a3c4 kvparity/mocker.(*sim).slowdown
	           4b000 kvparity/mocker.(*sim).run

kvp 
	           4c000 kvparity/mocker.(*sim).drain
	           4b000 kvparity/mocker.(*sim).run

kvp 
	           4c000 kvparity/mocker.(*sim).drain (/tmp/kvp)
	           4b000 kvparity/mocker.(*sim).run (/tmp/kvp)

taskset 
	ffffffff815a32a0 filemap_map_pages

`

func TestParseScriptFoldsSelfTimeAndPaths(t *testing.T) {
	p, err := ParseScript(strings.NewReader(script), "kvp")
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples != 3 || p.self["kvparity/mocker.(*sim).drain"] != 2 || p.self["kvparity/mocker.slowdownWork"] != 1 {
		t.Fatalf("samples %d, self %v", p.Samples, p.self)
	}
	if n := p.paths["kvparity/mocker.slowdownWork ← kvparity/mocker.(*sim).slowdown ← kvparity/mocker.(*sim).run"]; n != 1 {
		t.Fatalf("paths %v", p.paths)
	}
	if _, err := ParseScript(strings.NewReader("\t123 orphan\n"), ""); err == nil {
		t.Fatal("a frame before any header must be refused")
	}
}

// Two runs of one arm added are one profile of both: the samples, self time and paths sum.
func TestAddFoldsTwoRunsIntoOne(t *testing.T) {
	p, _ := ParseScript(strings.NewReader(script), "kvp")
	q, _ := ParseScript(strings.NewReader(script), "kvp")
	p.Add(q)
	if p.Samples != 6 || p.self["kvparity/mocker.(*sim).drain"] != 4 || p.self["kvparity/mocker.slowdownWork"] != 2 {
		t.Fatalf("samples %d, self %v", p.Samples, p.self)
	}
	if n := p.paths["kvparity/mocker.(*sim).drain ← kvparity/mocker.(*sim).run"]; n != 4 {
		t.Fatalf("paths %v", p.paths)
	}
}

// The slowdown's function is the top self-time delta, flagged as sampled only in the
// candidate; the path through it grew.
func TestCompareRanksTheGrowth(t *testing.T) {
	base, _ := ParseScript(strings.NewReader(strings.Replace(script, "slowdownWork", "drain2", 1)), "kvp")
	cand, _ := ParseScript(strings.NewReader(script+strings.Repeat("kvp \n\t1 kvparity/mocker.slowdownWork\n\t2 kvparity/mocker.(*sim).slowdown\n\n", 3)), "kvp")
	d := Compare(base, cand)
	top := d.Top(1)[0]
	if top.Function != "kvparity/mocker.slowdownWork" || !top.OnlyCandidate || math.Abs(top.Candidate-4.0/6) > 1e-9 || top.Baseline != 0 {
		t.Fatalf("top %+v", top)
	}
	if len(d.Paths) == 0 || !strings.HasPrefix(d.Paths[0].Path, "kvparity/mocker.slowdownWork") {
		t.Fatalf("paths %+v", d.Paths)
	}
}

func TestTextDeltaAttributesGrowth(t *testing.T) {
	base, err := Symbols(strings.NewReader("0000000000401000 0000000000000010 T main\n0000000000401010 0000000000000020 t helper\n                 U printf\n0000000000402000 0000000000000008 D data\n"))
	if err != nil {
		t.Fatal(err)
	}
	cand, _ := Symbols(strings.NewReader("0000000000401000 0000000000000010 T main\n0000000000401010 0000000000000040 t helper\n0000000000401050 0000000000000100 t new_mono<u32>\n"))
	g := TextDelta(base, cand)
	if g.BaselineBytes != 0x30 || g.CandidateBytes != 0x150 || g.OnlyCandidate != 1 || len(g.Grown) != 2 || g.Grown[0].Symbol != "new_mono<u32>" || g.Grown[1].Delta != 0x20 {
		t.Fatalf("%+v", g)
	}
	if _, err := Symbols(strings.NewReader("0 zz T bad\n")); err == nil || !strings.Contains(err.Error(), "nm line 1") {
		t.Fatalf("a bad size must name the line: %v", err)
	}
}
