package campaignreport

import (
	"encoding/json"
	"strings"
	"testing"

	"kvparity/exceptions"
)

// Without a byte mismatch nothing is covered, and only a root pattern makes a record broad;
// the report's copy of each record carries the computed flag, its coverage entry the reason
// and what its author confirmed.
func TestFlagBroadWithoutADiff(t *testing.T) {
	s := Semantic{Exceptions: []exceptions.ExceptionRecord{
		{ID: "root", Pointers: []string{"/**"}, Broad: false},
		{ID: "narrow", Pointers: []string{"/summary/mean_ttft_ms"}, Broad: true},
	}, Coverage: []recordCoverage{}}
	stored := s.Exceptions
	s.flagBroad()
	if !s.Exceptions[0].Broad || s.Exceptions[1].Broad {
		t.Fatalf("computed flags: %v %v", s.Exceptions[0].Broad, s.Exceptions[1].Broad)
	}
	if stored[0].Broad || !stored[1].Broad {
		t.Fatal("flagBroad changed the loaded records, not the report's copy")
	}
	js, err := json.Marshal(s.Coverage)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"id":"root","covers":0,"broad":"names a root pattern (/**)"},{"id":"narrow","covers":0,"confirmed_broad":true}]`; string(js) != want {
		t.Fatalf("record_coverage:\n got %s\nwant %s", js, want)
	}
	m := &md{}
	m.semantic(&Report{Semantic: s})
	out := m.b.String()
	// The pattern's asterisks are escaped: unescaped, "/**" and the next "**" made bold text.
	for _, w := range []string{"#### root (BROAD)", `it names a root pattern (/\*\*); it was **not** confirmed as broad`, "#### narrow\n\nSaved as broad (its author confirmed it)"} {
		if !strings.Contains(out, w) {
			t.Errorf("report.md lacks %q:\n%s", w, out)
		}
	}
}
