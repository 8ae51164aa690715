package diagnose

import "kvparity/diffview"

// A Diff is a diffview.Diff with its diagnosis. The lenses read what the diff holds (its
// changes, its two documents, the events it placed them at) and keep what more than one of
// them reads, made on first use.
type Diff struct {
	*diffview.Diff
	Diagnosis []Signature // most specific first; empty when equal
	// Repetitions says the two sides are fresh processes of one build (an arm's repetitions):
	// nothing changed between them but entropy, so values that moved before any decision
	// differed are a leak (entropy), never a timing model that changed.
	Repetitions bool

	decs       []decision // routing decisions of both runs, filled on first use
	decsDone   bool
	renamed    []*namespace // wholeRunRenamings of decs, filled on first use
	renamedSet bool
	// placements are the records' placements as decisions when no record holds a routing
	// history (recordPlacements), filled on first use.
	placements    []decision
	placementsSet bool
	layout        *configLayout  // the metadata's one-sided members (configLayout), made on first use
	version       *versionLayout // the version change between two release lines (versions.go)
	versionDone   bool
}

// Of diagnoses d.
func Of(d *diffview.Diff) *Diff {
	dd := &Diff{Diff: d}
	dd.Diagnosis = diagnose(dd)
	return dd
}

// OfRepetitions diagnoses d, the diff of two repetitions of one build (Diff.Repetitions).
func OfRepetitions(d *diffview.Diff) *Diff {
	dd := &Diff{Diff: d, Repetitions: true}
	dd.Diagnosis = diagnose(dd)
	return dd
}

// DiffFiles is diffview.DiffFiles with the diagnosis.
func DiffFiles(a, b string) (*Diff, error) { return of(diffview.DiffFiles(a, b)) }

// DiffRepetitionFiles is DiffFiles for two repetitions of one build (Diff.Repetitions).
func DiffRepetitionFiles(a, b string) (*Diff, error) {
	d, err := diffview.DiffFiles(a, b)
	if err != nil {
		return nil, err
	}
	return OfRepetitions(d), nil
}

// DiffBytes is diffview.DiffBytes with the diagnosis.
func DiffBytes(nameA string, a []byte, nameB string, b []byte) (*Diff, error) {
	return of(diffview.DiffBytes(nameA, a, nameB, b))
}

// DiffRelease is diffview.DiffRelease with the diagnosis.
func DiffRelease(a, b diffview.ReleaseRun) (*Diff, error) { return of(diffview.DiffRelease(a, b)) }

func of(d *diffview.Diff, err error) (*Diff, error) {
	if err != nil {
		return nil, err
	}
	return Of(d), nil
}
