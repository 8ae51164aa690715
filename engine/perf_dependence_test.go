package engine

import (
	"strings"
	"testing"

	"kvparity/stats"
)

func TestRowDependenceMethodKey(t *testing.T) {
	r, err := ParseRow([]byte(designRow), "row.toml")
	if err != nil {
		t.Fatal(err)
	}
	if r.Perf.DependenceMethod != stats.MethodInconclusive {
		t.Fatalf("left out: %q, want the protocol's literal rule (a row frozen before the key keeps it)", r.Perf.DependenceMethod)
	}
	declared := strings.Replace(designRow, `timing_field = "replay_execution_ms"`, "timing_field = \"replay_execution_ms\"\ndependence_method = \"block-medians\"", 1)
	if r, err = ParseRow([]byte(declared), "row.toml"); err != nil || r.Perf.DependenceMethod != stats.MethodBlockMedians {
		t.Fatalf("declared: %v %v", r, err)
	}
	// The frozen row records it, and reads back the same.
	frozen, err := r.Encode()
	if err != nil || !strings.Contains(string(frozen), `dependence_method = "block-medians"`) {
		t.Fatalf("frozen row lacks the method: %v\n%s", err, frozen)
	}
	if back, err := ParseRow(frozen, "row.toml"); err != nil || back.Perf.DependenceMethod != stats.MethodBlockMedians {
		t.Fatalf("frozen row reads back %v %v", back, err)
	}
	for _, bad := range []string{`"bootstrap"`, `""`, `"Block-Medians"`} {
		text := strings.Replace(declared, `"block-medians"`, bad, 1)
		_, err := ParseRow([]byte(text), "row.toml")
		if err == nil || !strings.HasPrefix(err.Error(), "row.toml: [perf] dependence_method: ") || !strings.Contains(err.Error(), "is not a dependence method") {
			t.Errorf("%s: err = %v, want one naming [perf] dependence_method", bad, err)
		}
	}
	if _, err := ParseRow([]byte(strings.Replace(declared, `"block-medians"`, "3", 1)), "row.toml"); err == nil {
		t.Error("a number accepted as the method")
	}
	// New rows declare the method the study chose.
	if m := DefaultRow().Perf.DependenceMethod; m != stats.MethodBlockMedians {
		t.Fatalf("default row: %q", m)
	}
	ex, err := ParseRow([]byte(ExampleRowTOML), "init-row")
	if err != nil || ex.Perf.DependenceMethod != stats.MethodBlockMedians {
		t.Fatalf("init-row's example: %v %v", ex, err)
	}
}
