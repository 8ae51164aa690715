package corpus

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kvparity/diffview/diagnose"
	"kvparity/engine"
	"kvparity/engine/build"
	"kvparity/internal/procgroup"
	"kvparity/mocker"
	"kvparity/report"
)

// The CI test of the diagnosis corpus is an internal test: it is the package's only user, so
// the package exports nothing. As a test it may use the embedded engine and the row files to
// make its bases.

// corpusSeed fixes the diagnosis corpus: the same bases and seed give the same cases.
const corpusSeed = 20261215

// corpusFloor holds the rates the diagnosis must keep per family ("family top first", in
// percent): what was measured when the corpus was made, rounded down. The lens work raises
// them; the target is top >= 95, first divergence 100, every family >= 90.
const corpusFloor = "testdata/corpus-floor.txt"

// A corpusBase is one real replay the corpus mutates: a window of a shared trace and the
// offline_replay_bench arguments of a realistic row.
type corpusBase struct {
	name          string
	trace         string // file in ../shared/traces
	offset, count int
	args          []string
}

// embeddedBases differ in engine, topology, size and trace window; the first has 1,000
// requests (the corpus's largest pairs).
func embeddedBases(t *testing.T) []corpusBase {
	real, err := engine.LoadRow(filepath.Join(repoRoot(t), "rows", "dynamo-1.5.1-vs-1.6.1.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return []corpusBase{
		{"moon1000-vllm-agg", "mooncake_trace_1000.jsonl", 0, 1000, real.Replay.Args},
		{"conv600-vllm-disagg", "conversation_trace.jsonl", 2000, 600, engine.TinyRow("", "").Replay.Args},
		{"conv300-sglang-agg", "conversation_trace.jsonl", 0, 300, []string{"--num-workers", "2", "--engine-type", "sglang",
			"--block-size", "64", "--num-gpu-blocks", "2000", "--arrival-speedup-ratio", "4", "--trace-block-size", "512"}},
		{"moon400-sglang-disagg", "mooncake_trace_1000.jsonl", 300, 400, []string{"--serving-mode", "disagg",
			"--num-prefill-workers", "1", "--num-decode-workers", "2", "--engine-type", "sglang", "--block-size", "64",
			"--num-gpu-blocks", "3000", "--arrival-speedup-ratio", "8", "--trace-block-size", "512"}},
		{"conv300-vllm-queue", "conversation_trace.jsonl", 5000, 300, []string{"--num-workers", "2", "--engine-type", "vllm",
			"--block-size", "64", "--num-gpu-blocks", "4000", "--max-num-seqs", "8", "--router-queue-threshold", "0.5",
			"--arrival-speedup-ratio", "8", "--trace-block-size", "512"}},
	}
}

// repoRoot is the module's folder (the one with go.mod), above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// sharedTracePath returns ../shared/traces/name beside the repository: missing fails in CI
// and skips elsewhere.
func sharedTracePath(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(repoRoot(t)), "shared", "traces", name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs the shared trace %s: %v", p, err)
		}
		t.Skipf("shared trace not available: %v", err)
	}
	return p
}

// window writes a trace window into dir (the shared traces are read, never copied into the repo).
func window(t *testing.T, dir string, b corpusBase) string {
	t.Helper()
	path := filepath.Join(dir, b.name+".trace.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := report.WriteWindow(sharedTracePath(t, b.trace), b.offset, b.count, f); err != nil {
		t.Fatalf("%s: window: %v", b.name, err)
	}
	return path
}

// replayEmbedded runs the embedded engine in-process and returns its canonical report.
func replayEmbedded(t *testing.T, dir string, b corpusBase) []byte {
	t.Helper()
	out := filepath.Join(dir, b.name+".canonical.jsonl")
	args := append(append([]string(nil), b.args...), "--canonical-reports-jsonl", out, window(t, dir, b))
	var stderr bytes.Buffer
	if code := mocker.Main(args, io.Discard, &stderr); code != 0 {
		t.Fatalf("%s: kvparity replay exited %d: %s", b.name, code, stderr.String())
	}
	rep, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// realDynamoBinary finds a published offline_replay_bench in the build cache (1.6.1
// preferred), or "".
func realDynamoBinary() (bin, version string) {
	cache, err := build.DefaultCache()
	if err != nil {
		return "", ""
	}
	dirs, _ := filepath.Glob(filepath.Join(cache, "*", "build.json"))
	for _, want := range []string{"1.6.1", "1.5.1", ""} {
		for _, d := range dirs {
			var info struct {
				Version, Variant, Binary string
			}
			data, err := os.ReadFile(d)
			if err != nil || json.Unmarshal(data, &info) != nil || info.Variant != "" {
				continue
			}
			if _, err := os.Stat(info.Binary); err == nil && (want == "" || info.Version == want) {
				return info.Binary, info.Version
			}
		}
	}
	return "", ""
}

// replayReal runs the real Dynamo binary on the real row's trace and arguments.
func replayReal(t *testing.T, dir, bin string, b corpusBase) []byte {
	t.Helper()
	out := filepath.Join(dir, b.name+".canonical.jsonl")
	args := append(append([]string(nil), b.args...), "--canonical-reports-jsonl", out, window(t, dir, b))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %s: %v\n%s", b.name, bin, err, stderr.String())
	}
	rep, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// corpusBases replays every base once (the heavy part of the test).
func corpusBases(t *testing.T) []base {
	dir := t.TempDir()
	var bases []base
	add := func(name string, rep []byte) {
		b, err := newBase(name, rep)
		if err != nil {
			t.Fatal(err)
		}
		// The corpus writes reports the way the engine does: a base decoded and encoded again
		// is its own bytes (so every difference in a case is the mutator's).
		if r, err := decode(rep); err != nil || !bytes.Equal(r.Encode(), rep) {
			t.Fatalf("base %s: decoding and encoding it again changes its bytes (%v)", name, err)
		}
		t.Logf("base %s: %s (%d bytes)", name, b.Shape(), len(rep))
		bases = append(bases, b)
	}
	ebs := embeddedBases(t)
	for _, b := range ebs {
		add(b.name, replayEmbedded(t, dir, b))
	}
	bin, version := realDynamoBinary()
	switch {
	case bin != "":
		rb := ebs[0]
		rb.name = "dynamo" + version + "-moon1000-vllm-agg"
		add(rb.name, replayReal(t, dir, bin, rb))
	case os.Getenv("CI") != "":
		t.Fatal("CI builds the real Dynamo arms first (.ci/run), but no offline_replay_bench is in the build cache")
	default:
		t.Log("no real Dynamo binary in the build cache: the corpus has embedded-engine bases only")
	}
	for _, rb := range releaseBases(t, dir) {
		t.Logf("base %s: %s", rb.Name, rb.Shape())
		bases = append(bases, rb)
	}
	return bases
}

// releaseBases replays Dynamo's published releases (ai-dynamo 1.3.1 and 1.4.0, the venvs of
// scripts/release-venvs.sh) on 500 requests of the mooncake trace, aggregated with the KV
// router, and makes each run's records a base of the release family. Without the venvs the
// family has no case (CI makes them and fails here without them).
func releaseBases(t *testing.T, dir string) []base {
	home, _ := os.UserHomeDir()
	var out []base
	for _, v := range []string{"1.3.1", "1.4.0"} {
		venv := filepath.Join(home, ".cache", "kvparity", "venv-"+v)
		if _, err := os.Stat(filepath.Join(venv, "ready")); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI makes the release venvs (.ci/run: bash scripts/release-venvs.sh), but ai-dynamo %s is not ready: %v", v, err)
			}
			t.Logf("ai-dynamo %s not installed (bash scripts/release-venvs.sh): the release family has no case", v)
			return nil
		}
		b := corpusBase{name: "release" + v + "-moon500-agg-kv", trace: "mooncake_trace_1000.jsonl", count: 500}
		records := filepath.Join(dir, b.name+".records.jsonl")
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd := procgroup.Command(ctx, filepath.Join(venv, "bin", "python"), "-m", "dynamo.replay", "--num-workers", "4",
			"--router-mode", "kv_router", "--trace-block-size", "512", "--report-json", filepath.Join(dir, b.name+".summary.json"),
			"--report-jsonl", records, window(t, dir, b))
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("%s: dynamo.replay: %v\n%s", b.name, err, tail(stderr.String(), 2000))
		}
		src, err := os.ReadFile(records)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := releaseBase(b.name, src)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rb)
	}
	return out
}

// releaseVersions are the published releases the release families replay (the venvs of
// scripts/release-venvs.sh), older first.
var releaseVersions = []string{"1.3.1", "1.4.0"}

// releaseVenvsReady says both venvs are made (CI must have them: .ci/run makes them).
func releaseVenvsReady(t *testing.T) bool {
	home, _ := os.UserHomeDir()
	for _, v := range releaseVersions {
		if _, err := os.Stat(filepath.Join(home, ".cache", "kvparity", "venv-"+v, "ready")); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI makes the release venvs (.ci/run: bash scripts/release-venvs.sh), but ai-dynamo %s is not ready: %v", v, err)
			}
			return false
		}
	}
	return true
}

// releasePairCases replays the release-pair family's runs the generator draws from seed
// (releaseReplays: 16 runs of 300 requests, two at a time) and makes its cases.
func releasePairCases(t *testing.T, dir string, seed int64) []mutationCase {
	if !releaseVenvsReady(t) {
		t.Log("ai-dynamo not installed (bash scripts/release-venvs.sh): the release-pair family has no case")
		return nil
	}
	home, _ := os.UserHomeDir()
	runs := releaseReplays(seed, releaseVersions)
	records := make([][]byte, len(runs))
	errs := make([]error, len(runs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				records[i], errs[i] = replayRelease(filepath.Join(home, ".cache", "kvparity", "venv-"+runs[i].Version), dir, runs[i])
			}
		}()
	}
	for _, r := range runs {
		if r.Rep == 1 && r.Version == releaseVersions[0] { // one window per configuration, before the replays read it
			window(t, dir, corpusBase{name: r.Config, trace: r.Trace, offset: r.Offset, count: r.Count})
		}
	}
	for i := range runs {
		work <- i
	}
	close(work)
	wg.Wait()
	byName := map[string][]byte{}
	for i, r := range runs {
		if errs[i] != nil {
			t.Fatalf("%s: %v", r.Name, errs[i])
		}
		byName[r.Name] = records[i]
	}
	return releasePairs(runs, byName)
}

// writeReleaseManifest writes dir/pairs.tsv: one line per release pair (case, A records, B
// records, A summary, B summary), the manifest of scripts/release-pairs.py, so that
// go run ./diffview/internal/releasetable DIR/pairs.tsv tables the corpus's real pairs.
func writeReleaseManifest(t *testing.T, dir string, cases []mutationCase) {
	var b strings.Builder
	for _, c := range cases {
		if len(c.Runs) != 2 {
			continue
		}
		f := func(run, kind string) string { return filepath.Join(dir, run+"."+kind) }
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", c.Case, f(c.Runs[0], "records.jsonl"), f(c.Runs[1], "records.jsonl"), f(c.Runs[0], "summary.json"), f(c.Runs[1], "summary.json"))
	}
	if err := os.WriteFile(filepath.Join(dir, "pairs.tsv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replayRelease runs one release replay on its config's trace window in dir and returns its
// --report-jsonl records.
func replayRelease(venv, dir string, r releaseReplay) ([]byte, error) {
	records := filepath.Join(dir, r.Name+".records.jsonl")
	args := append([]string{"-m", "dynamo.replay"}, r.Args...)
	args = append(args, "--report-json", filepath.Join(dir, r.Name+".summary.json"), "--report-jsonl", records,
		filepath.Join(dir, r.Config+".trace.jsonl"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := procgroup.Command(ctx, filepath.Join(venv, "bin", "python"), args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("dynamo.replay: %v\n%s", err, tail(stderr.String(), 2000))
	}
	return os.ReadFile(records)
}

// tail is the last n bytes of s.
func tail(s string, n int) string { return s[max(0, len(s)-n):] }

// TestDiagnosisCorpus makes the diagnosis corpus from real replays, diffs every case with
// diffview and scores the diagnosis against the truth: identical pairs must be Equal, and
// every family must keep its rates in testdata/corpus-floor.txt.
func TestDiagnosisCorpus(t *testing.T) {
	start := time.Now()
	bases := corpusBases(t)
	basesDone := time.Since(start)
	seed := int64(corpusSeed)
	if v := os.Getenv("KVPARITY_CORPUS_SEED"); v != "" {
		// Another seed draws other variants' positions, magnitudes and bases: a check that the
		// lenses generalize beyond the fixed corpus the floors hold (the floors still apply).
		var err error
		if seed, err = strconv.ParseInt(v, 10, 64); err != nil {
			t.Fatalf("KVPARITY_CORPUS_SEED=%q: %v", v, err)
		}
	}
	dir := os.Getenv("KVPARITY_CORPUS_DIR") // keep the corpus (for the lens work); default: a temporary folder
	if dir == "" {
		dir = t.TempDir()
	}
	// The release pairs' runs are kept beside the cases, with a manifest releasetable reads.
	runs := filepath.Join(dir, "release-runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	pairs := releasePairCases(t, runs, seed)
	writeReleaseManifest(t, runs, pairs)
	cases := append(generate(bases, seed), pairs...)
	cases = append(cases, realCases(t)...) // the committed real pairs (testdata/real, TestRealCorpus)
	for _, p := range problems(cases) {
		t.Errorf("generator: %s", p)
	}
	if err := write(dir, cases); err != nil {
		t.Fatal(err)
	}
	generated := time.Since(start)
	table := score(cases, diagnoseFiles)
	t.Logf("%d cases from %d bases (bases %s, corpus %s, scoring %s)\n\n%s", len(cases), len(bases),
		basesDone.Round(time.Millisecond), (generated - basesDone).Round(time.Millisecond), (time.Since(start) - generated).Round(time.Millisecond), table.String())
	t.Logf("slowest diagnosis while scoring: %s in %s", table.Total.SlowestCase, table.Total.Slowest.Round(time.Microsecond))
	if m := table.Misses(); m != "" {
		t.Logf("cases some column got wrong:\n%s", m)
	}
	if p := os.Getenv("KVPARITY_CORPUS_TABLE"); p != "" {
		if err := os.WriteFile(p, []byte(table.String()), 0o644); err != nil {
			t.Errorf("KVPARITY_CORPUS_TABLE: %v", err)
		}
	}

	// (a) A byte-identical pair has no difference, whatever the lenses do.
	for i, v := range table.Verdicts {
		if c := cases[i]; c.Equal && c.Identical && (v.Err != "" || !v.Result.Equal) {
			t.Errorf("%s: byte-identical reports, but the diff is not Equal (%d pointers, %s)", c.Case, v.Result.Changes, v.Err)
		}
	}
	// (b) No family loses ground.
	for _, fl := range readCorpusFloor(t) {
		tally, ok := table.Family(fl.family)
		if fl.family == "total" {
			tally, ok = table.Total, true
		}
		if !ok || tally.Cases == 0 {
			if (fl.family == "release" || fl.family == releaseFamily) && os.Getenv("CI") != "true" && !hasRelease(bases) {
				continue // (no release venvs here: releaseBases said so)
			}
			t.Errorf("%s: family %q has no cases", corpusFloor, fl.family)
			continue
		}
		if tally.Top*100 < fl.top*tally.Cases {
			t.Errorf("%s: top label right %d/%d, below the floor of %d%%", fl.family, tally.Top, tally.Cases, fl.top)
		}
		if tally.First*100 < fl.first*tally.Cases {
			t.Errorf("%s: first divergence right %d/%d, below the floor of %d%%", fl.family, tally.First, tally.Cases, fl.first)
		}
	}

	// The largest pair, diagnosed alone (score's timings share the CPUs).
	big := 0
	for i, c := range cases {
		if c.Problem == "" && len(c.ReportA)+len(c.ReportB) > len(cases[big].ReportA)+len(cases[big].ReportB) {
			big = i
		}
	}
	t0 := time.Now()
	d, err := diagnose.DiffFiles(cases[big].PathA, cases[big].PathB)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("largest pair %s (%d + %d bytes, %d differing pointers): diff and diagnosis in %s",
		cases[big].Case, len(cases[big].ReportA), len(cases[big].ReportB), len(d.Changes), time.Since(t0).Round(time.Microsecond))
}

// hasRelease says a base is a release replay's.
func hasRelease(bases []base) bool {
	for _, b := range bases {
		if b.Release {
			return true
		}
	}
	return false
}

type floorLine struct {
	family     string
	top, first int
}

// readCorpusFloor reads "family top first" lines (percent; '#' starts a comment).
func readCorpusFloor(t *testing.T) []floorLine {
	t.Helper()
	f, err := os.Open(corpusFloor)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []floorLine
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fs := strings.Fields(line)
		if len(fs) == 0 {
			continue
		}
		top, err1 := strconv.Atoi(strings.TrimSuffix(fs[min(1, len(fs)-1)], "%"))
		first, err2 := strconv.Atoi(strings.TrimSuffix(fs[len(fs)-1], "%"))
		if len(fs) != 3 || err1 != nil || err2 != nil {
			t.Fatalf("%s:%d: want \"family top first\" (percent), got %q", corpusFloor, n, sc.Text())
		}
		out = append(out, floorLine{fs[0], top, first})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no floors", corpusFloor)
	}
	return out
}
