package consistency

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A Half is one of the two halves of the shipped rows OneVerdictEverywhere checks. Each half runs
// in a test package of its own, so each gets go test's per-package time: together they took
// 600 s of the default 10 minutes beside a loaded CPU.
type Half int

const (
	// SemanticHalf is the rows whose semantic verdict the exception records and the
	// instability move: fifo-preemption and leak-random-uuid.
	SemanticHalf Half = iota
	// OtherHalf is every other shipped row, so a row added to rows/ is always checked.
	OtherHalf
)

var semanticRows = []string{"fifo-preemption", "leak-random-uuid"}

// killedBetweenRows are the rows killed between their perf result and its verdict record: rows
// with a perf stage that decides, in the other half.
var killedBetweenRows = []string{"builtin-vllm-disagg", "tiny"}

// rows is the half's shipped row files, from the repository's root.
func (h Half) rows(t *testing.T) []string {
	t.Helper()
	shipped, _ := filepath.Glob("rows/*.toml")
	var rows []string
	for _, f := range shipped {
		if slices.Contains(semanticRows, strings.TrimSuffix(filepath.Base(f), ".toml")) == (h == SemanticHalf) {
			rows = append(rows, f)
		}
	}
	need := semanticRows
	if h == OtherHalf {
		need = killedBetweenRows
	}
	for _, name := range need {
		if !slices.Contains(rows, filepath.Join("rows", name+".toml")) {
			t.Fatalf("rows/%s.toml, which this half's checks need, is not among its shipped rows %v (of %v)", name, rows, shipped)
		}
	}
	return rows
}
