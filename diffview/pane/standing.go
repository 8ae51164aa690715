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
	var x verdict.Exceptions
	s.verdict, x = diffview.SemanticVerdict(d, recs, unstable)
	s.uncovered = x.Uncovered
	for _, rc := range diffview.RecordCoverage(d.AllPointers(), recs) {
		s.covers[rc.ID] = rc.Covers
	}
	return s
}

// setStanding shows a standing computed off the loop when it is for this diff and flag
// (the pane may have moved on while it was computed), and computes it here otherwise.
func (p *Model) setStanding(s standing, d *diffview.Diff) {
	if d != p.diff || s.unstable != p.unstable || s.covers == nil {
		s = standingOf(p.diff, p.recs, p.unstable)
	}
	p.verdict, p.uncovered, p.recCovers = s.verdict, s.uncovered, s.covers
}
