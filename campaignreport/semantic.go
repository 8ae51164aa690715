package campaignreport

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"kvparity/diffview"
	"kvparity/diffview/diagnose"
	"kvparity/engine"
	"kvparity/exceptions"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// changesPerGroup bounds how many changes of each diff group the report quotes; every
// change is kept in diffs/.
const changesPerGroup = 5

// maxQuotedChanges bounds the quoted changes over all groups (a 5,000-request mismatch has
// thousands of groups).
const maxQuotedChanges = 40

// maxGroups and maxUncovered bound the lists report.json quotes; diffs/*.json has them all.
const (
	maxGroups    = 24
	maxUncovered = 200
)

// focusedDiff diffs two kept canonical reports (campaign-relative paths) into diffs/<name>.json.
// When the reports are gone (cleaned up after the report was first written) the diff is read
// back from that file, so the report stays reproducible. out receives the file to write.
func (c *campaign) focusedDiff(name, relA, relB string, out map[string][]byte) (*DiffSummary, error) {
	file := path.Join(layout.DirDiffs, name+".json")
	var jr diagnose.JSONReport
	if relA != "" && relB != "" && c.exists(relA) && c.exists(relB) {
		a, err := os.ReadFile(filepath.Join(c.dir, filepath.FromSlash(relA)))
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(filepath.Join(c.dir, filepath.FromSlash(relB)))
		if err != nil {
			return nil, err
		}
		d, err := diagnose.DiffBytes(relA, a, relB, b)
		if err != nil {
			return nil, fmt.Errorf("diffing %s and %s: %w", relA, relB, err)
		}
		jr = d.Report()
		var buf bytes.Buffer
		if err := diagnose.WriteJSON(&buf, jr); err != nil {
			return nil, err
		}
		out[file] = buf.Bytes()
	} else {
		err := engine.ReadJSONFile(filepath.Join(c.dir, filepath.FromSlash(file)), &jr)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
	}
	s := &DiffSummary{File: file, A: jr.A, B: jr.B, Count: jr.Count, Held: jr.Held, Pointers: jr.Pointers, First: jr.First,
		Diagnosis: jr.Diagnosis, Groups: []diffGroup{}, Changes: []diffview.JSONChange{}}
	s.GroupN = len(jr.Groups)
	for i, g := range jr.Groups {
		if i < maxGroups {
			s.Groups = append(s.Groups, diffGroup{Key: g.Key, Title: g.Title, Count: g.Count})
		}
		for i, ch := range g.Changes {
			if i == changesPerGroup || len(s.Changes) == maxQuotedChanges {
				break
			}
			s.Changes = append(s.Changes, ch)
		}
	}
	if s.Pointers == nil {
		s.Pointers = []string{}
	}
	if s.Diagnosis == nil {
		s.Diagnosis = []diagnose.Signature{}
	}
	return s, nil
}

// semantic gathers the semantic section's details: the focused diff of a byte mismatch and
// how the exception records cover it (the verdict itself is verdict.Decide's).
func (c *campaign) semantic(arms []armReport, parity verdict.Outcome, out map[string][]byte) (Semantic, *verdict.Exceptions, error) {
	s := Semantic{Exceptions: c.exceptions, Coverage: []recordCoverage{}, Uncovered: []string{}}
	if s.Exceptions == nil {
		s.Exceptions = []exceptions.ExceptionRecord{}
	}
	if parity.Verdict != verdict.Fail {
		return s, nil, nil
	}
	base, cand := arms[0], arms[1]
	d, err := c.focusedDiff("parity", firstReport(base), firstReport(cand), out)
	if err != nil {
		return s, nil, err
	}
	s.Diff = d
	if d == nil {
		return s, &verdict.Exceptions{Unchecked: "neither the kept full reports nor the focused diff (diffs/parity.json) exist: the mismatch cannot be checked against exception records"}, nil
	}
	x, counts := exceptions.CoverageByRecord(slices.Values(d.Pointers), c.exceptions)
	for _, rc := range counts {
		s.Coverage = append(s.Coverage, recordCoverage{ID: rc.ID, Covers: rc.Covers})
	}
	s.UncoveredN = x.Uncovered
	s.Uncovered = x.First[:min(len(x.First), maxUncovered)]
	x.First = headlineFirst(x.First, d.First, c.exceptions)
	return s, &x, nil
}

// headlineFirst is what the semantic verdict names as the first uncovered pointers: the first
// divergence (diffview's, the earliest point of the history) when no record covers it, else
// the first uncovered pointers in document order. Document order alone is near alphabetical
// (canonical reports sort their keys), which is rarely where the runs part.
func headlineFirst(uncovered []string, first *diffview.JSONFirst, recs []exceptions.ExceptionRecord) []string {
	if first != nil {
		if x, _ := exceptions.CoverageByRecord(slices.Values([]string{first.Pointer}), recs); x.Uncovered == 1 {
			return []string{first.Pointer}
		}
	}
	return uncovered[:min(len(uncovered), 3)]
}

// firstReport is where the first counted repetition's full report was written (the one the
// engine keeps per arm when parity fails), "" when none.
func firstReport(a armReport) string {
	for _, r := range a.Runs {
		if r.Status == statusCounted && r.Digest != "" {
			return r.reportPath
		}
	}
	return ""
}

// instability diffs the first two counted repetitions of an UNSTABLE arm that disagree (their
// full reports are kept): the diagnosis names the likely entropy source.
func (c *campaign) instability(a armReport, out map[string][]byte) (*DiffSummary, error) {
	var first *RunInfo
	for i := range a.Runs {
		r := &a.Runs[i]
		if r.Status != statusCounted || r.Digest == "" {
			continue
		}
		if first == nil {
			first = r
			continue
		}
		if r.Digest != first.Digest {
			return c.focusedDiff("unstable-"+string(a.Arm), first.reportPath, r.reportPath, out)
		}
	}
	// The plain repetitions agree: the perturbed repetition gave the second digest.
	for _, p := range a.Perturbed {
		if first != nil && p.Differs {
			return c.focusedDiff("unstable-"+string(a.Arm), first.reportPath, p.ReportPath, out)
		}
	}
	return nil, nil
}
