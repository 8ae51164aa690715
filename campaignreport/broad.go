package campaignreport

import (
	"slices"

	"kvparity/exceptions"
)

// flagBroad computes which exception records are broad against the report's differences
// (none when parity holds: then only a root pattern makes a record broad). The file's
// "broad" is never trusted: a record saved by hand with "broad": false that names a root
// pattern is flagged all the same. The report's copy of each record carries the computed
// flag, so no reader of report.json meets a stale one; what the author confirmed stays in
// the record's coverage entry (ConfirmedBroad), with the reason it is broad now.
func (s *Semantic) flagBroad() {
	differing := 0
	if s.Diff != nil {
		differing = s.Diff.Count
	}
	covers := map[string]int{}
	for _, c := range s.Coverage {
		covers[c.ID] = c.Covers
	}
	s.Exceptions = slices.Clone(s.Exceptions)
	cov := make([]recordCoverage, len(s.Exceptions))
	for i := range s.Exceptions {
		e := &s.Exceptions[i]
		why := exceptions.BroadReason(e.Pointers, covers[e.ID], differing)
		cov[i] = recordCoverage{ID: e.ID, Covers: covers[e.ID], Broad: why, ConfirmedBroad: e.Broad}
		e.Broad = why != ""
	}
	s.Coverage = cov
}
