package investigate_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvparity/engine"
	"kvparity/engine/enginetest"
	"kvparity/engine/investigate"
	"kvparity/engine/journal"
)

func TestMain(m *testing.M) { enginetest.Main(m) }

// The investigation profiles both arms under perf, one at a time on the measured CPU (the fake
// candidate's multi-thread variant doing far more work than its baseline), keeps the profiles
// and the commands to reproduce them, journals the profiled runs, and writes nothing outside
// the campaign.
func TestInvestigationNamesTheCandidatesExtraWork(t *testing.T) {
	if testing.Short() {
		t.Skip("profiles two fake replays under perf")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but Linux perf is not installed (.ci/run installs linux-perf)")
		}
		t.Skip("Linux perf is not installed")
	}
	dir := filepath.Join(t.TempDir(), "c")
	enginetest.RunDeterminism(t, enginetest.Row("", "multi-thread"), dir)
	c, log := enginetest.Open(t, enginetest.Row("", "multi-thread"), dir)
	if err := investigate.Start(c.Host(), "test: the fake arms write the same report"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	c.Close()
	<-log.Done
	if b := enginetest.EventsOf[engine.RowBlocked](log.All()); len(b) > 0 {
		t.Fatalf("blocked: %v", b)
	}
	inv, err := engine.LoadInvestigation(dir)
	if err != nil || inv == nil {
		t.Fatalf("investigation %v, %v", inv, err)
	}
	// Each arm ran Rounds times, baseline and candidate alternating, until each had enough
	// samples (or the rounds ran out).
	samples := map[engine.Arm]int{}
	if inv.Rounds < 1 || len(inv.Runs) != 2*inv.Rounds {
		t.Fatalf("%d rounds, runs %+v", inv.Rounds, inv.Runs)
	}
	for i, r := range inv.Runs {
		if want := []engine.Arm{engine.Baseline, engine.Candidate}[i%2]; r.Arm != want {
			t.Fatalf("run %d is the %s's, want the %s's (alternating): %+v", i, r.Arm, want, inv.Runs)
		}
		samples[r.Arm] += r.Samples
	}
	t.Logf("%d rounds: %+v", inv.Rounds, inv.Runs)
	if samples[engine.Candidate] < 50 {
		t.Fatalf("runs %+v", inv.Runs)
	}
	// (Which function tops the differential is checked on the real embedded engine, in the root
	// package's TestInvestigateNamesTheSlowdown: perf does not symbolize this test binary's
	// pinned copies reliably when it runs inside `go test`.)
	if inv.Differential.CandidateSamples != samples[engine.Candidate] || inv.Differential.BaselineSamples != samples[engine.Baseline] {
		t.Fatalf("differential %+v, runs %+v", inv.Differential.Top(3), inv.Runs)
	}
	for _, r := range inv.Runs {
		if _, err := os.Stat(filepath.Join(dir, r.Data)); err != nil {
			t.Errorf("%s: perf data not kept: %v", r.Arm, err)
		}
	}
	if len(inv.Reproduce) != 2 || !strings.Contains(inv.Reproduce[0], "perf record -e cpu-clock") {
		t.Errorf("reproduce %q", inv.Reproduce)
	}
	// Nothing written outside the campaign: perf's build-id cache is off.
	if home, _ := os.UserHomeDir(); home != "" {
		if _, err := os.Stat(filepath.Join(home, ".debug")); err == nil {
			t.Errorf("perf wrote its build-id cache to %s/.debug, outside the campaign", home)
		}
	}
	// One arm at a time: the two profiled runs never overlap, and both ran on the measured CPU.
	recs, _, _ := journal.Read[engine.Record](filepath.Join(dir, "journal.jsonl"), journal.RefuseDamage)
	var spans [][2]time.Time
	for _, r := range recs {
		switch {
		case r.Kind == engine.KindProfile && r.Type == engine.RecRunStart:
			if len(r.CPUs) != 1 || r.CPUs[0] != inv.CPU {
				t.Errorf("%s ran on %v, want CPU %d", r.Run, r.CPUs, inv.CPU)
			}
			spans = append(spans, [2]time.Time{r.At})
		case r.Kind == engine.KindProfile && r.Type == engine.RecRunEnd:
			spans[len(spans)-1][1] = r.At
		}
	}
	if len(spans) != len(inv.Runs) {
		t.Errorf("%d profiled runs journaled, %d in the investigation", len(spans), len(inv.Runs))
	}
	for i := 1; i < len(spans); i++ {
		if spans[i][0].Before(spans[i-1][1]) {
			t.Errorf("profiled runs overlap: %v", spans)
		}
	}
}
