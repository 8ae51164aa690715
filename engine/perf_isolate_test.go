package engine

import (
	"kvparity/engine/instrument"
	"testing"
)

// An isolation the journal never ended is undone (here: its cgroup is already gone, so nothing
// is said). engine/instrument's TestIsolationKeepsKvparity holds that kvparity is never moved.
func TestIsolationUndoesLeftovers(t *testing.T) {
	var warned []string
	h := FoldJournal([]Record{{Type: RecIsolation, Data: MarshalData(instrument.Isolation{Cgroup: "/nonexistent/kvparity-shield-1"})}}, TinyRow("", ""))
	if h.openIsolation() == nil {
		t.Fatal("the fold lost the recorded isolation")
	}
	undoRecordedIsolation(h, func(s string) { warned = append(warned, s) })
	if len(warned) != 0 {
		t.Fatalf("a vanished cgroup needs no undoing: %q", warned)
	}
}
