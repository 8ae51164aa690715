package diffpane

import (
	"kvparity/diffview/diagnose"
	"kvparity/exceptions"
	"kvparity/verdict"
)

// A standing is how the exception records stand against the diff: the diff's semantic
// verdict judged on its own, how many differing pointers no record covers, how many each
// record covers, and which records that makes broad. It is computed off the update loop (loadDiff, saveException,
// deleteException): on a diff that holds only some of its changes in detail it walks every
// pointer of both reports.
type standing struct {
	verdict   verdict.Word
	uncovered int
	covers    map[string]int    // record id → differing pointers it covers
	broad     map[string]string // record id → why it is broad (BroadReason); absent when not
	unstable  bool              // the flag it was computed for
}

func standingOf(d *diagnose.Diff, recs []exceptions.ExceptionRecord, unstable bool) standing {
	s := standing{covers: map[string]int{}, broad: map[string]string{}, unstable: unstable}
	differing := 0
	if d != nil {
		x, counts := exceptions.CoverageByRecord(d.AllPointers(), recs) // one walk for both
		s.verdict, s.uncovered = exceptions.SemanticVerdictOf(x, unstable), x.Uncovered
		for _, rc := range counts {
			s.covers[rc.ID] = rc.Covers
		}
		differing = d.Count
	}
	// Broadness is computed from the patterns and this coverage, never read from the file: a
	// record saved by hand with "broad": false is BROAD all the same (without a diff, only a
	// root pattern makes one broad).
	for i := range recs {
		if why := exceptions.BroadReason(recs[i].Pointers, s.covers[recs[i].ID], differing); why != "" {
			s.broad[recs[i].ID] = why
		}
	}
	return s
}

// takeStanding shows a standing computed off the loop for diff d when d and its UNSTABLE
// flag are still the pane's (it may have moved on meanwhile), and computes one otherwise.
func (p *Model) takeStanding(s standing, d *diagnose.Diff) {
	if d != p.diff || s.unstable != p.unstable {
		p.refreshVerdict()
		return
	}
	p.verdict, p.uncovered, p.recCovers, p.recBroad = s.verdict, s.uncovered, s.covers, s.broad
}

// refreshVerdict computes the standing here, on the update loop (a campaign set or an
// UNSTABLE flag changed: rare, and cheap unless the diff is truncated).
func (p *Model) refreshVerdict() {
	s := standingOf(p.diff, p.recs, p.unstable)
	p.verdict, p.uncovered, p.recCovers, p.recBroad = s.verdict, s.uncovered, s.covers, s.broad
}
