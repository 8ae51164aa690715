package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/engine/build/buildtest"
	"kvparity/verdict"
)

// The desk loop with a fake cargo: a row comparing a checkout's HEAD (baseline) with its
// working tree (candidate). With watch on, a saved edit rebuilds the candidate, pins it as
// generation 2 with the edit's diff in the campaign, marks generation 1 stale and reruns the
// determinism stage; the baseline stays at generation 1, and the rebuild's progress is published.
func TestWatchRebuildsAWorktreeCandidateOnSave(t *testing.T) {
	if testing.Short() {
		t.Skip("two determinism stages of fake replays around a fake rebuild")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	fixture, _ := filepath.Abs(filepath.Join("build", "testdata"))
	buildtest.Install(t, buildtest.Options{Fixture: fixture, Bench: testBinary(t)})
	repo, git := buildtest.Checkout(t, fixture)
	git("add", ".")
	git("commit", "-qm", "base")

	row := tinyTestRow("", "")
	row.Baseline = ArmSpec{Source: "git:" + repo + "@HEAD", Features: []string{"replay-bench"}}
	row.Candidate = ArmSpec{Source: "worktree:" + repo, Features: []string{"replay-bench"}}
	opts := testOptions(t, filepath.Join(t.TempDir(), "c"))
	opts.BuildCache = t.TempDir()
	c, err := OpenOrCreate(row, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	log := drain(c)
	if err := ctl(c).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if v := c.History().Parity().Verdict; v != verdict.Pass {
		t.Fatalf("before the edit: parity %s", v)
	}
	first := c.Pinned(Candidate)
	if first.Build == nil || first.Build.SnapshotSHA256 == "" || first.SourceDiff == "" {
		t.Fatalf("the worktree candidate's first pin: %+v", first)
	}
	if err := ctl(c).SetWatch(true); err != nil {
		t.Fatal(err)
	}
	harness := filepath.Join(repo, "lib", "bench", "offline_replay_bench.rs")
	b, _ := os.ReadFile(harness)
	os.WriteFile(harness, append(b, []byte("// a one-line edit at the desk\n")...), 0o644)
	log.waitFor(t, "the rebuilt candidate's parity verdict", func(evs []Event) bool {
		n := 0
		for _, v := range eventsOf[StageVerdict](evs) {
			if v.Stage == StageParity {
				n++
			}
		}
		return n >= 2
	})
	ctl(c).SetWatch(false)
	second := c.Pinned(Candidate)
	if second.Gen != 2 || second.SHA256 == first.SHA256 || second.Build.SnapshotSHA256 == first.Build.SnapshotSHA256 || !second.Build.Incremental {
		t.Errorf("generation 2: %+v (build %+v)", second, second.Build)
	}
	if base := c.Pinned(Baseline); base.Gen != 1 {
		t.Errorf("the baseline was re-pinned: generation %d", base.Gen)
	}
	diff, err := os.ReadFile(filepath.Join(c.Dir(), second.SourceDiff))
	if err != nil || !strings.Contains(string(diff), "+// a one-line edit at the desk") {
		t.Errorf("the campaign's diff of generation 2 (%s): %v\n%s", second.SourceDiff, err, diff)
	}
	stale := false
	for _, r := range c.journal.Records() {
		stale = stale || (r.Type == RecStale && r.Arm == Candidate && r.Gen == 1 && strings.Contains(r.Reason, "worktree:"+repo))
	}
	if !stale {
		t.Error("no stale record for the candidate's generation 1")
	}
	phases := map[string]bool{}
	for _, p := range eventsOf[BuildProgress](log.all()) {
		phases[p.Phase] = true
	}
	if !phases["compiling"] || !phases["done"] {
		t.Errorf("the rebuild's progress was not published: phases %v", phases)
	}
	if v := c.History().Parity().Verdict; v != verdict.Pass {
		t.Errorf("after the edit (a comment): parity %s", v)
	}
}
