package artifacts

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"kvparity/engine"
	"kvparity/engine/build"
	"kvparity/ui/theme"
)

func arts(textBase, textCand int64) map[engine.Arm]engine.ArtifactInfo {
	return map[engine.Arm]engine.ArtifactInfo{
		engine.Baseline:  {Arm: engine.Baseline, Revision: "a1b2c3d", SHA256: "1f2e3d4c5b6a", Size: 1000, TextSize: textBase},
		engine.Candidate: {Arm: engine.Candidate, Revision: "e4f5a6b", SHA256: "9a8b7c6d5e4f", Size: 1100, TextSize: textCand},
	}
}

func TestGrowthAndWatchState(t *testing.T) {
	m := New(theme.NewStyles(true, false), arts(1000, 1080))
	m.SetWatching(true)
	m.SetSize(120, 2)
	s := ansi.Strip(m.View())
	for _, want := range []string{"baseline  a1b2c3d", "candidate e4f5a6b", ".text 1.1 KB +8.0%", "● watching"} {
		if !strings.Contains(s, want) {
			t.Errorf("view lacks %q:\n%s", want, s)
		}
	}
	// Over the protocol's 5% footprint limit the growth is styled as bad.
	if !strings.Contains(m.growth(1000, 1080), "\x1b[") || strings.Contains(m.growth(1000, 1010), "\x1b[") {
		t.Error("only growth above 5% is highlighted")
	}
}

func TestStaleUntilRepinned(t *testing.T) {
	m := New(theme.NewStyles(true, false), arts(1000, 1000))
	m, _ = m.Update(engine.ArtifactChanged{Arm: engine.Candidate, Path: "/bin/x", OldSHA256: "9a8b", NewSHA256: "beef01"})
	if got := m.Stale(); len(got) != 1 || got[0] != engine.Candidate {
		t.Fatalf("stale %v", got)
	}
	m.SetSize(140, 2)
	if s := ansi.Strip(m.View()); !strings.Contains(s, "STALE (source changed after pinning)") {
		t.Fatalf("view:\n%s", s)
	}
	// Watch mode re-pinned it: the new pin carries the new digest and is not stale.
	repinned := arts(1000, 1000)
	c := repinned[engine.Candidate]
	c.SHA256 = "beef01"
	repinned[engine.Candidate] = c
	m.SetArtifacts(repinned)
	if len(m.Stale()) != 0 {
		t.Fatalf("re-pinned arm still stale: %v", m.Stale())
	}
	if s := ansi.Strip(m.View()); !strings.Contains(s, "re-pinned beef01") {
		t.Fatalf("view:\n%s", s)
	}
}

func TestOneLineLayoutKeepsWatchAndFootprint(t *testing.T) {
	m := New(theme.NewStyles(true, false), arts(1000, 1000))
	m, _ = m.Update(engine.StageVerdict{Stage: engine.StageFootprint, Verdict: "FAIL"})
	m.SetSize(60, 1)
	s := ansi.Strip(m.View())
	if !strings.Contains(s, "○ watch off") || !strings.Contains(s, "footprint FAIL") {
		t.Fatalf("view:\n%s", s)
	}
}

// A variant names the revision: it is never cut, at any width. Where one line cannot hold both
// arms, the workbench gives the pane two (OneLineFits says so).
func TestVariantNamesAreNeverCut(t *testing.T) {
	a := arts(1000, 1000)
	c := a[engine.Candidate]
	c.Revision, c.Variant = "builtin", "leak-random-uuid"
	a[engine.Candidate] = c
	b := a[engine.Baseline]
	b.Revision = "builtin"
	a[engine.Baseline] = b
	m := New(theme.NewStyles(true, false), a)
	for _, w := range []int{80, 100, 200} {
		m.SetSize(w, 2)
		if s := ansi.Strip(m.View()); !strings.Contains(s, "builtin/leak-random-uuid") || !strings.Contains(s, "○ watch off") {
			t.Errorf("at %d columns:\n%s", w, s)
		}
	}
	if m.OneLineFits(60) {
		t.Fatal("both arms with a variant do not fit on 60 columns")
	}
	m.SetSize(120, 1)
	if s := ansi.Strip(m.View()); !strings.Contains(s, "cand builtin/leak-random-uuid") {
		t.Fatalf("one line:\n%s", s)
	}
}

func TestWatchNewsNamesWhatIsFollowed(t *testing.T) {
	a := arts(1000, 1000)
	m := New(theme.NewStyles(true, false), a)
	if got := m.WatchNews(); !strings.Contains(got, "both arms' binaries") {
		t.Errorf("binary arms: %q", got)
	}
	for snapshot, want := range map[string]string{"": "a new commit rebuilds it", "ab12": "a saved file rebuilds it"} {
		c := a[engine.Candidate]
		c.Build = &build.Info{Source: "worktree:/src/dynamo#" + snapshot, Lineage: "lineage-0123", SnapshotSHA256: snapshot}
		if snapshot == "" {
			c.Build.Source = "git:/src/dynamo@0123"
		}
		a[engine.Candidate] = c
		m.SetArtifacts(a)
		if got := m.WatchNews(); !strings.Contains(got, "the candidate's checkout: "+want) {
			t.Errorf("snapshot %q: %q", snapshot, got)
		}
	}
	// A published crate compiles in a lineage too, but never moves: its binary is followed.
	c := a[engine.Candidate]
	c.Build = &build.Info{Source: "crate:dynamo-bench@1.6.1", Lineage: "lineage-4567"}
	a[engine.Candidate] = c
	m.SetArtifacts(a)
	if got := m.WatchNews(); !strings.Contains(got, "both arms' binaries") {
		t.Errorf("a published crate's candidate: %q", got)
	}
}
