package engine

import (
	"bytes"
	"errors"
	"kvparity/internal/layout"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// removeLikeClean deletes what stage 9 deletes on a finished campaign: the pinned copies and
// the trace window.
func removeLikeClean(t *testing.T, dir string, c *Campaign) {
	t.Helper()
	for _, arm := range []Arm{Baseline, Candidate} {
		if err := os.Remove(filepath.Join(dir, c.Pinned(arm).Path)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(c.Host().TraceWindow()); err != nil {
		t.Fatal(err)
	}
}

func TestCleanedCampaignOpensReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	want, _ := runDeterminism(t, tinyTestRow("", ""), dir)
	c, err := Open(dir, testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	removeLikeClean(t, dir, c)
	c.Close()
	journal, _ := os.ReadFile(filepath.Join(dir, layout.FileJournal))

	var warnings []string
	opts := testOptions(t, dir)
	opts.Warn = func(s string) { warnings = append(warnings, s) }
	c, err = Open(dir, opts)
	if err != nil {
		t.Fatalf("a cleaned campaign must open read-only, got %v", err)
	}
	log := drain(c)
	log.waitFor(t, "the replayed history", func(evs []Event) bool { return len(eventsOf[HistoryReplayed](evs)) == 1 })
	if cleaned := errors.Is(c.refusal(), errCleaned); !cleaned || c.Info().ReadOnly != errCleaned.Error() {
		t.Errorf("Cleaned %v, Info().ReadOnly %q", cleaned, c.Info().ReadOnly)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "opened read-only") {
		t.Errorf("warnings %q, want one saying the campaign opened read-only", warnings)
	}
	if n := len(plainDigests(log.all())); n != 4 {
		t.Errorf("the history replayed %d digests, want 4", n)
	}
	s := c.Summary()
	if s.Arms[Candidate].Verdict != "STABLE" || semanticExit(s) != semanticExit(want) {
		t.Errorf("summary of the cleaned campaign %+v differs from the finished one %+v", s, want)
	}
	refusals := map[string]error{
		"StartDeterminism": ctl(c).StartDeterminism(),
		"StartPerf":        ctl(c).StartPerf(),
		"RerunRepetition":  ctl(c).RerunRepetition(s.Arms[Baseline].Runs[0].Run),
		"AddRepetition":    ctl(c).AddRepetition(Candidate),
		"SetWatch":         ctl(c).SetWatch(true),
	}
	_, refusals["journal.Append"] = c.journal.Append(Record{Type: RecBlocked, Reason: "x"})
	for name, err := range refusals {
		if !errors.Is(err, errCleaned) || !strings.Contains(err.Error(), "start a new campaign from row.toml") {
			t.Errorf("%s on a cleaned campaign: %v, want %v", name, err, errCleaned)
		}
	}
	if c.Running() || c.Watching() {
		t.Error("a stage or watch started on a cleaned campaign")
	}
	c.Close()
	if after, _ := os.ReadFile(filepath.Join(dir, layout.FileJournal)); !bytes.Equal(after, journal) {
		t.Error("the journal of a cleaned campaign was written")
	}
}

// Only the trace window gone (or only a binary) is damage, not cleanup: Open names the file.
func TestDamagedCampaignStillFailsToOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	c, err := Create(tinyTestRow("", ""), testOptions(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	drain(c)
	os.Remove(c.Host().TraceWindow())
	c.Close()
	if _, err := Open(dir, testOptions(t, dir)); err == nil || !strings.Contains(err.Error(), "trace window") {
		t.Fatalf("a missing trace window alone: %v", err)
	}
}
