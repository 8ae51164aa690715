package campaignreport_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kvparity/campaignreport"
	"kvparity/engine"
	"kvparity/engine/build"
	"kvparity/internal/layout"
)

// fakeToolchainEnv makes the test binary answer as rustc and cargo (through links named after
// them): the version queries only, so a campaign of source arms pins builds a test put in the
// cache, and any real build is refused.
const fakeToolchainEnv = "KVPARITY_REPORT_FAKE_TOOLCHAIN"

var fakeRustc = "rustc 1.95.0-fake (0000000 2026-04-14)\nhost: x86_64-unknown-linux-gnu"

func fakeToolchain(name string, args []string) int {
	switch {
	case name == "rustc" && slices.Equal(args, []string{"-vV"}):
		fmt.Println(fakeRustc)
	case name == "cargo" && slices.Equal(args, []string{"-V"}):
		fmt.Println("cargo 1.95.0-fake")
	default:
		fmt.Fprintf(os.Stderr, "fake %s: this test builds nothing (%q)\n", name, args)
		return 2
	}
	return 0
}

// cachedBuild puts a finished build of spec in cache, as kvparity records one: the binary (a
// copy of this test's own executable, an ELF file like the real one), the applied timing
// extension, and both locks' checksums.
func cachedBuild(t *testing.T, cache string, spec build.Spec, patch string) build.Info {
	t.Helper()
	tc := build.Toolchain{Rustc: fakeRustc, Cargo: "cargo 1.95.0-fake"}
	dir := build.EntryDir(cache, spec, tc)
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	info := build.Info{Source: spec.String(), Package: build.BenchPackage, Version: spec.Version, CrateSHA256: sum([]byte(spec.Version)),
		Features: spec.Features, Profile: "release (lto = true)", Rustc: tc.Rustc, Cargo: tc.Cargo,
		PublishedLockSHA256: sum([]byte("published " + spec.Version)), LockSHA256: sum([]byte("patched " + spec.Version)),
		ReplayCrate: build.ReplayCrate, ExtensionSHA256: build.ExtensionSHA256(), AppliedPatch: filepath.Join(dir, "timing-extension.patch"),
		AppliedPatchSHA256: sum([]byte(patch)), Command: []string{"cargo", "build", "--release"},
		Env:      []string{"CARGO_TARGET_DIR=" + filepath.Join(dir, "work", "target"), "CARGO_PROFILE_RELEASE_DEBUG=line-tables-only"},
		CacheKey: filepath.Base(dir), Binary: filepath.Join(dir, "bin", build.BenchTarget), BinarySHA256: sum(exe)}
	if spec.Profile == build.ProfileDesk {
		info.BuildProfile, info.Profile = build.ProfileDesk, "desk ("+build.DeskNote+"): the checkout's release (lto = true) with lto = \"off\""
	}
	if err := os.WriteFile(info.Binary, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(info.AppliedPatch, []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(info)
	if err := os.WriteFile(filepath.Join(dir, "build.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	return info
}

// sourceBuiltCampaign creates a campaign of a row whose arms are two published versions,
// built (from the cache) with kvparity's timing extension as their determinism patch: the
// shape of rows/dynamo-1.5.1-vs-1.6.1.toml.
func sourceBuiltCampaign(t *testing.T) (dir string, builds map[engine.Arm]build.Info) {
	return sourceBuiltCampaignProfile(t, "")
}

// sourceBuiltCampaignProfile is sourceBuiltCampaign with both arms built with profile ("" is
// the release profile, build.ProfileDesk the desk loop's).
func sourceBuiltCampaignProfile(t *testing.T, profile string) (dir string, builds map[engine.Arm]build.Info) {
	t.Helper()
	bin := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"rustc", "cargo"} {
		if err := os.Symlink(self, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv(fakeToolchainEnv, "1")
	cache := t.TempDir()
	row := engine.TinyRow("", "")
	row.Name = "source-built"
	builds = map[engine.Arm]build.Info{}
	for arm, version := range map[engine.Arm]string{engine.Baseline: "1.5.1", engine.Candidate: "1.6.1"} {
		spec := &row.Baseline
		if arm == engine.Candidate {
			spec = &row.Candidate
		}
		spec.Revision, spec.Binary, spec.Source, spec.Features, spec.Profile = "", "", "crate:dynamo-bench@"+version, []string{"replay-bench"}, profile
		builds[arm] = cachedBuild(t, cache, build.Spec{Kind: "crate", Crate: build.BenchPackage, Version: version, Features: spec.Features, Profile: profile},
			"--- a/aisimulate-core/src/replay/replayer.rs\n+++ b/aisimulate-core/src/replay/replayer.rs\n@@ version "+version+"\n")
	}
	dir = filepath.Join(t.TempDir(), "campaign")
	c, err := engine.Create(row, engine.Options{Dir: dir, BuildCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	return dir, builds
}

// The real Dynamo row's report contradicted itself: it said no determinism patch was declared
// beside the patch checksum of both arms, named the baseline's copy of the applied diff for
// the candidate, and recorded only the lock after kvparity's patch and a command without its
// environment. Each arm's statement now names its own copy and diff; the coverage statement
// says the verdicts are about the code with the timing extension; both locks and the
// environment are in report.md and report.json, each said for what it is.
func TestReportOfSourceBuiltArmsStatesTheTimingExtension(t *testing.T) {
	dir, builds := sourceBuiltCampaign(t)
	r, err := campaignreport.WriteReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, rv := range r.Revisions {
		b := builds[rv.Arm]
		own := "copy kept: patch/" + string(rv.Arm) + "-timing-extension.patch"
		if !strings.Contains(rv.DeterminismPatch, "SHA-256 "+build.ExtensionSHA256()+", kvparity's timing extension") ||
			!strings.Contains(rv.DeterminismPatch, "this revision's applied diff SHA-256 "+b.AppliedPatchSHA256) || !strings.HasSuffix(rv.DeterminismPatch, own) {
			t.Errorf("%s determinism patch %q, want its own diff and %q", rv.Arm, rv.DeterminismPatch, own)
		}
	}
	if p := r.Config.DeterminismPatch; p == nil || p.SHA256 != build.ExtensionSHA256() {
		t.Fatalf("determinism_patch %+v", p)
	}
	var said []string
	for _, s := range r.Statements {
		if s.Topic == "determinism patch" {
			said = append(said, s.Text)
		}
	}
	if len(said) != 1 || strings.Contains(said[0], "no temporary determinism patch") ||
		!strings.Contains(said[0], "kvparity's timing extension (SHA-256 "+build.ExtensionSHA256()+")") {
		t.Errorf("determinism patch statements %q", said)
	}

	md, err := os.ReadFile(filepath.Join(dir, layout.FileReportMD))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "no temporary determinism patch was declared") {
		t.Error("report.md says no determinism patch was declared")
	}
	for _, arm := range []engine.Arm{engine.Baseline, engine.Candidate} {
		b := builds[arm]
		mustContain(t, md, "- published Cargo.lock (as the source ships it) SHA-256 `"+b.PublishedLockSHA256+"`; Cargo.lock the build used (rewritten by cargo for the timing extension's patched aisimulate-core) SHA-256 `"+b.LockSHA256+"`")
		mustContain(t, md, "- environment set by kvparity: `"+strings.Join(b.Env, " ")+"`; from the caller's environment")
	}
	mustContain(t, md, "copy kept: patch/candidate-timing-extension.patch")
	var doc struct {
		Artifacts []struct {
			Arm   engine.Arm
			Build map[string]any
		}
	}
	js, err := os.ReadFile(filepath.Join(dir, layout.FileReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	for _, a := range doc.Artifacts {
		b := builds[a.Arm]
		if a.Build["published_lockfile_sha256"] != b.PublishedLockSHA256 || a.Build["lockfile_sha256"] != b.LockSHA256 ||
			fmt.Sprint(a.Build["environment"]) != fmt.Sprint(b.Env) {
			t.Errorf("report.json %s build: published lock %v, lock %v, environment %v", a.Arm, a.Build["published_lockfile_sha256"], a.Build["lockfile_sha256"], a.Build["environment"])
		}
	}
}
