package diffpane

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"kvparity/internal/layout"
)

// The pane computes which records are broad from their patterns and this diff's coverage: a
// record saved by hand with "broad": false is BROAD when it names a root pattern or covers
// more than half of the differing pointers, and a record saved as broad that no longer is
// says so (nothing hidden, nothing flagged that is not broad).
func TestPaneBroadIsComputedNotTrusted(t *testing.T) {
	dir, a, b := semanticPair(t) // 8 differing pointers: 2 in /metadata, 6 under /per_request
	rec := func(id, pointers string, broad bool) string {
		return `{"id":"` + id + `","differs":"d","pointers":[` + pointers + `],"baseline":"b","candidate":"c","cause":"x","regression_test":"t","impact":"i","disposition":"ok","broad":` + strconv.FormatBool(broad) + "}\n"
	}
	content := rec("root", `"/metadata/**"`, false) +
		rec("half", `"/per_request/*/admission_history/**","/per_request/*/terminal_time_ms"`, false) +
		rec("narrow", `"/metadata/engine_config/*/preemption_mode"`, true)
	if err := os.WriteFile(filepath.Join(dir, layout.FileExceptions), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	p := openPane(t, dir, a, b)
	if v := stripANSI(p.View()); !strings.Contains(v, "exceptions: 3 record(s) (2 BROAD)") {
		t.Fatalf("the diff view does not count the computed BROAD records:\n%s", v)
	}
	p, _ = press(p, "L")
	v := stripANSI(p.View())
	for _, w := range []string{
		"root  BROAD (unconfirmed) · covers 2 of 8 · /metadata/**",
		"    BROAD: it names a root pattern (/metadata/**); never confirmed as broad",
		"half  BROAD (unconfirmed) · covers 6 of 8 · /per_request/*/admission_history/**, ",
		"narrow  covers 2 of 8 · /metadata/engine_config/*/preemption_mode",
	} {
		if !strings.Contains(v, w) {
			t.Errorf("records list lacks %q:\n%s", w, v)
		}
	}
	p, _ = press(p, "down")
	if v := stripANSI(p.View()); !strings.Contains(v, "    BROAD: it covers 6 of 8 differing pointers (75%, more than half); never confirmed") {
		t.Errorf("the record covering more than half:\n%s", v)
	}
	p, _ = press(p, "down")
	if v := stripANSI(p.View()); !strings.Contains(v, "    saved as broad by its author; not broad against this diff") || strings.Contains(v, "narrow  BROAD") {
		t.Errorf("a narrow record saved as broad:\n%s", v)
	}
}
