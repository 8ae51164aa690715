package campaignreport_test

import (
	"strconv"
	"strings"
	"testing"

	"kvparity/internal/layout"
)

// A record's broadness is the report's computation, never the file's "broad": records saved by
// hand with "broad": false are flagged BROAD in report.json and report.md when they name a
// root pattern or cover more than half of the differing pointers, and a record saved as broad
// that no longer is says so without hiding anything.
func TestE2EBroadIsComputedNotTrusted(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the fixture campaigns TestMain runs with the built kvparity binary (not under -short)")
	}
	fields := `"baseline":"b","candidate":"c","cause":"x","regression_test":"t","impact":"i","disposition":"accepted by review"`
	rec := func(id, pointers string, broad bool) string {
		return `{"id":"` + id + `","differs":"d","pointers":[` + pointers + `],` + fields + `,"broad":` + strconv.FormatBool(broad) + "}\n"
	}
	dir := campaignCopy(t, "e2e-semantic")
	writeFile(t, dir, layout.FileExceptions,
		rec("root", `"/metadata/**"`, false)+
			rec("half", `"/per_request/*/**","/summary/*"`, false)+
			rec("narrow", `"/summary/mean_ttft_ms"`, true))
	md, js := reportTwice(t, dir)
	r := parseReport(t, js)
	if r.Semantic.Diff == nil || len(r.Semantic.Coverage) != 3 || len(r.Semantic.Exceptions) != 3 {
		t.Fatalf("semantic section: diff %v, %d coverage entries, %d records", r.Semantic.Diff != nil, len(r.Semantic.Coverage), len(r.Semantic.Exceptions))
	}
	n := r.Semantic.Diff.Count
	root, half, narrow := r.Semantic.Coverage[0], r.Semantic.Coverage[1], r.Semantic.Coverage[2]
	if 2*half.Covers <= n || 2*root.Covers > n || 2*narrow.Covers > n {
		t.Fatalf("the fixture's diff no longer fits the cases: root covers %d, half %d, narrow %d of %d", root.Covers, half.Covers, narrow.Covers, n)
	}
	if !strings.Contains(root.Broad, "names a root pattern (/metadata/**)") || root.ConfirmedBroad || !r.Semantic.Exceptions[0].Broad {
		t.Errorf("root-pattern record saved with broad:false: %+v, record broad %v", root, r.Semantic.Exceptions[0].Broad)
	}
	if want := "covers " + strconv.Itoa(half.Covers) + " of " + strconv.Itoa(n) + " differing pointers"; !strings.Contains(half.Broad, want) || half.ConfirmedBroad || !r.Semantic.Exceptions[1].Broad {
		t.Errorf("record covering more than half saved with broad:false: %+v (want %q), record broad %v", half, want, r.Semantic.Exceptions[1].Broad)
	}
	if narrow.Broad != "" || !narrow.ConfirmedBroad || r.Semantic.Exceptions[2].Broad {
		t.Errorf("a narrow record saved as broad: %+v, record broad %v", narrow, r.Semantic.Exceptions[2].Broad)
	}
	// The pattern's asterisks are escaped: unescaped, "/**" and the next "**" made bold text.
	mustContain(t, md, "#### root (BROAD)", `**Broad record**: it names a root pattern (/metadata/\*\*); it was **not** confirmed as broad when saved`,
		"#### half (BROAD)", "**Broad record**: it covers "+strconv.Itoa(half.Covers)+" of "+strconv.Itoa(n),
		"#### narrow\n\nSaved as broad (its author confirmed it), but against this report's differences it is not")
	if strings.Contains(string(md), "#### narrow (BROAD)") {
		t.Error("report.md flags the narrow record BROAD")
	}
}
