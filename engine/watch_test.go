package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvparity/verdict"
)

// pathRow is a row whose arms are path binaries (copies of the fake replay), as for a real
// offline_replay_bench.
func pathRow(t *testing.T) (*Row, string) {
	t.Helper()
	src := t.TempDir()
	for _, name := range []string{"base_bench", "cand_bench"} {
		if _, _, err := copyHashed(testBinary(t), filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	r := tinyTestRow("", "")
	r.Baseline = ArmSpec{Revision: "a1b2c3d4", Binary: filepath.Join(src, "base_bench"), Features: []string{"replay-bench"}}
	r.Candidate = ArmSpec{Revision: "e4f5a6b7", Binary: filepath.Join(src, "cand_bench"), Features: []string{"replay-bench"}}
	return r, src
}

// rebuild changes a binary's bytes the way a build does (it stays runnable).
func rebuild(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("rebuilt")
	f.Close()
}

func TestWatchRepinsARebuiltArtifactAndRerunsDeterminism(t *testing.T) {
	if testing.Short() {
		t.Skip("two determinism stages of fake replays, the second started by the watcher")
	}
	row, src := pathRow(t)
	dir := filepath.Join(t.TempDir(), "c")
	c, log := openTest(t, row, dir)
	if err := ctl(c).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if s := c.Summary(); c.History().Parity().Verdict != verdict.Pass {
		t.Fatalf("first pass: %+v", s)
	}
	old := c.Pinned(Candidate)
	if !strings.HasPrefix(old.Path, "artifacts/candidate-g1-") || old.TextSize <= 0 || old.Size <= 0 {
		t.Fatalf("pinned %+v", old)
	}
	if err := ctl(c).SetWatch(true); err != nil {
		t.Fatal(err)
	}
	if !c.Watching() {
		t.Fatal("Watching() false after SetWatch(true)")
	}
	rebuild(t, filepath.Join(src, "cand_bench"))
	log.waitFor(t, "the repinned candidate to be STABLE again", func(evs []Event) bool {
		n := 0
		for _, v := range eventsOf[StageVerdict](evs) {
			if v.Stage == StageParity {
				n++
			}
		}
		return n >= 2
	})
	changed := eventsOf[ArtifactChanged](log.all())
	if len(changed) == 0 || changed[0].Arm != Candidate || changed[0].OldSHA256 != old.SHA256 || changed[0].NewSHA256 == old.SHA256 || !changed[0].Repinned {
		t.Fatalf("ArtifactChanged %+v", changed)
	}
	cur := c.Pinned(Candidate)
	if cur.Gen != 2 || cur.SHA256 != changed[0].NewSHA256 || cur.Stale {
		t.Fatalf("re-pinned %+v", cur)
	}
	// The new generation ran in fresh processes; the old results are marked stale in the journal.
	stale := false
	for _, r := range c.journal.Records() {
		stale = stale || (r.Type == RecStale && r.Arm == Candidate && r.Gen == 1)
	}
	if !stale {
		t.Fatal("no stale record for the old candidate generation")
	}
	s := c.Summary()
	if s.Arms[Candidate].Gen != 2 || !strings.HasSuffix(string(s.Arms[Candidate].Runs[0].Run), "-g2") || c.History().Parity().Verdict != verdict.Pass {
		t.Fatalf("after rerun: %+v %+v", s.Arms[Candidate], c.History().Parity())
	}
	ctl(c).SetWatch(false)
	if c.Watching() {
		t.Fatal("still watching")
	}
}

func TestChangedSourceIsDetectedOnOpenAndNeverReused(t *testing.T) {
	if testing.Short() {
		t.Skip("two determinism stages of fake replays around a rebuild")
	}
	row, src := pathRow(t)
	dir := filepath.Join(t.TempDir(), "c")
	runDeterminism(t, row, dir)
	rebuild(t, filepath.Join(src, "base_bench"))

	c, err := Open(dir, testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	log := drain(c)
	log.waitFor(t, "ArtifactChanged", func(evs []Event) bool {
		for _, e := range eventsOf[ArtifactChanged](evs) {
			if e.Arm == Baseline && !e.Repinned {
				return true
			}
		}
		return false
	})
	if !c.Pinned(Baseline).Stale || !c.Info().Artifacts[Baseline].Stale {
		t.Fatal("baseline not marked stale")
	}
	if err := c.Host().PerfAllowed(); err == nil || !strings.Contains(err.Error(), "baseline artifact changed") {
		t.Fatalf("perf allowed on a stale artifact: %v", err)
	}
	// Starting the stage re-pins before running: the old copy is never run again.
	if err := ctl(c).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	if p := c.Pinned(Baseline); p.Gen != 2 || p.Stale {
		t.Fatalf("baseline after rerun %+v", p)
	}
	staleSeen := false
	for _, r := range c.journal.Records() {
		staleSeen = staleSeen || (r.Type == RecStale && r.Arm == Baseline)
		if staleSeen && r.Type == RecRunStart && r.Arm == Baseline && r.Gen != 2 {
			t.Errorf("baseline ran generation %d after its source changed: %s", r.Gen, r.Run)
		}
	}
	c.Close()
}

func TestVerifyPinnedCatchesAModifiedCopy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, _ := openTest(t, tinyTestRow("", ""), dir)
	rebuild(t, filepath.Join(dir, c.Pinned(Candidate).Path))
	if err := c.arms.verify(); err == nil || !strings.Contains(err.Error(), "modified after pinning") {
		t.Fatalf("got %v", err)
	}
}

func TestARemovedSourceKeepsThePinnedCopy(t *testing.T) {
	if testing.Short() {
		t.Skip("two determinism stages of fake replays around a removed source")
	}
	row, src := pathRow(t)
	dir := filepath.Join(t.TempDir(), "c")
	runDeterminism(t, row, dir)
	os.Remove(filepath.Join(src, "cand_bench"))
	s, _ := runDeterminism(t, row, dir)
	if s.Arms[Candidate].Gen != 1 || s.Arms[Candidate].Stale || semanticExit(s) != 0 {
		t.Fatalf("after the source was removed: %+v %+v", s.Arms[Candidate], s)
	}
}

func TestWatchAnnouncesAChangedRowFileAndKeepsTheFrozenRow(t *testing.T) {
	rowFile := filepath.Join(t.TempDir(), "row.toml")
	b, _ := tinyTestRow("", "").Encode()
	os.WriteFile(rowFile, b, 0o644)
	opts := testOptions(t, filepath.Join(t.TempDir(), "c"))
	opts.RowPath = rowFile
	c, err := OpenOrCreate(tinyTestRow("", ""), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	log := drain(c)
	if err := ctl(c).SetWatch(true); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(rowFile, append(b, "# edited\n"...), 0o644)
	log.waitFor(t, "the row file's ArtifactChanged", func(evs []Event) bool {
		for _, e := range eventsOf[ArtifactChanged](evs) {
			if e.Arm == "" && e.Path == rowFile && e.OldSHA256 != e.NewSHA256 && !e.Repinned {
				return true
			}
		}
		return false
	})
	if c.Row().Name != "tiny" || c.Running() {
		t.Fatal("a row file edit changed the frozen campaign")
	}
}
