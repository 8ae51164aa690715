package engine

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	armkind "kvparity/engine/arm"
	"kvparity/engine/instrument"
)

// harnessKind is a test-only arm kind, as a Python harness's would be: `source =
// "harness:PATH@VERSION"` names an executable that speaks the bench's flags (this test binary,
// as the fake replay), pinned as given; it writes its canonical report under a name of its own
// (harness.jsonl) and has no ELF footprint. It is the whole of adding a kind: this type and
// one registration (armkind.Register here; a line in engine/arm's kinds for a kind of the
// product).
type harnessKind struct{ argv *atomic.Int32 }

func (harnessKind) Name() string                                      { return "harness" }
func (harnessKind) Claims(s armkind.Spec) bool                        { return strings.HasPrefix(s.Source, "harness:") }
func (harnessKind) WithBaseDir(s armkind.Spec, _ string) armkind.Spec { return s }
func (harnessKind) Embedded() bool                                    { return false }
func (harnessKind) Repinnable() bool                                  { return true }
func (harnessKind) HelpArgv() []string                                { return []string{"--help"} }
func (harnessKind) Region() instrument.Region                         { return instrument.RegionExtension }
func (harnessKind) Label(p armkind.Pinned) string                     { return "harness " + p.Source }

// path and version split what follows "harness:".
func (harnessKind) path(s armkind.Spec) (string, string, bool) {
	return strings.Cut(strings.TrimPrefix(s.Source, "harness:"), "@")
}

func (k harnessKind) Check(s armkind.Spec, _ string) *armkind.Problem {
	if _, v, ok := k.path(s); !ok || v == "" {
		return &armkind.Problem{Key: "source", Msg: "harness:PATH@VERSION"}
	}
	return nil
}

func (k harnessKind) Revision(s armkind.Spec) string { _, v, _ := k.path(s); return v }

func (k harnessKind) Build(_ context.Context, s armkind.Spec, _ armkind.BuildOptions) (armkind.Built, error) {
	p, _, _ := k.path(s)
	return armkind.Built{File: p}, nil
}

func (harnessKind) Cached(context.Context, armkind.Spec, armkind.BuildOptions) (bool, error) {
	return true, nil
}

func (k harnessKind) Argv(p armkind.Process) []string {
	k.argv.Add(1)
	args := append([]string{p.Trace}, p.Args...)
	args = append(args, "--iterations", "1")
	if p.Outputs.Timings != "" {
		args = append(args, "--timings-jsonl", p.Outputs.Timings)
	}
	if p.Outputs.Canonical != "" {
		args = append(args, "--canonical-reports-jsonl", p.Outputs.Canonical)
	}
	return args
}

func (harnessKind) Outputs(runDir string) armkind.Outputs {
	return armkind.Outputs{Timings: filepath.Join(runDir, "timings.jsonl"), Canonical: filepath.Join(runDir, "harness.jsonl")}
}

func (harnessKind) Footprint(_ string, size int64) (instrument.Binary, error) {
	return instrument.Binary{Size: size, ShippedSize: size}, nil
}

// Adding an arm kind is one file and one registration (engine/arm's doc): a campaign whose
// candidate is of a kind registered here pins it, replays it with the kind's argv and reads its
// canonical report where the kind's outputs say, to the same verdicts as the builtin baseline.
func TestANewArmKindIsOneFileAndOneRegistration(t *testing.T) {
	kind := harnessKind{argv: &atomic.Int32{}}
	defer armkind.Register(kind)()

	row := tinyTestRow("", "")
	row.Candidate = ArmSpec{Source: "harness:" + testBinary(t) + "@3.1.4"}
	dir := filepath.Join(t.TempDir(), "c")
	_, evs := runDeterminism(t, row, dir)
	if v := verdicts(evs); v["determinism/baseline"] != "STABLE" || v["determinism/candidate"] != "STABLE" || v["parity/"] != "PASS" {
		t.Fatalf("verdicts %v", v)
	}
	if n := kind.argv.Load(); n < 3 { // two repetitions and a perturbed one
		t.Errorf("the kind built %d argvs, want every candidate run's", n)
	}
	var cand []DigestReady
	for _, d := range plainDigests(evs) {
		if d.Arm == Candidate {
			cand = append(cand, d)
		}
	}
	// The candidate's reports were read where its kind wrote them (harness.jsonl): a reader of
	// the bench's canonical.jsonl would have found none, a malformed report.
	if len(cand) != 2 || cand[0].Digest == "" {
		t.Fatalf("candidate digests %+v", cand)
	}
	c, _ := openTest(t, row, dir)
	p := c.Pinned(Candidate)
	if p.Revision != "3.1.4" || p.Builtin || p.Source != testBinary(t) || p.TextSize != 0 || p.ShippedSize != p.Size {
		t.Errorf("pinned candidate %+v", p)
	}
	if got := c.Host().Kind(Candidate).Label(armkind.Pinned{Source: p.Source, Variant: p.Variant, Build: p.Build}); got != "harness "+testBinary(t) {
		t.Errorf("label %q", got)
	}
}
