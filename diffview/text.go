package diffview

import (
	"fmt"
	"io"
	"strings"
)

// WriteArms heads both text reports (the diagnosis's and the field patterns') with the two
// arms' labels; it reports whether the reports are identical, in which case it has said so and
// there is nothing more to print.
func WriteArms(b *strings.Builder, d *Diff) (identical bool) {
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
	if WriteArms(&b, d) {
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
