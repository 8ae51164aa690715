package campaignreport

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"kvparity/diffview"
	"kvparity/engine"
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
	file := path.Join(dirDiffs, name+".json")
	var jr diffview.JSONReport
	if relA != "" && relB != "" && c.exists(relA) && c.exists(relB) {
		a, err := os.ReadFile(filepath.Join(c.dir, filepath.FromSlash(relA)))
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(filepath.Join(c.dir, filepath.FromSlash(relB)))
		if err != nil {
			return nil, err
		}
		d, err := diffview.DiffBytes(relA, a, relB, b)
		if err != nil {
			return nil, fmt.Errorf("diffing %s and %s: %w", relA, relB, err)
		}
		jr = d.Report()
		var buf bytes.Buffer
		if err := diffview.WriteJSON(&buf, jr); err != nil {
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
	s := &DiffSummary{File: file, A: jr.A, B: jr.B, Count: jr.Count, Pointers: jr.Pointers, First: jr.First,
		Diagnosis: jr.Diagnosis, Groups: []DiffGroup{}, Changes: []diffview.JSONChange{}}
	s.GroupN = len(jr.Groups)
	for i, g := range jr.Groups {
		if i < maxGroups {
			s.Groups = append(s.Groups, DiffGroup{Key: g.Key, Title: g.Title, Count: g.Count})
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
		s.Diagnosis = []diffview.Signature{}
	}
	return s, nil
}

// semantic decides the one semantic result of stage 8 from the arms, the lifecycle rules, the
// recorded byte parity, the focused diff and the exception records. Exceptions never waive an
// unstable revision or missing lifecycle evidence.
func (c *campaign) semantic(arms []ArmReport, coverage, parity Outcome, out map[string][]byte) (Semantic, error) {
	s := Semantic{Exceptions: c.exceptions, Coverage: []RecordCoverage{}, Uncovered: []string{}}
	if s.Exceptions == nil {
		s.Exceptions = []diffview.ExceptionRecord{}
	}
	for _, a := range arms {
		switch a.Verdict {
		case "UNSTABLE":
			s.Verdict, s.Reason = diffview.VerdictFail, fmt.Sprintf("%s is UNSTABLE (%d distinct digests over %d repetitions): an unstable revision fails the row, and exception records never waive leaked entropy", a.Arm, len(a.Digests), a.Repetitions)
			return s, nil
		case "BLOCKED":
			s.Verdict, s.Reason = "INCONCLUSIVE", fmt.Sprintf("%s is blocked: %s", a.Arm, a.Reason)
			return s, nil
		case "STABLE":
		default:
			s.Verdict, s.Reason = "INCONCLUSIVE", fmt.Sprintf("the determinism stage of %s is not finished (%s)", a.Arm, a.Reason)
			return s, nil
		}
	}
	if parity.Verdict == "" {
		s.Verdict, s.Reason = "INCONCLUSIVE", "both arms are STABLE but no byte-parity verdict was recorded"
		return s, nil
	}
	var missing string
	if coverage.Verdict != "PASS" {
		missing = "missing lifecycle evidence: " + coverage.Reason
	}
	if parity.Verdict == diffview.VerdictPass {
		if missing != "" {
			s.Verdict, s.Reason = diffview.VerdictFail, "canonical reports are byte-identical, but "+missing
			return s, nil
		}
		s.Verdict, s.Reason = diffview.VerdictPass, "all canonical outputs match byte for byte ("+parity.Reason+"), and every lifecycle rule holds"
		return s, nil
	}
	if parity.Verdict != diffview.VerdictFail {
		s.Verdict, s.Reason = "INCONCLUSIVE", fmt.Sprintf("byte parity is %s: %s", parity.Verdict, parity.Reason)
		return s, nil
	}
	base, cand := arms[0], arms[1]
	d, err := c.focusedDiff("parity", firstReport(base), firstReport(cand), out)
	if err != nil {
		return s, err
	}
	s.Diff = d
	if d == nil {
		s.Verdict, s.Reason = diffview.VerdictFail, "canonical reports differ, and neither the kept full reports nor the focused diff (diffs/parity.json) exist: the mismatch cannot be checked against exception records"
		return s, nil
	}
	if d.Count == 0 {
		s.Verdict, s.Reason = diffview.VerdictFail, "the digests differ but the structural diff finds no differing pointer: no exception record can cover that"
		return s, nil
	}
	diff := &diffview.Diff{}
	for _, p := range d.Pointers {
		diff.Changes = append(diff.Changes, diffview.Change{Pointer: p})
	}
	verdict, uncovered := diffview.SemanticVerdict(diff, c.exceptions, false)
	for i := range c.exceptions {
		n := 0
		for _, ptr := range d.Pointers {
			if c.exceptions[i].Covers(ptr) {
				n++
			}
		}
		s.Coverage = append(s.Coverage, RecordCoverage{ID: c.exceptions[i].ID, Covers: n})
	}
	s.UncoveredN = len(uncovered)
	if uncovered != nil {
		s.Uncovered = uncovered[:min(len(uncovered), maxUncovered)]
	}
	switch {
	case missing != "":
		s.Verdict, s.Reason = diffview.VerdictFail, missing
	case verdict == diffview.VerdictPassExceptions:
		s.Verdict, s.Reason = verdict, fmt.Sprintf("%d differing pointers, every one covered by the %d exception record(s) below; each names its regression test", d.Count, len(c.exceptions))
	default:
		s.Verdict = diffview.VerdictFail
		s.Reason = fmt.Sprintf("%d of %d differing pointers are covered by no exception record (first: %s): an unexplained mismatch fails the row",
			len(uncovered), d.Count, strings.Join(uncovered[:min(3, len(uncovered))], ", "))
	}
	return s, nil
}

// firstReport is where the first counted repetition's full report was written (the one the
// engine keeps per arm when parity fails), "" when none.
func firstReport(a ArmReport) string {
	for _, r := range a.Runs {
		if r.Status == statusCounted && r.Digest != "" {
			return r.reportPath
		}
	}
	return ""
}

// instability diffs the first two counted repetitions of an UNSTABLE arm that disagree (their
// full reports are kept): the diagnosis names the likely entropy source.
func (c *campaign) instability(a ArmReport, out map[string][]byte) (*DiffSummary, error) {
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
	return nil, nil
}
