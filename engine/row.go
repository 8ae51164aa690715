package engine

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	armkind "kvparity/engine/arm"
	"kvparity/engine/build"
	"kvparity/engine/instrument"
	"kvparity/internal/pointer"
	"kvparity/report"
	"kvparity/stats"
)

// builtinBinary is the arm binary value that pins the kvparity executable itself: the embedded
// engine (`kvparity replay`), selected by the arm's variant (engine/arm's builtin kind).
const builtinBinary = armkind.BuiltinName

// ProtocolExclusions is the protocol's closed canonical exclusion allowlist (stage 2).
var ProtocolExclusions = []string{
	"/summary/wall_time_ms",
	"/summary/processed_tokens_per_s",
	"/summary/processed_output_tokens_per_s",
}

// A Row is one frozen comparison configuration (docs/guide.md, "The row file: keys and
// bounds"). Both arms replay the same trace window with the same [replay] args; only their
// artifacts differ.
type Row struct {
	Name        string          `toml:"name"`
	Baseline    ArmSpec         `toml:"baseline"`
	Candidate   ArmSpec         `toml:"candidate"`
	Trace       TraceSpec       `toml:"trace"`
	Replay      ReplaySpec      `toml:"replay"`
	Determinism DeterminismSpec `toml:"determinism"`
	Perf        PerfSpec        `toml:"perf"`
	Canonical   CanonicalSpec   `toml:"canonical"`
	Fixtures    FixturesSpec    `toml:"fixtures,omitempty"` // stage 6 (fixture_host.go)
}

// A FixturesSpec names the stage-6 fixtures the campaign runs on both arms (engine/fixtures).
type FixturesSpec struct {
	Names []string `toml:"names,omitempty"`
}

// An ArmSpec names one arm's artifact: a prebuilt binary, or a source kvparity builds. Its
// kind (engine/arm) reads, checks, builds, pins and runs it.
type ArmSpec = armkind.Spec

// A TraceSpec is the contiguous trace window: a Mooncake JSONL path or a generated trace.
type TraceSpec struct {
	Path   string `toml:"path"`
	Offset int    `toml:"offset"`
	Count  int    `toml:"count"`
	SHA256 string `toml:"sha256,omitempty"` // of the source file; of the window for generated traces
}

// generated reports whether the trace is produced by the embedded generator.
func (t TraceSpec) generated() bool { return strings.HasPrefix(t.Path, "generated:") }

// fromCrate reports whether the trace is a file a published crate ships (crate:NAME@VERSION/PATH).
func (t TraceSpec) fromCrate() bool { return strings.HasPrefix(t.Path, build.CrateFilePrefix) }

// public reports whether the trace is named by its https:// address (build.PublicTrace).
func (t TraceSpec) public() bool { return build.IsPublicTrace(t.Path) }

// A ReplaySpec holds the replay arguments, identical for both arms.
type ReplaySpec struct {
	Args []string `toml:"args"`
}

// A DeterminismSpec configures stage 2.
type DeterminismSpec struct {
	Repetitions int `toml:"repetitions"`
	// Timeout bounds one replay process; a run past it is killed and is a row error.
	Timeout Duration `toml:"timeout"`
	// PressureBand is the bounded pressure band stage 3 expects ([lo, hi] events); empty means
	// the protocol's default: 10–20 for disaggregated rows, 1–3 otherwise.
	PressureBand []int `toml:"pressure_band,omitempty"`
	// Patch is a temporary determinism correction both revisions were built with (protocol
	// stage 1.3): copied into the campaign and hashed. PatchSHA256 is its declared SHA-256,
	// verified against Patch when both are given, recorded alone when the file is kept elsewhere.
	Patch       string `toml:"patch,omitempty"`
	PatchSHA256 string `toml:"patch_sha256,omitempty"`
	// Perturbations is the variation set of the perturbed repetitions run after the plain ones
	// (perturb.go); left out, defaultPerturbations; [] turns them off.
	Perturbations []Variation `toml:"perturbations"`
}

// A PerfSpec configures stage 7.
type PerfSpec struct {
	Pairs         int     `toml:"pairs"`
	WarmupsPerArm int     `toml:"warmups_per_arm"`
	ScheduleSeed  int64   `toml:"schedule_seed"`
	Threshold     float64 `toml:"threshold"`
	TimingField   string  `toml:"timing_field"`
	TimingProxy   bool    `toml:"timing_proxy"` // timing_field is a declared proxy for replay_execution_ms
	// FootprintExplained explains binary or .text growth above 5% (the footprint gate fails
	// until it is explained).
	FootprintExplained string `toml:"footprint_explained,omitempty"`
	// DependenceMethod is the predeclared dependence-aware method (protocol stage 7, step 5):
	// "block-medians" decides by the block-median bounds when the dependence battery breaches
	// through serial dependence only (stats/blockmedians.go); "inconclusive" is the protocol's
	// literal rule. Left out it is "inconclusive", so a row frozen before the key existed keeps
	// the rule it was measured under; new rows (the built-in ones, init-row) declare
	// "block-medians", which held its level in the study of stats/dependence_study_test.go.
	DependenceMethod stats.DependenceMethod `toml:"dependence_method"`
	// InstructionsRuns is the number of counted runs per arm of the instruction-count
	// instrument (a secondary, deterministic measure; instructions.go): 0 leaves it out of
	// --stage all, otherwise at least 3.
	InstructionsRuns int `toml:"instructions_runs,omitzero"`
	// InstructionsThreshold is the count ratio above which the report asks for an explanation
	// (0: instrument.DefaultInstructionsThreshold). It never changes a verdict.
	InstructionsThreshold float64 `toml:"instructions_threshold,omitzero"`
}

// A CanonicalSpec is the canonicalization profile of the row.
type CanonicalSpec struct {
	Exclusions []string          `toml:"exclusions"`
	Unordered  map[string]string `toml:"unordered"` // array pointer -> sort key
}

// A Duration is a TOML string such as "10m" or "90s".
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("not a duration such as \"10m\" or \"90s\": %q", b)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration back in Go syntax.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Default values of optional row keys.
const (
	defaultRepetitions = 2
	defaultTimeout     = 10 * time.Minute
	defaultPairs       = 60
	defaultWarmups     = 5
	defaultThreshold   = 1.05
	defaultTimingField = instrument.DefaultTimingField
)

// Bounds of the row's numbers, checked at load (docs/guide.md "The row file"): a value outside
// them is a typo or an attack on the host (a billion pairs grow without limit), never a plan.
const (
	minRepetitions  = 2
	maxRepetitions  = 1000
	maxTimeout      = 24 * time.Hour
	maxPressureBand = 1_000_000
	minPairs        = 2
	maxPairs        = 10000
	maxWarmups      = 1000
	maxThreshold    = 2.0
	// The instruction-count instrument: at least 3 counted runs per arm show the count's spread.
	minInstructionsRuns = 3
	maxInstructionsRuns = 100
)

// runnerOwnedFlags are set by the runner per process; a row must not set them.
var runnerOwnedFlags = []string{
	"--canonical-reports-jsonl", "--timings-jsonl", "--iterations", "--report-json",
	"--progress-file", "--variant", "--bench",
}

// A RowError is a bad row input, named by file, table and key.
type RowError struct {
	File  string // the row file's name as given
	Table string // "perf", "" for top-level keys
	Key   string
	Msg   string
}

func (e *RowError) Error() string {
	where := e.Key
	if e.Table != "" {
		where = "[" + e.Table + "] " + e.Key
	}
	if where == "" {
		return e.File + ": " + e.Msg
	}
	return e.File + ": " + where + ": " + e.Msg
}

// LoadRow reads, decodes and validates a row file.
func LoadRow(path string) (*Row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("row: %w", err)
	}
	return ParseRow(data, path)
}

// ParseRow decodes a row from TOML, rejects unknown keys, fills the defaults of optional keys
// and validates every value. file names the source in errors.
func ParseRow(data []byte, file string) (*Row, error) {
	var r Row
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&r)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: line %d: %s", file, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %s", file, strings.TrimPrefix(err.Error(), "toml: "))
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		table, key := "", k.String()
		if len(k) > 1 {
			table, key = strings.Join(k[:len(k)-1], "."), k[len(k)-1]
		}
		return nil, &RowError{File: file, Table: table, Key: key, Msg: "unknown key"}
	}
	r.applyDefaults(&md)
	if err := r.validate(file); err != nil {
		return nil, err
	}
	return &r, nil
}

// applyDefaults fills optional keys that the file leaves out (never ones it sets, so that an
// explicit bad value is reported rather than silently replaced).
func (r *Row) applyDefaults(md *toml.MetaData) {
	def := func(keys ...string) bool { return md == nil || !md.IsDefined(keys...) }
	if def("determinism", "repetitions") {
		r.Determinism.Repetitions = defaultRepetitions
	}
	if def("determinism", "timeout") {
		r.Determinism.Timeout = Duration{defaultTimeout}
	}
	if def("determinism", "perturbations") {
		r.Determinism.Perturbations = slices.Clone(defaultPerturbations)
	}
	if def("perf", "pairs") {
		r.Perf.Pairs = defaultPairs
	}
	if def("perf", "warmups_per_arm") {
		r.Perf.WarmupsPerArm = defaultWarmups
	}
	if def("perf", "threshold") {
		r.Perf.Threshold = defaultThreshold
	}
	if def("perf", "timing_field") {
		r.Perf.TimingField = defaultTimingField
	}
	if def("perf", "dependence_method") {
		r.Perf.DependenceMethod = stats.MethodInconclusive
	}
	if def("canonical", "exclusions") {
		r.Canonical.Exclusions = slices.Clone(ProtocolExclusions)
	}
	if def("canonical", "unordered") {
		r.Canonical.Unordered = map[string]string{"/per_request": "uuid"}
	}
}

var (
	sha256Re = regexp.MustCompile(`^[0-9a-f]{64}$`)
	rowName  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// validate checks every value and names the first bad key.
func (r *Row) validate(file string) error {
	bad := func(table, key, format string, a ...any) error {
		return &RowError{File: file, Table: table, Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	if r.Name == "" {
		return bad("", "name", "missing")
	}
	if !rowName.MatchString(r.Name) {
		return bad("", "name", "%q: use letters, digits, '.', '_' and '-' (it names the campaign folder)", r.Name)
	}
	for _, a := range []struct {
		table string
		spec  ArmSpec
	}{{"baseline", r.Baseline}, {"candidate", r.Candidate}} {
		kind, err := armkind.Of(a.spec)
		if err != nil {
			return bad(a.table, "source", "%v", err)
		}
		if p := kind.Check(a.spec, a.table); p != nil {
			return bad(a.table, p.Key, "%s", p.Msg)
		}
	}
	// Both arms are built identically (protocol stage 1): a desk build is compared with a desk
	// build only.
	if r.Baseline.Desk() != r.Candidate.Desk() {
		return bad("candidate", "profile", "%s, but the baseline's is %s: both arms are built with one profile", build.ProfileName(r.Candidate.Profile), build.ProfileName(r.Baseline.Profile))
	}
	if r.Trace.Path == "" {
		return bad("trace", "path", "missing")
	}
	if r.Trace.fromCrate() {
		if _, err := build.ParseCrateFile(r.Trace.Path); err != nil {
			return bad("trace", "path", "%v", err)
		}
	}
	if r.Trace.public() {
		if _, err := build.ParsePublicTrace(r.Trace.Path, r.Trace.SHA256); err != nil {
			return bad("trace", "path", "%v", err)
		}
	}
	// A generated trace's size is bounded like every other number (report.MaxGeneratedRequests):
	// a typo of a few digits would otherwise generate until the disk or the kernel stops it.
	generatedRequests := 0
	if r.Trace.generated() {
		_, n, err := report.ParseGeneratedSpec(r.Trace.Path)
		if err != nil {
			return bad("trace", "path", "%v", err)
		}
		generatedRequests = n
	}
	if r.Trace.Offset < 0 {
		return bad("trace", "offset", "must be >= 0")
	}
	if r.Trace.Count <= 0 {
		return bad("trace", "count", "must be > 0")
	}
	if n := generatedRequests; n > 0 && r.Trace.Count > n-min(r.Trace.Offset, n) {
		return bad("trace", "count", "%d rows from offset %d run past the generated trace's %d requests", r.Trace.Count, r.Trace.Offset, n)
	}
	if r.Trace.SHA256 != "" && !sha256Re.MatchString(r.Trace.SHA256) {
		return bad("trace", "sha256", "%q is not 64 lowercase hex digits", r.Trace.SHA256)
	}
	for i, a := range r.Replay.Args {
		name, _, _ := strings.Cut(a, "=")
		if slices.Contains(runnerOwnedFlags, name) {
			return bad("replay", fmt.Sprintf("args[%d]", i), "%s is set by kvparity for each process; remove it from the row", name)
		}
	}
	if n := r.Determinism.Repetitions; n < minRepetitions || n > maxRepetitions {
		return bad("determinism", "repetitions", "%d is out of bounds: must be %d..%d (each revision needs two fresh processes)", n, minRepetitions, maxRepetitions)
	}
	if d := r.Determinism.Timeout.Duration; d <= 0 || d > maxTimeout {
		return bad("determinism", "timeout", "%s is out of bounds: must be > 0 and <= %s", d, maxTimeout)
	}
	for i, v := range r.Determinism.Perturbations {
		if _, err := parseVariation(string(v)); err != nil {
			return bad("determinism", fmt.Sprintf("perturbations[%d]", i), "%v", err)
		}
		if slices.Index(r.Determinism.Perturbations, v) != i {
			return bad("determinism", fmt.Sprintf("perturbations[%d]", i), "%q is listed twice", v)
		}
	}
	if p := r.Determinism.PatchSHA256; p != "" && !sha256Re.MatchString(p) {
		return bad("determinism", "patch_sha256", "%q is not 64 lowercase hex digits (the SHA-256 of the patch file)", p)
	}
	if b := r.Determinism.PressureBand; len(b) != 0 && (len(b) != 2 || b[0] < 1 || b[1] < b[0] || b[1] > maxPressureBand) {
		return bad("determinism", "pressure_band", "must be [lo, hi] with 1 <= lo <= hi <= %d (zero pressure never exercises the edge)", maxPressureBand)
	}
	if n := r.Perf.Pairs; n < minPairs || n > maxPairs {
		return bad("perf", "pairs", "%d is out of bounds: must be %d..%d", n, minPairs, maxPairs)
	}
	if r.Perf.Pairs%2 != 0 {
		return bad("perf", "pairs", "must be even (the schedule balances baseline-first and candidate-first pairs)")
	}
	if n := r.Perf.WarmupsPerArm; n < 0 || n > maxWarmups {
		return bad("perf", "warmups_per_arm", "%d is out of bounds: must be 0..%d", n, maxWarmups)
	}
	if th := r.Perf.Threshold; math.IsNaN(th) || math.IsInf(th, 0) || th <= 1 || th > maxThreshold {
		return bad("perf", "threshold", "%v is out of bounds: must be a finite ratio in (1, %g] (1.05 allows a 5%% slowdown; a threshold above %g passes any regression)", th, maxThreshold, maxThreshold)
	}
	if r.Perf.TimingField == "" {
		return bad("perf", "timing_field", "missing")
	}
	if r.Perf.TimingField == "wall_time_ms" {
		return bad("perf", "timing_field", "wall_time_ms is broader than the protocol's timing boundary; use replay_execution_ms or declare a proxy such as replay_call_ms with timing_proxy = true")
	}
	if r.Perf.TimingField != defaultTimingField && !r.Perf.TimingProxy {
		return bad("perf", "timing_field", "%q is not replay_execution_ms: declare it with timing_proxy = true", r.Perf.TimingField)
	}
	if _, err := stats.ParseDependenceMethod(string(r.Perf.DependenceMethod)); err != nil {
		return bad("perf", "dependence_method", "%v", err)
	}
	if n := r.Perf.InstructionsRuns; n != 0 && (n < minInstructionsRuns || n > maxInstructionsRuns) {
		return bad("perf", "instructions_runs", "%d is out of bounds: must be %d..%d (0 or left out: not counted by --stage all)", n, minInstructionsRuns, maxInstructionsRuns)
	}
	if th := r.Perf.InstructionsThreshold; math.IsNaN(th) || math.IsInf(th, 0) || th < 0 || (th != 0 && (th <= 1 || th > maxThreshold)) {
		return bad("perf", "instructions_threshold", "%v is out of bounds: must be a finite count ratio in (1, %g] (1.03 asks to explain 3%% more instructions)", th, maxThreshold)
	}
	for i, p := range r.Canonical.Exclusions {
		if !strings.HasPrefix(p, "/") {
			return bad("canonical", fmt.Sprintf("exclusions[%d]", i), "%q is not a JSON pointer (must start with '/')", p)
		}
		if _, err := pointer.Parse(p); err != nil {
			return bad("canonical", fmt.Sprintf("exclusions[%d]", i), "%q is not an RFC 6901 JSON pointer: %v", p, err)
		}
	}
	if err := r.Fixtures.validate(file); err != nil {
		return err
	}
	keys := slices.Sorted(maps.Keys(r.Canonical.Unordered)) // the first bad key, the same on every load
	for _, p := range keys {
		k := r.Canonical.Unordered[p]
		if !strings.HasPrefix(p, "/") {
			return bad("canonical", "unordered", "%q is not a JSON pointer (must start with '/')", p)
		}
		if _, err := pointer.Parse(p); err != nil {
			return bad("canonical", "unordered", "%q is not an RFC 6901 JSON pointer: %v", p, err)
		}
		if k == "" {
			return bad("canonical", "unordered", "%q: empty sort key", p)
		}
	}
	return nil
}

// Desk says the row's arms are desk builds (engine/build/desk.go): not the release artifact.
func (r *Row) Desk() bool { return r.Baseline.Desk() }

// Arm returns the spec of one arm.
func (r *Row) Arm(a Arm) ArmSpec {
	if a == Candidate {
		return r.Candidate
	}
	return r.Baseline
}

// disaggregated reports whether the replay args select disaggregated serving.
func (r *Row) disaggregated() bool { return r.ReplayArg("--serving-mode") == "disagg" }

// queueThresholdSet reports whether router queueing is explicitly enabled (stage 3: queued
// placements are meaningful only then).
func (r *Row) queueThresholdSet() bool {
	return r.ReplayArg("--router-queue-threshold") != ""
}

// Band is the row's pressure band, or the protocol's default for its topology.
func (r *Row) Band() [2]int {
	if b := r.declaredBand(); b != [2]int{} {
		return b
	}
	return report.DefaultPressureBand(r.disaggregated())
}

// declaredBand is the pressure band the row declares, zero when it declares none (the evidence
// then marks the default it assumes, so an undeclared band is never mistaken for a qualified one).
func (r *Row) declaredBand() [2]int {
	if b := r.Determinism.PressureBand; len(b) == 2 {
		return [2]int{b[0], b[1]}
	}
	return [2]int{}
}

// WithBaseDir resolves relative binary and trace paths against dir (the row file's folder), so
// a row means the same thing whatever the working directory.
func (r *Row) WithBaseDir(dir string) {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	for _, a := range []*ArmSpec{&r.Baseline, &r.Candidate} {
		if kind, err := armkind.Of(*a); err == nil {
			*a = kind.WithBaseDir(*a, dir)
		}
	}
	if !r.Trace.generated() && !r.Trace.fromCrate() && !r.Trace.public() {
		r.Trace.Path = abs(r.Trace.Path)
	}
	r.Determinism.Patch = abs(r.Determinism.Patch)
}

// ReplayArg returns the value the row's [replay] args give a flag ("--flag value" or
// "--flag=value"), "" when absent.
func (r *Row) ReplayArg(flag string) string { return argValue(r.Replay.Args, flag) }

// argValue returns the value of a "--flag value" or "--flag=value" argument, "" when absent.
func argValue(args []string, flag string) string {
	i, joined := flagAt(args, flag)
	switch {
	case i < 0:
		return ""
	case joined:
		return strings.TrimPrefix(args[i], flag+"=")
	}
	return args[i+1]
}

// flagAt finds flag in args: the index of "--flag" (its value follows) or of "--flag=value"
// (joined), -1 when absent.
func flagAt(args []string, flag string) (i int, joined bool) {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return i, false
		}
		if strings.HasPrefix(a, flag+"=") {
			return i, true
		}
	}
	return -1, false
}
