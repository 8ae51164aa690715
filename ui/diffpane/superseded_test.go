package diffpane

import (
	"strings"
	"testing"

	"kvparity/diffview"
	"kvparity/verdict"
)

// The pane decides what a rebuild means for its open diff (issue 44, item B): a diff of the
// rebuilt arm's reports is marked stale, a diff of the other arm's reports only is not, and a
// stale diff is cleared once the new generation passes parity.
func TestPaneSupersededByARebuild(t *testing.T) {
	dir, a, b := semanticPair(t)
	p := newPane(true)
	p.SetSize(100, 30)
	p.SetCampaign(dir)
	p = run(t, p, p.Open(diffview.Side{Label: "base#1", ReportPath: a, Arm: "baseline"}, diffview.Side{Label: "base#2", ReportPath: b, Arm: "baseline"}))
	p.Supersede("candidate", 1, 2, true)
	if v := stripANSI(p.View()); !strings.HasPrefix(v, "DIFF  base#1 ↔ base#2") {
		t.Fatalf("a rebuilt candidate does not make a baseline-only diff stale:\n%s", v)
	}
	if p.SetParity(verdict.Pass) {
		t.Fatal("a current diff is never cleared by a parity verdict")
	}

	p = run(t, p, p.Open(diffview.Side{Label: "base#1", ReportPath: a, Arm: "baseline"}, diffview.Side{Label: "cand#1", ReportPath: b, Arm: "candidate"}))
	p.Supersede("candidate", 1, 0, false)
	if v := stripANSI(p.View()); !strings.HasPrefix(v, "DIFF (generation 1, stale: the candidate changed after it was pinned)  base#1 ↔ cand#1") {
		t.Fatalf("a changed, not yet re-pinned candidate:\n%s", v)
	}
	if p.SetParity(verdict.Pass) {
		t.Fatal("nothing was rerun: a parity verdict is not the new generation's")
	}
	p.Supersede("candidate", 1, 2, true) // the re-pin that follows
	if v := stripANSI(p.View()); !strings.HasPrefix(v, "DIFF (generation 1, superseded by generation 2: rerunning)") {
		t.Fatalf("re-pinned:\n%s", v)
	}
	if !p.SetParity(verdict.Pass) || p.diff != nil || strings.Contains(stripANSI(p.View()), "differing") {
		t.Fatalf("the new generation passes: the old differences must go:\n%s", stripANSI(p.View()))
	}
}
