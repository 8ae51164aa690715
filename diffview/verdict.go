package diffview

// Semantic verdict words (DESIGN.md "Verdicts").
const (
	VerdictPass           = "PASS"
	VerdictPassExceptions = "PASS_WITH_SEMANTIC_EXCEPTIONS"
	VerdictFail           = "FAIL"
)

// SemanticVerdict decides protocol stage 5 for one baseline/candidate diff: PASS when the
// reports are identical; PASS_WITH_SEMANTIC_EXCEPTIONS only when every differing pointer is
// covered by a valid exception record; FAIL otherwise, and always FAIL when an arm is
// UNSTABLE (exceptions never waive leaked entropy). uncovered lists the differing pointers no
// record covers, in document order.
func SemanticVerdict(d *Diff, recs []ExceptionRecord, unstable bool) (verdict string, uncovered []string) {
	if d == nil {
		return VerdictFail, nil
	}
	valid := make([]*ExceptionRecord, 0, len(recs))
	for i := range recs {
		if recs[i].Validate() == nil {
			valid = append(valid, &recs[i])
		}
	}
	for _, c := range d.Changes {
		covered := false
		for _, r := range valid {
			if r.Covers(c.Pointer) {
				covered = true
				break
			}
		}
		if !covered {
			uncovered = append(uncovered, c.Pointer)
		}
	}
	switch {
	case unstable:
		return VerdictFail, uncovered
	case d.Equal():
		return VerdictPass, nil
	case len(uncovered) == 0:
		return VerdictPassExceptions, nil
	}
	return VerdictFail, uncovered
}

// CoveredBy lists, for each differing pointer, the ids of the records that cover it.
func CoveredBy(d *Diff, recs []ExceptionRecord) map[string][]string {
	out := map[string][]string{}
	for _, c := range d.Changes {
		for i := range recs {
			if recs[i].Covers(c.Pointer) {
				out[c.Pointer] = append(out[c.Pointer], recs[i].ID)
			}
		}
	}
	return out
}
