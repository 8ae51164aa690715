package bisect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"kvparity/campaignreport"
	"kvparity/diffview"
	"kvparity/diffview/diagnose"
	"kvparity/verdict"
)

// documentKind is the document kind of bisect --json (verdict's schema convention: schema_version,
// kind, then the document's fields).
const documentKind = "bisect"

// The statuses of a result.
const (
	StatusFound         = "found"          // the first bad commit is named
	StatusAmbiguous     = "ambiguous"      // skipped commits lie between the last good and the first bad one
	StatusNotReproduced = "not_reproduced" // --bad is judged good: nothing to bisect
	StatusUndecided     = "undecided"      // --bad could not be judged (skipped): nothing can be named
)

// A Result is a bisect's outcome: the first bad commit, the last good one, and every step.
type Result struct {
	SchemaVersion int     `json:"schema_version"`
	Kind          string  `json:"kind"`
	Row           string  `json:"row"`
	Judge         Judge   `json:"judge"`
	Repo          string  `json:"repo"`
	Dir           string  `json:"dir"` // the bisect folder
	Good          Commit  `json:"good"`
	Bad           Commit  `json:"bad"`
	Commits       int     `json:"commits"` // on the first-parent history after --good, --bad included
	Status        string  `json:"status"`
	Reason        string  `json:"reason"`
	FirstBad      *Commit `json:"first_bad,omitempty"`
	LastGood      *Commit `json:"last_good,omitempty"`
	// CouldBe are, for an ambiguous result, the commits the first bad one may be: the skipped
	// ones after the last good commit, and the first commit judged bad.
	CouldBe []Commit `json:"could_be,omitempty"`
	Steps   []Step   `json:"steps"`
	Builds  int      `json:"builds"` // probes whose candidate was compiled (not found in the cache)
	// Campaign is the probe campaign of the good commit against the first bad one (its
	// focused diff: kvparity open, kvparity diff --campaign).
	Campaign string `json:"campaign,omitempty"`
	// Diagnosis is that campaign's focused diff in brief, when its canonical reports differ
	// (the semantic judge's finding): the first divergence and the causes, as its report has them.
	Diagnosis *Diagnosis `json:"diagnosis,omitempty"`
	ExitCode  int        `json:"exit_code"`
}

// Diagnosis is why the first bad commit's reports differ from the good commit's.
type Diagnosis struct {
	Differing int                  `json:"differing"` // differing pointers
	First     *diffview.JSONFirst  `json:"first_divergence"`
	Causes    []diagnose.Signature `json:"causes"` // most specific first
}

// diagnosisOf reads the focused diff of a probe campaign from its report (nil when its reports
// do not differ, or it cannot be read: the campaign is named either way).
func diagnosisOf(campaign string) *Diagnosis {
	rep, err := campaignreport.Build(campaign)
	if err != nil || rep.Semantic.Diff == nil || rep.Semantic.Diff.Count == 0 {
		return nil
	}
	d := rep.Semantic.Diff
	return &Diagnosis{Differing: d.Count, First: d.First, Causes: d.Diagnosis}
}

// result assembles the outcome of the judged steps.
func (b *bisector) result(ctx context.Context, commits []string, steps []Step, judged map[string]Step) (*Result, error) {
	desc := func(sha string) Commit {
		c, err := describe(ctx, b.repo, sha)
		if err != nil {
			return Commit{SHA: sha}
		}
		return c
	}
	r := &Result{SchemaVersion: verdict.SchemaVersion, Kind: documentKind, Row: b.o.Row.Name, Judge: b.o.Judge, Repo: b.repo, Dir: b.dir,
		Good: desc(b.good), Bad: desc(b.bad), Commits: len(commits), Steps: steps}
	if r.Steps == nil {
		r.Steps = []Step{}
	}
	for _, s := range steps {
		if s.Build != nil && !s.Build.Cached {
			r.Builds++
		}
	}
	switch bad := judged[b.bad]; bad.Outcome {
	case Good:
		r.Status, r.ExitCode = StatusNotReproduced, verdict.ExitPass
		r.Reason = fmt.Sprintf("--bad %s is judged good under --judge %s (%s): nothing to bisect", short(b.bad), b.o.Judge, bad.Why)
		return r, nil
	case Skip:
		r.Status, r.ExitCode = StatusUndecided, verdict.ExitInconclusive
		r.Reason = fmt.Sprintf("--bad %s could not be judged (%s): no first bad commit can be named", short(b.bad), bad.Why)
		return r, nil
	}
	lo, hi, skipped := bounds(commits, judged)
	first := desc(commits[hi])
	r.FirstBad = &first
	r.Campaign = filepath.Join(b.dir, judged[commits[hi]].Campaign)
	last := r.Good
	if lo >= 0 {
		last = desc(commits[lo])
	}
	r.LastGood = &last
	r.Diagnosis = diagnosisOf(r.Campaign)
	if len(skipped) == 0 {
		r.Status, r.ExitCode = StatusFound, verdict.ExitFail
		r.Reason = fmt.Sprintf("%s is the first bad commit (%s); %s before it is good", first.Short(), judged[first.SHA].Why, last.Short())
		return r, nil
	}
	for i := lo + 1; i <= hi; i++ {
		r.CouldBe = append(r.CouldBe, desc(commits[i]))
	}
	r.Status, r.ExitCode = StatusAmbiguous, verdict.ExitInconclusive
	r.Reason = fmt.Sprintf("only skipped commits lie between the last good %s and the first bad %s: the first bad commit is one of %d", last.Short(), first.Short(), len(r.CouldBe))
	return r, nil
}

// WriteJSON writes the result as one JSON document.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// maxCauses is how many of the diagnosis's causes the text lists.
const maxCauses = 3

// WriteText writes the result for a terminal: the range, each step and why, then the first
// bad commit with its diff stat and where its probe campaign is.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "bisect %s (judge %s) · %s · %s..%s, %d commits on the first-parent history · %s\n",
		r.Row, r.Judge, r.Repo, r.Good.Short(), r.Bad.Short(), r.Commits, r.Dir)
	for _, s := range r.Steps {
		build := "not built"
		if s.Build != nil {
			build = fmt.Sprintf("built in %.1f s", s.Build.Seconds)
			switch {
			case s.Build.Cached:
				build = "cached build"
			case s.Build.Incremental:
				build += fmt.Sprintf(", incremental (%d files changed, %d units)", s.Build.ChangedFiles, s.Build.Units)
			}
		}
		fmt.Fprintf(&b, "  step %d  %s  %-4s  %s\n", s.N, short(s.Commit), s.Outcome, s.Subject)
		fmt.Fprintf(&b, "          %s\n          %s · probe %.1f s", s.Why, build, s.Seconds)
		if s.Campaign != "" {
			fmt.Fprintf(&b, " · %s", s.Campaign)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s: %s\n", r.Status, r.Reason)
	if r.FirstBad != nil && r.Status == StatusFound {
		c := r.FirstBad
		fmt.Fprintf(&b, "first bad commit %s\n  %s\n  author date %s\n", c.SHA, c.Subject, c.AuthorDate)
		for _, l := range strings.Split(c.DiffStat, "\n") {
			if l != "" {
				fmt.Fprintf(&b, "  %s\n", strings.TrimSpace(l))
			}
		}
	}
	if d := r.Diagnosis; d != nil {
		fmt.Fprintf(&b, "diagnosis of the good commit vs the first bad one: %d differing %s\n", d.Differing, map[bool]string{true: "pointer", false: "pointers"}[d.Differing == 1])
		if d.First != nil {
			fmt.Fprintf(&b, "  first divergence: %s\n", d.First.Text)
		}
		for i, c := range d.Causes {
			if i == maxCauses {
				fmt.Fprintf(&b, "  … %d more causes (kvparity diff --campaign)\n", len(d.Causes)-i)
				break
			}
			fmt.Fprintf(&b, "  %s (explains %d of %d)\n", c.Label, c.Explains, c.Of)
		}
	}
	for _, c := range r.CouldBe {
		fmt.Fprintf(&b, "could be %s  %s\n", c.SHA, c.Subject)
	}
	if r.LastGood != nil {
		fmt.Fprintf(&b, "last good commit %s  %s\n", r.LastGood.SHA, r.LastGood.Subject)
	}
	if r.Campaign != "" {
		fmt.Fprintf(&b, "good vs first bad: %s (kvparity open %[1]s · kvparity diff --campaign %[1]s)\n", r.Campaign)
	}
	fmt.Fprintf(&b, "%d probes, %d builds compiled\n", len(r.Steps), r.Builds)
	_, err := io.WriteString(w, b.String())
	return err
}
