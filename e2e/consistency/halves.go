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
	if want := map[Half]int{SemanticHalf: len(semanticRows), OtherHalf: 2}[h]; len(rows) < want {
		t.Fatalf("shipped rows of this half: %v (of %v)", rows, shipped)
	}
	return rows
}
