package diagnose

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"kvparity/diffview"
	"kvparity/verdict"
)

// The headless diff with its diagnosis (kvparity diff): text and JSON.

// WriteText prints the headless report: first divergence, diagnosis, then each group with its
// count and up to perGroup changes (0: all).
func WriteText(w io.Writer, d *Diff, perGroup int) error {
	var b strings.Builder
	if diffview.WriteArms(&b, d.Diff) {
		_, err := io.WriteString(w, b.String())
		return err
	}
	if d.Truncated() {
		fmt.Fprintf(&b, "%d differing pointer(s), %d of them held in detail, in %d group(s)\n", d.Count, len(d.Changes), len(d.Groups))
	} else {
		fmt.Fprintf(&b, "%d differing pointer(s) in %d group(s)\n", d.Count, len(d.Groups))
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	fmt.Fprintf(&b, "\nfirst divergence: %s\n", d.First)
	b.WriteString("\ndiagnosis (most specific first):\n")
	for i, s := range d.Diagnosis {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, s)
		for _, e := range s.Evidence {
			fmt.Fprintf(&b, "     - %s\n", e)
		}
	}
	b.WriteString("\ngroups:\n")
	for _, g := range d.Groups {
		fmt.Fprintf(&b, "  %s (%d)\n", g.Title, len(g.Changes))
		for k, ci := range g.Changes {
			if perGroup > 0 && k == perGroup {
				fmt.Fprintf(&b, "    … %d more\n", len(g.Changes)-perGroup)
				break
			}
			c := d.Changes[ci]
			fmt.Fprintf(&b, "    %-8s %s: %s → %s\n", c.Kind, c.Pointer, diffview.Short(c.A), diffview.Short(c.B))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JSONReport is the machine-readable form of a Diff (kvparity diff --json).
type JSONReport struct {
	A         string               `json:"a"`
	B         string               `json:"b"`
	Equal     bool                 `json:"equal"`
	Count     int                  `json:"count"`
	Held      int                  `json:"held,omitempty"` // of a truncated diff: the changes held in detail (groups, diagnosis)
	Pointers  []string             `json:"pointers"`       // every differing pointer
	Groups    []diffview.JSONGroup `json:"groups"`
	First     *diffview.JSONFirst  `json:"first_divergence"`
	Diagnosis []Signature          `json:"diagnosis"`
	Notes     []string             `json:"notes,omitempty"`
	Excluded  []diffview.Exclusion `json:"excluded,omitempty"` // profile-excluded pointers that differ (not compared)
	Semantic  *JSONSemantic        `json:"semantic,omitempty"`
}

// JSONSemantic carries a semantic verdict when exception records were given: the campaign's
// (Of "campaign": the same words as its report) or this diff's judged on its own (Of "diff").
type JSONSemantic struct {
	Verdict verdict.Word `json:"verdict"`
	Reason  string       `json:"reason,omitempty"`
	Of      string       `json:"of"`
	Records int          `json:"records"`
	// UncoveredCount is how many differing pointers no record covers; Uncovered lists the
	// first of them in document order (at most 1,000).
	UncoveredCount int      `json:"uncovered_count"`
	Uncovered      []string `json:"uncovered"`
}

// Report builds the JSON form.
func (d *Diff) Report() JSONReport {
	r := JSONReport{A: d.A.Label, B: d.B.Label, Equal: d.Equal(), Count: d.Count, Pointers: d.Pointers(), Diagnosis: d.Diagnosis, Notes: d.Notes, Excluded: d.Excluded}
	if r.Pointers == nil {
		r.Pointers = []string{}
	}
	if d.Truncated() {
		r.Held = len(d.Changes)
	}
	r.Groups = []diffview.JSONGroup{}
	for _, g := range d.Groups {
		jg := diffview.JSONGroup{Key: g.Key, Title: g.Title, Count: len(g.Changes)}
		for _, ci := range g.Changes {
			c := d.Changes[ci]
			jg.Changes = append(jg.Changes, diffview.JSONChange{Pointer: c.Pointer, Kind: c.Kind.String(), A: c.A, B: c.B, Request: c.Request})
		}
		r.Groups = append(r.Groups, jg)
	}
	if r.Diagnosis == nil {
		r.Diagnosis = []Signature{}
	}
	if f := d.First; f != nil {
		jf := &diffview.JSONFirst{Pointer: f.Pointer, Request: f.Request, Event: f.Event, A: f.A, B: f.B, Text: f.String()}
		if f.Timed && f.AtMs > -1e308 {
			t := f.AtMs
			jf.AtMs = &t
		}
		r.First = jf
	}
	return r
}

// WriteJSON prints the JSON form, indented.
func WriteJSON(w io.Writer, r JSONReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
