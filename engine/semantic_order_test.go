package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"kvparity/engine/journal"
	"kvparity/internal/layout"
	"kvparity/verdict"
)

// Issue 44, item A ("a FAIL with the wrong reason"): after a routing edit the candidate both
// differs from the baseline and leaves the pressure band the row never declared (the 10–20
// starting band of a disaggregated row). The semantic FAIL names the differences first and the
// assumed band after them, marked as assumed; it used to name only the band.
func TestSemanticFailNamesDifferencesBeforeAnAssumedBand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kvparity and replays with the embedded engine (the fake replay preempts once, whatever the row)")
	}
	// The tiny row at 1,300 blocks: the baseline preempts 12 times, the fifo candidate 9.
	row := TinyRow("", "fifo-preemption")
	row.Replay.Args = vllmDisaggArgs("1300")
	row.Determinism.PressureBand = nil
	c, log := openWithEmbeddedEngine(t, row)
	dir := c.Dir()
	if err := ctl(c).StartDeterminism(); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	s := c.Summary()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	<-log.done
	evs := log.all()
	if v := verdicts(evs); v["determinism/baseline"] != "STABLE" || v["determinism/candidate"] != "STABLE" || v["parity/"] != "FAIL" {
		t.Fatalf("verdicts %v", v)
	}
	if ev := s.Arms[Candidate].Evidence; ev == nil || len(ev.Pressure) != 9 || ev.PressureBand != [2]int{10, 20} {
		t.Fatalf("candidate evidence %+v: want 9 pressure events against the assumed band 10–20", ev)
	}
	recs, _, err := journal.Read[Record](filepath.Join(dir, layout.FileJournal), journal.RefuseDamage)
	if err != nil {
		t.Fatal(err)
	}
	frozen, err := LoadRow(filepath.Join(dir, layout.FileRow))
	if err != nil {
		t.Fatal(err)
	}
	sem := verdict.Decide(FoldJournal(recs, frozen).Inputs(dir)).Semantic
	t.Logf("semantic %s: %s", sem.Verdict, sem.Reason)
	if sem.Verdict != verdict.Fail || !strings.HasPrefix(sem.Reason, "canonical reports differ") {
		t.Fatalf("semantic %s: %q; want FAIL naming the differences first", sem.Verdict, sem.Reason)
	}
	want := "; also missing lifecycle evidence: candidate pressure band: 9 preemptions, band 10–20 assumed (the row declares no [determinism] pressure_band"
	if !strings.Contains(sem.Reason, want) {
		t.Fatalf("semantic reason %q\nwant the assumed band after the differences: %q", sem.Reason, want)
	}
}
