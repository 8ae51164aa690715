package campaignreport

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"

	"kvparity/diffview/diagnose"
	"kvparity/exceptions"
	"kvparity/internal/layout"
)

// IsCampaign says whether dir is a campaign (it has a journal), rather than a folder holding
// only exception records.
func IsCampaign(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, layout.FileJournal))
	return err == nil
}

// DiffSemantic is `kvparity diff --campaign DIR`'s semantic section, decided in one place: the
// coverage of the diff's differing pointers by dir's exception records, and the verdict -- the
// campaign's, exactly as its report states it, when dir is a campaign (built, when the caller
// built the report already, or built here once), else this diff's own against the records
// (unstable: an arm is UNSTABLE).
func DiffSemantic(dir string, built *Report, pointers iter.Seq[string], unstable bool) (*diagnose.JSONSemantic, error) {
	recs, err := exceptions.LoadExceptions(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	x := exceptions.Coverage(pointers, recs)
	sem := &diagnose.JSONSemantic{Records: x.Records, UncoveredCount: x.Uncovered, Uncovered: x.First}
	if !IsCampaign(dir) {
		sem.Verdict, sem.Of = exceptions.SemanticVerdictOf(x, unstable), "diff" // the coverage just counted
		return sem, nil
	}
	if built == nil {
		if built, err = Build(dir); err != nil {
			return nil, err
		}
	}
	v := built.Verdicts().Semantic
	sem.Verdict, sem.Reason, sem.Of = v.Verdict, v.Reason, "campaign"
	return sem, nil
}

// WriteDiffSemantic prints the semantic section under kvparity diff's text: the verdict, whose
// it is, and the first per uncovered pointers (0: all of those listed).
func WriteDiffSemantic(w io.Writer, sem *diagnose.JSONSemantic, per int) {
	fmt.Fprintf(w, "\nsemantic verdict: %s (%d exception record(s))\n", sem.Verdict, sem.Records)
	if sem.Of == "campaign" {
		fmt.Fprintf(w, "  the campaign's, as its report says: %s\n", sem.Reason)
	}
	shown := sem.Uncovered
	if per > 0 {
		shown = shown[:min(per, len(shown))]
	}
	for _, p := range shown {
		fmt.Fprintf(w, "  uncovered %s\n", p)
	}
	if more := sem.UncoveredCount - len(shown); more > 0 {
		fmt.Fprintf(w, "  … %d more uncovered (--json lists the first %d)\n", more, len(sem.Uncovered))
	}
}
