package exceptions

import (
	"iter"

	"kvparity/diffview"
	"kvparity/verdict"
)

// FirstUncovered is how many uncovered pointers Coverage lists (it counts them all): a flood
// of differences would otherwise be listed whole, in memory and on screen.
const FirstUncovered = 1000

// Coverage judges differing canonical pointers against exception records (protocol stage 5):
// how many differ, how many no valid record covers, and the first of those in document order
// (at most FirstUncovered).
func Coverage(pointers iter.Seq[string], recs []ExceptionRecord) verdict.Exceptions {
	x, _ := CoverageByRecord(pointers, recs)
	return x
}

// A RecordCount is how many differing pointers one exception record covers.
type RecordCount struct {
	ID     string
	Covers int
}

// CoverageByRecord is Coverage and, for each record (valid or not), how many of the pointers
// it covers, in one pass: on a truncated diff each pass walks both reports.
func CoverageByRecord(pointers iter.Seq[string], recs []ExceptionRecord) (verdict.Exceptions, []RecordCount) {
	counts := make([]RecordCount, len(recs))
	rms := make([]diffview.Matchers, len(recs))
	valid := make([]bool, len(recs)) // only a valid record covers a pointer for the verdict
	x := verdict.Exceptions{First: []string{}}
	for i := range recs {
		counts[i].ID = recs[i].ID
		rms[i] = diffview.CompileAll(recs[i].Pointers)
		if valid[i] = recs[i].Validate() == nil; valid[i] {
			x.Records++
		}
	}
	for p := range pointers {
		x.Differing++
		covered := false
		for i := range rms {
			if rms[i].Match(p) {
				counts[i].Covers++
				covered = covered || valid[i]
			}
		}
		if !covered {
			x.Uncovered++
			if len(x.First) < FirstUncovered {
				x.First = append(x.First, p)
			}
		}
	}
	return x, counts
}

// SemanticVerdict is stage 8's semantic verdict for one baseline/candidate diff judged on its
// own: both revisions STABLE (or one UNSTABLE when unstable is set) and the lifecycle evidence
// taken as holding. It is verdict.Semantic over these inputs, so it never disagrees with the
// campaign's verdict on the same diff; in a campaign, the campaign's own inputs decide (missing
// lifecycle evidence still fails). x is the coverage of a differing diff (zero when equal):
// how many pointers no record covers, and the first of them.
func SemanticVerdict(d *diffview.Diff, recs []ExceptionRecord, unstable bool) (verdict.Word, verdict.Exceptions) {
	if d == nil {
		return verdict.Fail, verdict.Exceptions{}
	}
	if d.Equal() {
		return SemanticVerdictOf(verdict.Exceptions{}, unstable), verdict.Exceptions{}
	}
	x := Coverage(d.AllPointers(), recs)
	return SemanticVerdictOf(x, unstable), x
}

// SemanticVerdictOf is SemanticVerdict from a coverage already counted (Coverage or
// CoverageByRecord over every differing pointer; none differing is parity PASS).
func SemanticVerdictOf(x verdict.Exceptions, unstable bool) verdict.Word {
	stable := verdict.Of(verdict.Stable, "")
	in := verdict.Inputs{Baseline: stable, Candidate: stable, Evidence: verdict.Of(verdict.Pass, "")}
	if unstable {
		in.Candidate = verdict.Of(verdict.Unstable, "")
	}
	if x.Differing == 0 {
		in.Parity = verdict.Of(verdict.Pass, "")
	} else {
		in.Parity, in.Exceptions = verdict.Of(verdict.Fail, ""), &x
	}
	return verdict.Semantic(in).Verdict
}
