package corpus

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Remaking testdata/real (issue 41 item 5): from the pairs scripts/release-pairs.py wrote
// (both manifests) and the triangle's reduced reports in diffview/testdata; -real-triangle
// names a folder with the triangle's full reports (1.4.2.jsonl, 1.5.1.jsonl, 1.6.1.jsonl) to
// check that the reduced ones read the full ones' truth.
//
//	python3 scripts/release-pairs.py && python3 scripts/release-pairs.py --heldout
//	go test ./diffview/internal/corpus -run TestRealCorpus -update-real-corpus [-real-triangle DIR]
var (
	updateRealCorpus = flag.Bool("update-real-corpus", false, "remake testdata/real from the release pairs' manifests")
	realPairsFlag    = flag.String("real-pairs", "~/.cache/kvparity/release-pairs/pairs.tsv,~/.cache/kvparity/release-heldout/pairs.tsv",
		"the manifests of scripts/release-pairs.py (comma-separated)")
	realTriangleFlag = flag.String("real-triangle", "", "a folder with the triangle's full canonical reports (1.4.2.jsonl, 1.5.1.jsonl, 1.6.1.jsonl)")
)

// The triangle: published offline_replay_bench 1.4.2, 1.5.1 and 1.6.1 (dynamo-bench with
// replay-bench) on the mooncake trace's 1,000 requests, 4 aggregated vLLM workers, KV router
// (rows/dynamo-1.5.1-vs-1.6.1.toml's arguments), reduced to the same 21 records
// (diffview/testdata/dynamo-1.5.1-vs-1.6.1/reduce.go).
var triangleReports = []struct{ version, file string }{
	{"1.4.2", "../../../../testdata/dynamo-1.4.2/report.jsonl"},
	{"1.5.1", "../../../../testdata/dynamo-1.5.1-vs-1.6.1/baseline-sections.jsonl"},
	{"1.6.1", "../../../../testdata/dynamo-1.5.1-vs-1.6.1/candidate-sections.jsonl"},
}

const triangleSource = "published dynamo-bench offline_replay_bench (feature replay-bench) 1.4.2, 1.5.1 and 1.6.1, " +
	"mooncake_trace_1000.jsonl (1,000 requests), --num-workers 4 --engine-type vllm --block-size 64 --num-gpu-blocks 16000 " +
	"--arrival-speedup-ratio 4 --trace-block-size 512, each STABLE (two runs, one digest)"

// TestRealCorpus scores the committed real cases alone (no replay: they are testdata), after
// checking that each case's truth is what its reports say, and keeps their families' floors.
func TestRealCorpus(t *testing.T) {
	if *updateRealCorpus {
		remakeRealCorpus(t)
	}
	cases := realCases(t)
	dir := t.TempDir()
	if err := write(dir, cases); err != nil {
		t.Fatal(err)
	}
	table := score(cases, diagnoseFiles)
	t.Logf("%d real cases\n\n%s", len(cases), table.String())
	if m := table.Misses(); m != "" {
		t.Logf("cases some column got wrong:\n%s", m)
	}
	for _, fl := range readCorpusFloor(t) {
		if fl.family != realReleaseFamily && fl.family != triangleFamily {
			continue
		}
		tally, ok := table.Family(fl.family)
		if !ok || tally.Cases == 0 {
			t.Errorf("family %q has no cases", fl.family)
			continue
		}
		if tally.Top*100 < fl.top*tally.Cases {
			t.Errorf("%s: top label right %d/%d, below the floor of %d%%", fl.family, tally.Top, tally.Cases, fl.top)
		}
		if tally.First*100 < fl.first*tally.Cases {
			t.Errorf("%s: first divergence right %d/%d, below the floor of %d%%", fl.family, tally.First, tally.Cases, fl.first)
		}
	}
}

// realCases loads testdata/real and checks every committed truth against its reports.
func realCases(t *testing.T) []mutationCase {
	t.Helper()
	cases, rcs, err := loadRealCases(realCorpusDir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		got, err := rereadTruth(&cases[i], &rcs[i])
		if err != nil {
			t.Errorf("%s: its truth cannot be read again: %v", rcs[i].Case, err)
			continue
		}
		b, _ := decode(cases[i].ReportB)
		if why := sameTruth(&rcs[i].truth, &got, b, b); why != "" {
			t.Errorf("%s: the committed truth is not what its reports say: %s", rcs[i].Case, why)
		}
	}
	return cases
}

// remakeRealCorpus writes testdata/real: the reduced release runs and cases.json.
func remakeRealCorpus(t *testing.T) {
	home, _ := os.UserHomeDir()
	seen := map[string]*realRun{}
	var pairs []realPair
	for _, m := range strings.Split(*realPairsFlag, ",") {
		m = strings.Replace(m, "~", home, 1)
		src := "scripts/release-pairs.py"
		if strings.Contains(m, "heldout") {
			src += " --heldout"
		}
		ps, err := readRealPairs(m, src, seen)
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, ps...)
	}
	cases, runs, err := reduceReleasePairs(pairs, t.TempDir(), t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, triangleCases(t)...)
	out := filepath.Join(realCorpusDir, "releases")
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(runs))
	for n := range runs {
		names = append(names, n)
	}
	slices.Sort(names)
	size := 0
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(out, n+".jsonl"), runs[n], 0o644); err != nil {
			t.Fatal(err)
		}
		size += len(runs[n])
	}
	m := realManifest{
		About: "issue 41 item 5: real pairs with their truth, reduced (go test ./diffview/internal/corpus -run TestRealCorpus -update-real-corpus; diffview/internal/corpus/real_corpus.go)",
		Cases: cases,
	}
	if err := writeJSON(filepath.Join(realCorpusDir, "cases.json"), m); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d cases, %d reduced runs (%d bytes)", len(cases), len(runs), size)
}

// triangleCases makes the triangle's edges (older against newer) from the reduced reports,
// checked against the full reports when -real-triangle names them.
func triangleCases(t *testing.T) []realCase {
	var out []realCase
	for i := range triangleReports {
		for j := i + 1; j < len(triangleReports); j++ {
			x, y := triangleReports[i], triangleReports[j]
			tr, b := triangleTruth(t, filepath.Join(realCorpusDir, filepath.FromSlash(x.file)), filepath.Join(realCorpusDir, filepath.FromSlash(y.file)))
			tr.Base = x.version + "-vs-" + y.version
			tr.Family, tr.Variant = triangleFamily, "versions"
			tr.Case = fmt.Sprintf("y%02d-%s-%s", len(out), triangleFamily, tr.Base)
			tr.FileA, tr.FileB = x.file, y.file
			reduced := fmt.Sprintf("the %d records of diffview/testdata's reduced reports (requests 0x01-0x10 and 0x44-0x48), every other member whole", len(b.Requests()))
			if *realTriangleFlag != "" {
				ft, fb := triangleTruth(t, filepath.Join(*realTriangleFlag, x.version+".jsonl"), filepath.Join(*realTriangleFlag, y.version+".jsonl"))
				if why := sameTruth(&ft, &tr, fb, b); why != "" {
					t.Fatalf("%s: the reduced reports do not read the full ones' truth: %s", tr.Base, why)
				}
				reduced += fmt.Sprintf(" (the full pair reads the same truth: %s)", ft.Detail)
			}
			out = append(out, realCase{truth: tr, Format: formatCanonical, Source: triangleSource, Reduced: reduced})
		}
	}
	return out
}

func triangleTruth(t *testing.T, pa, pb string) (truth, *reportTree) {
	t.Helper()
	var reps [2]*reportTree
	for i, p := range []string{pa, pb} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if reps[i], err = decode(data); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	var tr truth
	if err := readTriangleTruth(&tr, reps[0], reps[1]); err != nil {
		t.Fatalf("%s vs %s: %v", pa, pb, err)
	}
	return tr, reps[1]
}

// The real pairs' truth names what is beside the primary: a request on another worker with
// every other value equal (a placement tie inside a cascade), one version's record members and
// the random uuids; a pair of one version with no tie names the uuids alone.
func TestRealReleaseTruthNamesWhatIsBeside(t *testing.T) {
	a := []relRec{{"a1", 0, 0, 5, 100, 0}, {"a2", 0, 0, 6, 100, 1}, {"a3", 2, 0, 9, 120, 2}, {"a4", 4, 0, 12, 130, 0}}
	cascade := []relRec{{"b1", 0, 0, 5, 100, 0}, {"b2", 0, 0, 6, 100, 1}, {"b3", 2, 0, 9, 120, 1}, {"b4", 4, 0, 14.5, 130, 0}}
	moved := []relRec{{"b1", 0, 0, 5, 100, 0}, {"b2", 0, 0, 6, 100, 1}, {"b3", 2, 0, 9, 120, 2}, {"b4", 4, 0, 14.5, 130, 0}}
	for _, c := range []struct {
		name          string
		b             []relRec
		versions      bool
		primary, secs string
	}{
		{"cascade with a tie", cascade, false, "decision-cascade", "[tie-order id-drift]"},
		{"cascade between versions", cascade, true, "decision-cascade", "[tie-order schema-change id-drift]"},
		{"moved between versions", moved, true, "timing-change", "[schema-change id-drift]"},
	} {
		extra := ""
		if c.versions {
			extra = `,"terminal_time_ms":1`
		}
		ra, err := releaseReport("A", relRecords(a, ""))
		if err != nil {
			t.Fatal(err)
		}
		rb, err := releaseReport("B", relRecords(c.b, extra))
		if err != nil {
			t.Fatal(err)
		}
		var tr truth
		if err := readRealReleaseTruth(&tr, ra, rb, c.versions); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if tr.Primary != c.primary || fmt.Sprint(tr.Secondary) != c.secs {
			t.Errorf("%s: %s %v, want %s %s (%s)", c.name, tr.Primary, tr.Secondary, c.primary, c.secs, tr.Detail)
		}
	}
}
