package realrow

import (
	"encoding/json"
	"kvparity/e2e"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvparity/engine"
)

// Stage 7 on the embedded engine: the default row with a calibrated 30% slowdown in the
// candidate passes the semantic checks (the slowdown changes no output byte), so `kvparity
// investigate` profiles both arms and names the slowdown's function as the top self-time
// delta (the baseline calls it too, to return at once: a sample or two at most); the report's
// profiler findings are filled from it.
func TestInvestigateNamesTheSlowdown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the default row's determinism stage and profiles both arms")
	}
	needPerf(t)
	bin := e2e.Binary(t)
	dir := t.TempDir()
	row := engine.DefaultRow()
	row.Name, row.Candidate.Variant = "default-slowdown-30", "slowdown-30"
	data, err := row.Encode()
	if err != nil {
		t.Fatal(err)
	}
	rowPath := filepath.Join(dir, "row.toml")
	if err := os.WriteFile(rowPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	investigateNames(t, bin, rowPath, filepath.Join(dir, "c"), func(f string) bool { return f == "kvparity/mocker.(*sim).slowdown" })
}

// The same on a real arm: Dynamo 1.6.1 from the package registry against itself with the
// calibrated slowdown-10 built into its replay loop (rows/dynamo-1.6.1-slowdown-10.toml), both
// built identically with line tables; the function perf names is the variant's own.
func TestInvestigateNamesTheSlowdownOfARustArm(t *testing.T) {
	if testing.Short() {
		t.Skip("builds (or finds cached) Dynamo 1.6.1 twice, runs its determinism stage and profiles both arms")
	}
	NeedBuilds(t, "rows/dynamo-1.6.1-slowdown-10.toml")
	needPerf(t)
	investigateNames(t, e2e.Binary(t), "rows/dynamo-1.6.1-slowdown-10.toml", e2e.CampaignDir(t, "c"),
		func(f string) bool { return strings.HasSuffix(f, "::kvparity_calibrated_slowdown") })
}

func needPerf(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("perf"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but Linux perf is not installed (.ci/run installs linux-perf)")
		}
		t.Skip("Linux perf is not installed")
	}
}

// investigateNames runs the row's determinism stage into camp, then `kvparity investigate`,
// and checks that the top self-time delta is the slowdown's function (isSlowdown), the report's
// profiler findings name it, and clean keeps the profiles.
func investigateNames(t *testing.T, bin, rowPath, camp string, isSlowdown func(string) bool) {
	t.Helper()
	if code, _, errOut := e2e.Run(t, bin, 40*time.Minute, "run", rowPath, "--stage", "determinism", "--campaign", camp); code != 0 {
		t.Fatalf("determinism: exit %d\n%s", code, e2e.Tail(errOut, 20))
	}
	code, out, errOut := e2e.Run(t, bin, 5*time.Minute, "investigate", camp)
	if code != 0 {
		t.Fatalf("investigate: exit %d\n%s\n%s", code, out, e2e.Tail(errOut, 20))
	}
	inv, err := engine.LoadInvestigation(camp)
	if err != nil || inv == nil {
		t.Fatalf("investigation %v, %v", inv, err)
	}
	top := inv.Differential.Top(1)[0]
	if !isSlowdown(top.Function) || top.Delta < 0.05 || top.Baseline > 0.02 {
		t.Fatalf("top self-time delta %+v, want the slowdown's function\n%s", top, out)
	}
	t.Logf("top self-time delta: %s %+.1f%% (baseline %.1f%%, candidate %.1f%%)", top.Function, 100*top.Delta, 100*top.Baseline, 100*top.Candidate)
	if !strings.Contains(out, "equivalent semantic work confirmed") || !strings.Contains(out, top.Function) {
		t.Errorf("output:\n%s", out)
	}
	if code, _, errOut := e2e.Run(t, bin, time.Minute, "report", camp); code != 0 {
		t.Fatalf("report: %s", errOut)
	}
	md, _ := os.ReadFile(filepath.Join(camp, "report.md"))
	if !strings.Contains(string(md), "## Profiler findings") || !strings.Contains(string(md), "`"+top.Function+"`") {
		t.Errorf("report.md lacks the profiler findings")
	}
	var rep struct {
		Profiler *engine.Investigation `json:"profiler_findings"`
	}
	b, _ := os.ReadFile(filepath.Join(camp, "report.json"))
	if json.Unmarshal(b, &rep) != nil || rep.Profiler == nil || rep.Profiler.Differential.Top(1)[0].Function != top.Function {
		t.Errorf("report.json lacks the profiler findings")
	}
	// kvparity clean keeps the investigation.
	if code, _, errOut := e2e.Run(t, bin, time.Minute, "clean", camp); code != 0 {
		t.Fatalf("clean: %s", errOut)
	}
	for _, r := range inv.Runs {
		if _, err := os.Stat(filepath.Join(camp, r.Data)); err != nil {
			t.Errorf("clean removed %s", r.Data)
		}
	}
	if _, err := os.Stat(filepath.Join(camp, engine.FileInvestigation)); err != nil {
		t.Errorf("clean removed %s", engine.FileInvestigation)
	}
}
