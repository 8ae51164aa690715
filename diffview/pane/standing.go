package pane

import (
	"kvparity/diffview"
	"kvparity/verdict"
)

// A standing is how the exception records stand against the diff: the diff's semantic
// verdict judged on its own, how many differing pointers no record covers, and how many each
// record covers. It is computed off the update loop (loadDiff, saveException,
// deleteException): on a diff that holds only some of its changes in detail it walks every
// pointer of both reports.
type standing struct {
	verdict   verdict.Word
	uncovered int
	covers    map[string]int // record id → differing pointers it covers
	unstable  bool           // the flag it was computed for
}

func standingOf(d *diffview.Diff, recs []diffview.ExceptionRecord, unstable bool) standing {
	s := standing{covers: map[string]int{}, unstable: unstable}
	if d == nil {
		return s
	}
	x, counts := diffview.CoverageByRecord(d.AllPointers(), recs) // one walk for both
	s.verdict, s.uncovered = diffview.SemanticVerdictOf(x, unstable), x.Uncovered
	for _, rc := range counts {
		s.covers[rc.ID] = rc.Covers
	}
	return s
}

// takeStanding shows a standing computed off the loop for diff d when d and its UNSTABLE
// flag are still the pane's (it may have moved on meanwhile), and computes one otherwise.
func (p *Model) takeStanding(s standing, d *diffview.Diff) {
	if d != p.diff || s.unstable != p.unstable {
		p.refreshVerdict()
		return
	}
	p.verdict, p.uncovered, p.recCovers = s.verdict, s.uncovered, s.covers
}

// refreshVerdict computes the standing here, on the update loop (a campaign set or an
// UNSTABLE flag changed: rare, and cheap unless the diff is truncated).
func (p *Model) refreshVerdict() {
	s := standingOf(p.diff, p.recs, p.unstable)
	p.verdict, p.uncovered, p.recCovers = s.verdict, s.uncovered, s.covers
}
