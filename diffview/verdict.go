package diffview

import (
	"iter"

	"kvparity/verdict"
)

// Semantic verdict words, the verdict package's (kept as names the pane and tests read).
const (
	VerdictPass           = verdict.Pass
	VerdictPassExceptions = verdict.PassWithSemanticExceptions
	VerdictFail           = verdict.Fail
)

// firstUncovered is how many uncovered pointers Coverage lists (it counts them all): a flood
// of differences would otherwise be listed whole, in memory and on screen.
const firstUncovered = 1000

// Coverage judges differing canonical pointers against exception records (protocol stage 5):
// how many differ, how many no valid record covers, and the first of those in document order
// (at most firstUncovered).
func Coverage(pointers iter.Seq[string], recs []ExceptionRecord) verdict.Exceptions {
	valid := make([]RecordMatcher, 0, len(recs))
	for i := range recs {
		if recs[i].Validate() == nil {
			valid = append(valid, CompileRecord(recs[i].Pointers))
		}
	}
	x := verdict.Exceptions{Records: len(valid), First: []string{}}
	for p := range pointers {
		x.Differing++
		covered := false
		for _, r := range valid {
			if r.Match(p) {
				covered = true
				break
			}
		}
		if !covered {
			x.Uncovered++
			if len(x.First) < firstUncovered {
				x.First = append(x.First, p)
			}
		}
	}
	return x
}

// A RecordCount is how many differing pointers one exception record covers.
type RecordCount struct {
	ID     string
	Covers int
}

// RecordCoverage counts, for each record, the differing pointers it covers.
func RecordCoverage(pointers iter.Seq[string], recs []ExceptionRecord) []RecordCount {
	out := make([]RecordCount, len(recs))
	rms := make([]RecordMatcher, len(recs))
	for i := range recs {
		out[i].ID = recs[i].ID
		rms[i] = CompileRecord(recs[i].Pointers)
	}
	for p := range pointers {
		for i := range rms {
			if rms[i].Match(p) {
				out[i].Covers++
			}
		}
	}
	return out
}

// SemanticVerdict is stage 8's semantic verdict for one baseline/candidate diff judged on its
// own: both revisions STABLE (or one UNSTABLE when unstable is set) and the lifecycle evidence
// taken as holding. It is verdict.Semantic over these inputs, so it never disagrees with the
// campaign's verdict on the same diff; in a campaign, the campaign's own inputs decide (missing
// lifecycle evidence still fails). x is the coverage of a differing diff (zero when equal):
// how many pointers no record covers, and the first of them.
func SemanticVerdict(d *Diff, recs []ExceptionRecord, unstable bool) (verdict.Word, verdict.Exceptions) {
	if d == nil {
		return verdict.Fail, verdict.Exceptions{}
	}
	stable := verdict.Of(verdict.Stable, "")
	in := verdict.Inputs{Baseline: stable, Candidate: stable, Evidence: verdict.Of(verdict.Pass, "")}
	if unstable {
		in.Candidate = verdict.Of(verdict.Unstable, "")
	}
	var x verdict.Exceptions
	if d.Equal() {
		in.Parity = verdict.Of(verdict.Pass, "")
	} else {
		x = Coverage(d.AllPointers(), recs)
		in.Parity, in.Exceptions = verdict.Of(verdict.Fail, ""), &x
	}
	return verdict.Semantic(in).Verdict, x
}
