package campaignreport_test

import (
	"strings"
	"testing"

	"kvparity/campaignreport"
	"kvparity/exceptions"
)

// The semantic headline names where the runs part: diffview's first divergence (the earliest
// point of the history), not the first uncovered pointers in document order, which is near
// alphabetical. Once a record covers the first divergence, the headline names the first
// uncovered pointers in document order.
func TestE2ESemanticHeadlineNamesTheFirstDivergence(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	dir := campaignCopy(t, "e2e-semantic")
	r, err := campaignreport.WriteReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := r.Semantic.Diff
	if d == nil || d.First == nil || len(r.Semantic.Uncovered) < 2 {
		t.Fatalf("the semantic row has no focused diff with a first divergence: %+v", d)
	}
	first := d.First.Pointer
	if r.Semantic.Uncovered[0] == first {
		t.Fatalf("the fixture's first divergence %s is also first in document order: this test separates nothing", first)
	}
	if !strings.Contains(r.Semantic.Reason, "(first: "+first+")") {
		t.Errorf("semantic reason %q does not name the first divergence %s (%s)", r.Semantic.Reason, first, d.First.Text)
	}

	rec := exceptionRecords(false)[0]
	rec.Differs, rec.Pointers = "the first divergence alone", []string{first}
	if _, err := exceptions.PutException(dir, rec); err != nil {
		t.Fatal(err)
	}
	if r, err = campaignreport.WriteReport(dir); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for _, p := range r.Semantic.Uncovered[:3] {
		if p == first {
			t.Fatalf("the covered first divergence is listed as uncovered: %q", r.Semantic.Uncovered[:3])
		}
		rest = append(rest, p)
	}
	if !strings.Contains(r.Semantic.Reason, "(first: "+strings.Join(rest, ", ")+")") {
		t.Errorf("with the first divergence covered, semantic reason %q; want the first uncovered pointers %q", r.Semantic.Reason, rest)
	}
}
