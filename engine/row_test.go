package engine

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// designRow is DESIGN.md's example row, verbatim.
const designRow = `name = "vllm-disagg"
[baseline]
revision = "a1b2c3d"
binary   = "builtin"
features = ["replay-bench"]
[candidate]
revision = "e4f5a6b"
binary   = "builtin"
features = ["replay-bench"]
[trace]
path   = "conversation_trace.jsonl"
offset = 0
count  = 5000
sha256 = "b8cbb061a85206d729d91cdc2981f43c9e0d99209dce588d3af5f7934408b9df"
[replay]
args = ["--serving-mode","disagg","--num-prefill-workers","2","--num-decode-workers","2",
        "--engine-type","vllm","--block-size","64","--num-gpu-blocks","5500","--max-num-seqs","16",
        "--max-num-batched-tokens","8192","--kv-bytes-per-token","1","--kv-transfer-bandwidth","100",
        "--arrival-speedup-ratio","4","--trace-block-size","512"]
[determinism]
repetitions = 2
[perf]
pairs = 60
warmups_per_arm = 5
schedule_seed = 20261129
threshold = 1.05
timing_field = "replay_execution_ms"
[canonical]
exclusions = ["/summary/wall_time_ms","/summary/processed_tokens_per_s","/summary/processed_output_tokens_per_s"]
unordered = { "/per_request" = "uuid" }
`

func TestParseRowDesignExample(t *testing.T) {
	r, err := ParseRow([]byte(designRow), "row.toml")
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "vllm-disagg" || r.Baseline.Binary != builtinBinary || r.Trace.Count != 5000 || r.Perf.Pairs != 60 ||
		r.Perf.ScheduleSeed != 20261129 || r.Canonical.Unordered["/per_request"] != "uuid" || len(r.Replay.Args) != 24 {
		t.Fatalf("decoded %+v", r)
	}
	if r.Determinism.Timeout.Duration != defaultTimeout {
		t.Errorf("timeout default %v", r.Determinism.Timeout)
	}
	if r.ReplayArg("--num-gpu-blocks") != "5500" || r.ReplayArg("--router-queue-threshold") != "" {
		t.Errorf("ReplayArg: %q", r.ReplayArg("--num-gpu-blocks"))
	}
	r.Replay.Args = append(r.Replay.Args, "--router-queue-threshold=0.5")
	if r.ReplayArg("--router-queue-threshold") != "0.5" || !r.queueThresholdSet() {
		t.Error("--flag=value form not read")
	}
	r.Replay.Args = r.Replay.Args[:len(r.Replay.Args)-1]
	if !r.disaggregated() || r.Band() != [2]int{10, 20} || r.queueThresholdSet() {
		t.Errorf("derived: disagg %v band %v queue %v", r.disaggregated(), r.Band(), r.queueThresholdSet())
	}
}

// sourceArms is the design row with both arms built from a published crate, with the given
// profile keys ("" leaves the key out).
func sourceArms(s, baseProfile, candProfile string) string {
	arm := func(profile string) string {
		a := "source = \"crate:dynamo-bench@1.6.1\"\nfeatures = [\"replay-bench\"]\n"
		if profile != "" {
			a += "profile = \"" + profile + "\"\n"
		}
		return a
	}
	s = regexp.MustCompile(`(?s)\[baseline\]\n.*?\n\[`).ReplaceAllLiteralString(s, "[baseline]\n"+arm(baseProfile)+"[")
	return regexp.MustCompile(`(?s)\[candidate\]\n.*?\n\[`).ReplaceAllLiteralString(s, "[candidate]\n"+arm(candProfile)+"[")
}

func TestParseRowErrorsNameTheKey(t *testing.T) {
	cases := []struct {
		edit func(string) string
		want string
	}{
		{func(s string) string { return strings.Replace(s, "pairs = 60", "pairs = 0", 1) }, "row.toml: [perf] pairs: 0 is out of bounds: must be 2..10000"},
		{func(s string) string { return strings.Replace(s, "pairs = 60", "pairs = 61", 1) }, "row.toml: [perf] pairs: must be even"},
		{func(s string) string { return strings.Replace(s, "pairs = 60", "pairz = 60", 1) }, "row.toml: [perf] pairz: unknown key"},
		{func(s string) string {
			return strings.Replace(s, `name = "vllm-disagg"`, `name = "vllm-disagg"`+"\ncolour = 1", 1)
		}, "row.toml: colour: unknown key"},
		{func(s string) string { return strings.Replace(s, "count  = 5000", "count  = 0", 1) }, "row.toml: [trace] count: must be > 0"},
		{func(s string) string { return strings.Replace(s, "offset = 0", "offset = -1", 1) }, "row.toml: [trace] offset: must be >= 0"},
		{func(s string) string { return strings.Replace(s, "sha256 = \"b8cb", "sha256 = \"zz", 1) }, "row.toml: [trace] sha256:"},
		{func(s string) string { return strings.Replace(s, "repetitions = 2", "repetitions = 1", 1) }, "row.toml: [determinism] repetitions: 1 is out of bounds: must be 2..1000"},
		{func(s string) string {
			return strings.Replace(s, "repetitions = 2", "repetitions = 2\nperturbations = [\"tz\", \"moon-phase\"]", 1)
		}, `row.toml: [determinism] perturbations[1]: "moon-phase" is not a variation (one of all-cores, threads,`},
		{func(s string) string {
			return strings.Replace(s, "repetitions = 2", "repetitions = 2\nperturbations = [\"tz\", \"tz\"]", 1)
		}, `row.toml: [determinism] perturbations[1]: "tz" is listed twice`},
		{func(s string) string { return strings.Replace(s, "threshold = 1.05", "threshold = -1.0", 1) }, "row.toml: [perf] threshold: -1 is out of bounds"},
		{func(s string) string {
			return strings.Replace(s, `timing_field = "replay_execution_ms"`, `timing_field = "wall_time_ms"`, 1)
		}, "row.toml: [perf] timing_field: wall_time_ms is broader"},
		{func(s string) string {
			return strings.Replace(s, `timing_field = "replay_execution_ms"`, `timing_field = "replay_call_ms"`, 1)
		}, "declare it with timing_proxy = true"},
		{func(s string) string {
			return strings.Replace(s, "revision = \"e4f5a6b\"\nbinary   = \"builtin\"", "revision = \"main\"\nbinary   = \"/bin/true\"", 1)
		}, "row.toml: [candidate] revision: \"main\" is not an immutable commit SHA"},
		{func(s string) string {
			return strings.Replace(s, "binary   = \"builtin\"\nfeatures", "binary   = \"/bin/true\"\nvariant = \"x\"\nfeatures", 1)
		}, "row.toml: [baseline] variant: only a builtin binary takes a variant"},
		{func(s string) string {
			return strings.Replace(s, `"--trace-block-size","512"]`, `"--trace-block-size","512","--iterations","3"]`, 1)
		}, "row.toml: [replay] args[24]: --iterations is set by kvparity"},
		{func(s string) string {
			return strings.Replace(s, `"/summary/wall_time_ms",`, `"summary/wall_time_ms",`, 1)
		}, "row.toml: [canonical] exclusions[0]: \"summary/wall_time_ms\" is not a JSON pointer"},
		{func(s string) string { return strings.Replace(s, "pairs = 60", "pairs = \"sixty\"", 1) }, "row.toml: line"},
		// Bounds (issue 13 case 2): documented in docs/guide.md "The row file".
		{func(s string) string { return strings.Replace(s, "pairs = 60", "pairs = 1000000000", 1) }, "row.toml: [perf] pairs: 1000000000 is out of bounds: must be 2..10000"},
		{func(s string) string { return strings.Replace(s, "warmups_per_arm = 5", "warmups_per_arm = 1001", 1) }, "row.toml: [perf] warmups_per_arm: 1001 is out of bounds: must be 0..1000"},
		{func(s string) string { return strings.Replace(s, "warmups_per_arm = 5", "warmups_per_arm = -1", 1) }, "row.toml: [perf] warmups_per_arm:"},
		{func(s string) string { return strings.Replace(s, "repetitions = 2", "repetitions = 1001", 1) }, "row.toml: [determinism] repetitions: 1001 is out of bounds"},
		{func(s string) string { return strings.Replace(s, "threshold = 1.05", "threshold = inf", 1) }, "row.toml: [perf] threshold: +Inf is out of bounds"},
		{func(s string) string { return strings.Replace(s, "threshold = 1.05", "threshold = nan", 1) }, "row.toml: [perf] threshold: NaN is out of bounds"},
		{func(s string) string {
			return strings.Replace(s, "warmups_per_arm = 5", "warmups_per_arm = 5\ninstructions_runs = 2", 1)
		}, "row.toml: [perf] instructions_runs: 2 is out of bounds: must be 3..100"},
		{func(s string) string {
			return strings.Replace(s, "warmups_per_arm = 5", "warmups_per_arm = 5\ninstructions_threshold = 0.97", 1)
		}, "row.toml: [perf] instructions_threshold: 0.97 is out of bounds"},
		{func(s string) string { return strings.Replace(s, "threshold = 1.05", "threshold = 1e300", 1) }, "row.toml: [perf] threshold: 1e+300 is out of bounds"},
		{func(s string) string { return strings.Replace(s, "threshold = 1.05", "threshold = 1.0", 1) }, "row.toml: [perf] threshold: 1 is out of bounds: must be a finite ratio in (1, 2]"},
		{func(s string) string { return strings.Replace(s, "threshold = 1.05", "threshold = 0.5", 1) }, "row.toml: [perf] threshold: 0.5 is out of bounds"},
		{func(s string) string {
			return strings.Replace(s, "[determinism]\n", "[determinism]\ntimeout = \"25h\"\n", 1)
		}, "row.toml: [determinism] timeout: 25h0m0s is out of bounds: must be > 0 and <= 24h0m0s"},
		{func(s string) string {
			return strings.Replace(s, "[determinism]\n", "[determinism]\npressure_band = [1, 1000001]\n", 1)
		}, "row.toml: [determinism] pressure_band: must be [lo, hi] with 1 <= lo <= hi <= 1000000"},
		// Pointers (issue 13 case 3): RFC 6901 at load, naming the file and [canonical].
		{func(s string) string {
			return strings.Replace(s, `"/summary/wall_time_ms",`, `"/summary/wall~2time",`, 1)
		}, "row.toml: [canonical] exclusions[0]: \"/summary/wall~2time\" is not an RFC 6901 JSON pointer"},
		{func(s string) string {
			return strings.Replace(s, `unordered = { "/per_request" = "uuid" }`, `unordered = { "/per~request" = "uuid" }`, 1)
		}, "row.toml: [canonical] unordered: \"/per~request\" is not an RFC 6901 JSON pointer"},
		{func(s string) string {
			return strings.Replace(s, "[determinism]\n", "[determinism]\ntimeout = \"soon\"\n", 1)
		}, "not a duration"},
		{func(s string) string {
			return strings.Replace(s, "[determinism]\n", "[determinism]\npressure_band = [0, 3]\n", 1)
		}, "row.toml: [determinism] pressure_band:"},
		{func(s string) string { return strings.Replace(s, `name = "vllm-disagg"`, `name = "a/b"`, 1) }, "row.toml: name:"},
		{func(s string) string {
			return strings.Replace(s, "[determinism]\n", "[determinism]\npatch_sha256 = \"ABC\"\n", 1)
		}, "row.toml: [determinism] patch_sha256: \"ABC\" is not 64 lowercase hex digits"},
		{func(s string) string {
			return strings.Replace(s, "[determinism]\n", "[determinism]\npatch_file = \"x.patch\"\n", 1)
		}, "row.toml: [determinism] patch_file: unknown key"},
		// The desk profile (issue 44): only for sources kvparity builds, one profile for both arms.
		{func(s string) string {
			return strings.Replace(s, "binary   = \"builtin\"\nfeatures", "binary   = \"builtin\"\nprofile = \"desk\"\nfeatures", 1)
		}, "row.toml: [baseline] profile: only a source kvparity builds takes a build profile"},
		{func(s string) string { return sourceArms(s, "desk", "") }, "row.toml: [candidate] profile: release, but the baseline's is desk: both arms are built with one profile"},
		{func(s string) string { return sourceArms(s, "fast", "fast") }, `row.toml: [baseline] profile: "fast" is not a build profile: "release" (the checkout's release profile, what an arm without the key builds) or "desk"`},
	}
	if _, err := ParseRow([]byte(sourceArms(designRow, "desk", "desk")), "row.toml"); err != nil {
		t.Errorf("a desk row: %v", err)
	}
	for _, tc := range cases {
		_, err := ParseRow([]byte(tc.edit(designRow)), "row.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want error containing %q, got %v", tc.want, err)
		}
	}
}

func TestExampleRowParsesAndMatchesDefaultRow(t *testing.T) {
	r, err := ParseRow([]byte(ExampleRowTOML), "example.toml")
	if err != nil {
		t.Fatal(err)
	}
	d := DefaultRow()
	if !slices.Equal(r.Replay.Args, d.Replay.Args) || r.Trace != d.Trace || r.Perf != d.Perf || r.Determinism.Repetitions != d.Determinism.Repetitions {
		t.Fatalf("init-row example and DefaultRow disagree:\n%+v\n%+v", r, d)
	}
	if err := d.validate("default"); err != nil {
		t.Fatal(err)
	}
	if err := TinyRow("", "leak-random-uuid").validate("tiny"); err != nil {
		t.Fatal(err)
	}
}

func TestFrozenRowRoundTrips(t *testing.T) {
	d := DefaultRow()
	d.Determinism.Timeout = Duration{90 * time.Second}
	b, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRow(b, "frozen")
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	b2, _ := r.Encode()
	if string(b) != string(b2) {
		t.Fatalf("frozen row does not round-trip:\n%s\n%s", b, b2)
	}
}

func TestRowFilesInRepoParse(t *testing.T) {
	files, _ := filepath.Glob("../rows/*.toml")
	if len(files) == 0 {
		t.Fatal("no example rows in rows/")
	}
	for _, f := range files {
		if _, err := LoadRow(f); err != nil {
			t.Error(err)
		}
	}
}

func TestWithBaseDirResolvesRelativePaths(t *testing.T) {
	r, err := ParseRow([]byte(designRow), "row.toml")
	if err != nil {
		t.Fatal(err)
	}
	r.Baseline.Binary = "bin/orb"
	r.WithBaseDir("/rows")
	if r.Baseline.Binary != "/rows/bin/orb" || r.Trace.Path != "/rows/conversation_trace.jsonl" || r.Candidate.Binary != "builtin" {
		t.Fatalf("%+v", r)
	}

}

func TestRepoRowsMatchTheBuiltInRows(t *testing.T) {
	for file, want := range map[string]*Row{"../rows/builtin-vllm-disagg.toml": DefaultRow(), "../rows/tiny.toml": TinyRow("", "")} {
		got, err := LoadRow(file)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := got.Encode()
		b, _ := want.Encode()
		if string(a) != string(b) {
			t.Errorf("%s differs from the built-in row:\n%s\nwant:\n%s", file, a, b)
		}
	}
}

// Left out, a row gets the default set of variations; an empty list turns them off, and the
// frozen row keeps that (an omitted key would bring the default back on resume).
func TestPerturbationsDefaultAndOff(t *testing.T) {
	r, err := ParseRow([]byte(designRow), "row.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Determinism.Perturbations, defaultPerturbations) {
		t.Fatalf("default set %v", r.Determinism.Perturbations)
	}
	off, err := ParseRow([]byte(strings.Replace(designRow, "repetitions = 2", "repetitions = 2\nperturbations = []", 1)), "row.toml")
	if err != nil || len(off.Determinism.Perturbations) != 0 {
		t.Fatalf("perturbations = [] gave %v, %v", off.Determinism.Perturbations, err)
	}
	enc, err := off.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseRow(enc, "row.toml")
	if err != nil || len(back.Determinism.Perturbations) != 0 {
		t.Fatalf("frozen row brought perturbations back: %v (%v)\n%s", back.Determinism.Perturbations, err, enc)
	}
}
