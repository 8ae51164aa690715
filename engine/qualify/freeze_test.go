package qualify

import (
	"strings"
	"testing"

	"kvparity/engine"
)

const rowText = `# a row the developer wrote; this comment stays
name = "r"

[baseline]
revision = "builtin"
binary   = "builtin"

[candidate]
revision = "builtin"
binary   = "builtin"

[trace]
path  = "generated:conversation?seed=7&requests=200"
count = 200

[replay]
args = ["--num-workers","4",
        "--num-gpu-blocks","5500", "--block-size","64"]

[determinism]
repetitions = 2
`

func qualified(chosen int) Result {
	p := func(purpose string, c, n int, class Class) Probe {
		return Probe{ProbeRun: engine.ProbeRun{ProbeRequest: engine.ProbeRequest{Purpose: purpose, Value: c}, Digest: "8b964f6378b9aaaa"}, Point: Point{Capacity: c, Count: n, Class: class}, Kind: "preemptions"}
	}
	cand := p("candidate", chosen, 13, InBand)
	return Result{Outcome: Qualified, Flag: DefaultFlag, Band: Band{10, 20}, Chosen: chosen, Digest: "8b964f6378b9aaaa",
		Search:    []Probe{p("search", 5500, 5, Below), p("search", 3712, 41, Above), p("search", chosen, 16, InBand)},
		Confirm:   []Probe{p("confirm", chosen, 16, InBand), p("confirm", chosen, 16, InBand)},
		Candidate: &cand}
}

func TestFreezeSetsTheCapacityAndBandAndKeepsTheRest(t *testing.T) {
	out, err := Freeze([]byte(rowText), "r.toml", qualified(4608), "on the pinned baseline (builtin), 2026-12-06")
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		"# a row the developer wrote; this comment stays\n",
		`"--num-gpu-blocks","4608"`,
		"[determinism]\npressure_band = [10, 20]\nrepetitions = 2\n",
		"# Qualified by kvparity qualify (protocol stage 3): on the pinned baseline (builtin), 2026-12-06.\n# --num-gpu-blocks 4608 gives 16 preemptions (band 10–20), fully readmitted; 3 fresh processes\n",
		"Nearby probes: 41 at 3712, 5 at 5500.",
		"The\n# candidate at the same capacity (never tuned separately): 13 preemptions (inside the band; digest\n# 8b964f6378b9).\n[replay]\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the frozen row lacks %q:\n%s", want, s)
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if len(line) > 100 {
			t.Errorf("line of %d characters: %q", len(line), line)
		}
	}
	// Qualified again: one table, the new one; the band line replaced, not added.
	again, err := Freeze(out, "r.toml", qualified(4736), "on the pinned baseline (crate:dynamo-bench@1.5.1), 2026-12-06")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(again), "\n") {
		if len(line) > 100 {
			t.Errorf("line of %d characters: %q", len(line), line)
		}
	}
	if n := strings.Count(string(again), commentHead); n != 1 || !strings.Contains(string(again), `"4736"`) || strings.Count(string(again), "pressure_band") != 1 {
		t.Fatalf("re-frozen row:\n%s", again)
	}
}

func TestFreezeRefusesWhatItCannotFreeze(t *testing.T) {
	if _, err := Freeze([]byte(rowText), "r.toml", Result{Outcome: NotReached, Why: "no capacity gives 1–3"}, ""); err == nil || !strings.Contains(err.Error(), "r.toml: nothing to freeze: NOT REACHED") {
		t.Fatalf("err = %v", err)
	}
	noFlag := strings.Replace(rowText, `"--num-gpu-blocks","5500", `, "", 1)
	if _, err := Freeze([]byte(noFlag), "r.toml", qualified(4608), ""); err == nil || !strings.Contains(err.Error(), `r.toml: [replay] args: no "--num-gpu-blocks" followed by a quoted number`) {
		t.Fatalf("err = %v", err)
	}
}

// A built-in row is frozen from the campaign's encoded copy, whose table keys the TOML encoder
// indents: its declared band is replaced in place, not declared twice (`kvparity qualify --row
// tiny` said "Key 'determinism.pressure_band' has already been defined").
func TestFreezeReplacesAnIndentedBand(t *testing.T) {
	row, err := engine.TinyRow("", "").Encode()
	if err != nil {
		t.Fatal(err)
	}
	r := qualified(1800)
	r.Band = Band{Min: 1, Max: 8}
	out, err := Freeze(row, "row.toml", r, "on the pinned baseline (builtin), 2026-12-06")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "pressure_band ="); n != 1 || !strings.Contains(string(out), "\n  pressure_band = [1, 8]\n") {
		t.Errorf("%d band lines, or not in place:\n%s", n, out)
	}
}
