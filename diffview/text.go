package diffview

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"kvparity/verdict"
)

// writeArms heads both text reports with the two arms' labels; it reports whether the reports
// are identical, in which case it has said so and there is nothing more to print.
func writeArms(b *strings.Builder, d *Diff) (identical bool) {
	fmt.Fprintf(b, "A %s\nB %s\n", d.A.Label, d.B.Label)
	if d.Equal() {
		b.WriteString("identical: no differing pointer\n")
	}
	writeExcluded(b, d)
	return d.Equal()
}

// writeExcluded says which excluded pointers differ: not compared, but not hidden either.
func writeExcluded(b *strings.Builder, d *Diff) {
	for _, x := range d.Excluded {
		fmt.Fprintf(b, "excluded by the canonical profile (not compared): %s\n", x)
	}
}

// WriteText prints the headless report: first divergence, diagnosis, then each group with its
// count and up to perGroup changes (0: all).
func WriteText(w io.Writer, d *Diff, perGroup int) error {
	var b strings.Builder
	if writeArms(&b, d) {
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
			fmt.Fprintf(&b, "    %-8s %s: %s → %s\n", c.Kind, c.Pointer, short(c.A), short(c.B))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JSONReport is the machine-readable form of a Diff (kvparity diff --json).
type JSONReport struct {
	A         string        `json:"a"`
	B         string        `json:"b"`
	Equal     bool          `json:"equal"`
	Count     int           `json:"count"`
	Held      int           `json:"held,omitempty"` // of a truncated diff: the changes held in detail (groups, diagnosis)
	Pointers  []string      `json:"pointers"`       // every differing pointer
	Groups    []JSONGroup   `json:"groups"`
	First     *JSONFirst    `json:"first_divergence"`
	Diagnosis []Signature   `json:"diagnosis"`
	Notes     []string      `json:"notes,omitempty"`
	Excluded  []Exclusion   `json:"excluded,omitempty"` // profile-excluded pointers that differ (not compared)
	Semantic  *JSONSemantic `json:"semantic,omitempty"`
}

// A JSONGroup is one group with its changes.
type JSONGroup struct {
	Key     string       `json:"key"`
	Title   string       `json:"title"`
	Count   int          `json:"count"`
	Changes []JSONChange `json:"changes"`
}

// A JSONChange is one differing pointer.
type JSONChange struct {
	Pointer string `json:"pointer"`
	Kind    string `json:"kind"`
	A       string `json:"a,omitempty"`
	B       string `json:"b,omitempty"`
	Request string `json:"request,omitempty"`
}

// JSONFirst is the first divergence.
type JSONFirst struct {
	AtMs    *float64 `json:"at_ms"` // null: configuration or untimed
	Pointer string   `json:"pointer"`
	Request string   `json:"request,omitempty"`
	Event   string   `json:"event"`
	A       string   `json:"a,omitempty"`
	B       string   `json:"b,omitempty"`
	Text    string   `json:"text"`
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
	r := JSONReport{A: d.A.Label, B: d.B.Label, Equal: d.Equal(), Count: d.Count, Pointers: d.pointers(), Diagnosis: d.Diagnosis, Notes: d.Notes, Excluded: d.Excluded}
	if r.Pointers == nil {
		r.Pointers = []string{}
	}
	if d.Truncated() {
		r.Held = len(d.Changes)
	}
	r.Groups = []JSONGroup{}
	for _, g := range d.Groups {
		jg := JSONGroup{Key: g.Key, Title: g.Title, Count: len(g.Changes)}
		for _, ci := range g.Changes {
			c := d.Changes[ci]
			jg.Changes = append(jg.Changes, JSONChange{Pointer: c.Pointer, Kind: c.Kind.String(), A: c.A, B: c.B, Request: c.Request})
		}
		r.Groups = append(r.Groups, jg)
	}
	if r.Diagnosis == nil {
		r.Diagnosis = []Signature{}
	}
	if f := d.First; f != nil {
		jf := &JSONFirst{Pointer: f.Pointer, Request: f.request, Event: f.event, A: f.a, B: f.b, Text: f.String()}
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

// JSONPatterns is `kvparity diff --patterns --json`: every field pattern with its count.
type JSONPatterns struct {
	A        string         `json:"a"`
	B        string         `json:"b"`
	Count    int            `json:"count"`
	Patterns []PatternCount `json:"patterns"`
}

// PatternsReport builds the JSON form of the field patterns.
func (d *Diff) PatternsReport() JSONPatterns {
	ps := d.FieldPatterns()
	if ps == nil {
		ps = []PatternCount{}
	}
	return JSONPatterns{A: d.A.Label, B: d.B.Label, Count: d.Count, Patterns: ps}
}

// WritePatterns prints the field patterns with their counts, largest first; the counts sum to
// the number of differing pointers, which the last line states.
func WritePatterns(w io.Writer, d *Diff) error {
	var b strings.Builder
	if writeArms(&b, d) {
		_, err := io.WriteString(w, b.String())
		return err
	}
	ps := d.FieldPatterns()
	fmt.Fprintf(&b, "%d differing pointer(s) in %d field pattern(s) (array indices and ids as *):\n", d.Count, len(ps))
	width := len(fmt.Sprint(d.Count))
	sum := 0
	for _, p := range ps {
		fmt.Fprintf(&b, "  %*d  %s\n", width, p.Count, p.Pattern)
		sum += p.Count
	}
	fmt.Fprintf(&b, "  %*d  total\n", width, sum)
	_, err := io.WriteString(w, b.String())
	return err
}
