package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvparity/engine"
	"kvparity/engine/fixtures"
	"kvparity/internal/e2e"
	"kvparity/verdict"
)

const fixturesRealRow = "rows/fixtures-dynamo-1.6.1.toml"

// Stage 6 on real Dynamo: dynamo-bench 1.6.1 (both arms) asserts the queueing, preemption-edge
// and both handoff lifecycles; scale-to-zero is reported unsupported with its reason, so the
// stage exits 2. Gated like TestRealDynamoRow (skips without cargo or a cached build, fails in CI).
func TestRealDynamoFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds (or finds cached) dynamo-bench 1.6.1 and runs the stage-6 fixtures on it")
	}
	needBuilds(t, fixturesRealRow)
	dir := filepath.Join(t.TempDir(), "fx")
	code, out, errOut := e2e.Run(t, e2e.Binary(t), 30*time.Minute, "run", fixturesRealRow, "--campaign", dir, "--stage", "fixtures", "--json")
	var doc struct {
		verdict.Document
		engine.Summary
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("run --json (exit %d): %v\nstderr:\n%s", code, err, e2e.Tail(errOut, 60))
	}
	if code != verdict.ExitInconclusive || len(doc.Fixtures) != 10 {
		t.Fatalf("exit %d, %d results: %+v", code, len(doc.Fixtures), doc.Fixtures)
	}
	for _, r := range doc.Fixtures {
		if r.Fixture == "scale-to-zero" {
			if r.Verdict != verdict.Blocked || r.Status != fixtures.StatusUnsupported || !strings.Contains(r.Reason, "offline_replay_bench.rs:142") {
				t.Errorf("scale-to-zero on the %s: %s %s %s", r.Arm, r.Verdict, r.Status, r.Reason)
			}
			continue
		}
		if r.Verdict != verdict.Pass || len(r.Facts) < 5 {
			t.Errorf("%s on the %s: %s %s %s", r.Fixture, r.Arm, r.Verdict, r.Status, r.Reason)
		}
	}
}
